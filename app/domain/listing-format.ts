/** How a listing is shown on a post card: a short address, a description preview, 'No description' when empty. */
export const ADDRESS_DISPLAY_LENGTH = 19;
export const DESCRIPTION_PREVIEW_LENGTH = 100;
/** The one blogging platform whose addresses keep their path (the blog lives under it). */
export const PATH_KEEPING_HOSTS = ["medium.com"];

export function shortenAddress(url: string): string {
  let address = url
    .trim()
    .replace(/^https?:\/\//i, "")
    .replace(/^www\./i, "");
  const slash = address.indexOf("/");
  if (slash !== -1) {
    const host = address.slice(0, slash).toLowerCase();
    if (!PATH_KEEPING_HOSTS.includes(host)) address = address.slice(0, slash);
  }
  address = address.replace(/\/+$/, "");
  return cutToCharacters(address, ADDRESS_DISPLAY_LENGTH);
}

export function previewDescription(description: string | null | undefined): string {
  const text = (description ?? "").trim();
  if (!text) return "No description";
  return cutToCharacters(text, DESCRIPTION_PREVIEW_LENGTH);
}

/** The text cut to `length` characters (not UTF-16 units: never half an emoji) and "...", or whole if it fits. */
function cutToCharacters(text: string, length: number): string {
  if (text.length <= length) return text;
  const characters = [...text];
  return characters.length > length ? `${characters.slice(0, length).join("")}...` : text;
}

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
