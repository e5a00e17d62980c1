/**
 * Which image a site's stored icon shows as. Apart from the post card's text (listing-format.ts): every page's header
 * shows an icon, so this module is in every page's script, and the card's code need not be.
 */

/** The product's favicon: the default and fallback site icon. */
export const DEFAULT_ICON = "/favicon.svg";

/** Local logos in public/logos that a site's icon may name. */
export const LOCAL_LOGOS = ["blog", "product", "cooking", "educational", "gaming"];

/** A local logo name resolves to /logos/{name}.svg; a full https address is used as it is; else the favicon. */
export function iconSource(icon: string | null | undefined): string {
  if (!icon) return DEFAULT_ICON;
  // An address stored before icon addresses were capped (2,048 characters) shows the default too.
  if (icon.length <= 2048 && /^https:\/\/[^\s"'<>]+$/i.test(icon)) return icon;
  if (LOCAL_LOGOS.includes(icon.toLowerCase())) return `/logos/${icon.toLowerCase()}.svg`;
  return DEFAULT_ICON;
}
