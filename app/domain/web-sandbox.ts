/** The kinds of page the dev web sandbox (/dev/sites) can publish; shared by its page and its transport. */
export const SANDBOX_REDIRECT = "redirect";

export const SANDBOX_CONTENT_TYPES = [
  { id: "text/html; charset=utf-8", label: "HTML page" },
  { id: "image/svg+xml", label: "SVG image (an icon)" },
  { id: "text/plain; charset=utf-8", label: "Plain text (robots.txt, …)" },
  { id: "application/xml; charset=utf-8", label: "XML (a sitemap)" },
  { id: SANDBOX_REDIRECT, label: "Redirect (301) to the address in the body" },
];
