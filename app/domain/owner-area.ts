/**
 * The pages of the owner's area (`/mysite/*`), in menu order: the side navigation of the area and the account menu
 * of the header list the same pages. `end`: Home is current only on `/mysite` itself, not on the pages below it.
 */
export const OWNER_AREA_PAGES = [
  { to: "/mysite", label: "Home", end: true },
  { to: "/mysite/offers", label: "Offers", end: false },
  { to: "/mysite/settings", label: "Settings", end: false },
  { to: "/mysite/messages", label: "Messages", end: false },
  { to: "/mysite/connects", label: "Connects", end: false },
  { to: "/mysite/your-score", label: "Your Score", end: false },
] as const;
