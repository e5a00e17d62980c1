/** Only same-site paths are followed after sign-in; anything else falls back to the market. */
export function safeRedirectPath(value: string | null | undefined, fallback = "/market"): string {
  if (!value || typeof value !== "string") return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char === "\\")) return fallback;
  // As a browser will read it: dot segments resolved, so "/..//elsewhere.example" cannot become "//elsewhere.example".
  const url = new URL(value, "http://local");
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== "http://local" || path.startsWith("//")) return fallback;
  return path;
}

/**
 * Addresses that act rather than show a page: a sign-in with Google or GitHub (which signs the browser in to whatever
 * account the provider's session names), a sign-out. Never where a sign-in lands.
 */
const ACTING_ADDRESS = /^\/(auth|logout)(\/|$)/i;

/** Where a sign-in lands: a same-site page (as `safeRedirectPath` allows), never an address that acts; else the market. */
export function pageAfterSignIn(value: string | null | undefined): string {
  const path = safeRedirectPath(value);
  let pathname = new URL(path, "http://local").pathname;
  try {
    // As the router reads it ("/%61uth/google" is the sign-in with Google).
    pathname = decodeURIComponent(pathname);
  } catch {
    return "/market";
  }
  return ACTING_ADDRESS.test(pathname) ? "/market" : path;
}

/**
 * Parameters that name something of the site that was active: the Offers page's list positions and open offer (of that
 * site's lists) and a notice about it ("Settings saved"). A page shown for another site goes without them.
 */
const SITE_PARAMS = ["notice", "offersAfter", "tradesAfter", "offer", "view"];

/**
 * Where to go back to once another site is active (switched or just added): the same page (as `safeRedirectPath`
 * allows) without what named the site before, so the Offers page starts at the new site's first pages rather than at
 * the old site's positions, which skipped the new site's oldest offers and newest trades.
 */
export function pageForAnotherSite(value: string | null | undefined): string {
  const url = new URL(safeRedirectPath(value), "http://local");
  for (const name of SITE_PARAMS) url.searchParams.delete(name);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** A same-site path with `notice` set, which the signed-in layout shows as a toast. */
export function withNotice(path: string, notice: string): string {
  const url = new URL(safeRedirectPath(path), "http://local");
  url.searchParams.set("notice", notice);
  return `${url.pathname}${url.search}`;
}

/**
 * The words of the notice an address names (`?notice=`), among a page's `notices`; null for any other name, including
 * the names every object inherits (`__proto__`, `constructor`), which are not notices.
 */
export function noticeNamed(notices: Readonly<Record<string, string>>, name: string | null): string | null {
  return name !== null && Object.hasOwn(notices, name) ? notices[name]! : null;
}
