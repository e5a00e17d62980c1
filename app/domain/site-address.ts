/**
 * Website addresses: the "domain-like" rule of the specification (optional scheme and www) and the one
 * normalisation every stored site goes through (lower-case host, no scheme, no www., no trailing slash).
 */
import { PATH_KEEPING_HOSTS } from "./listing-format";

// Labels of letters in any script (with their combining marks: the vowel signs of Devanagari or Thai), digits and
// hyphens; the top-level domain in letters, or in the ASCII form an internationalised one is also written in
// (xn--p1ai for .рф; docs/decisions/0052-website-addresses-in-any-script.md).
const WEBSITE_URL =
  /^(?:https?:\/\/)?(?:www\.)?(?:[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}-]{0,61}[\p{L}\p{M}\p{N}])?\.)+(?:\p{L}[\p{L}\p{M}]{1,62}|xn--[a-z0-9](?:[a-z0-9-]{0,57}[a-z0-9])?)(?::\d{1,5})?(?:[/?#][^\s]*)?$/iu;

export const MAX_URL_LENGTH = 2048;

/**
 * Whether `value` is a website address: the pattern, and an address the URL parser takes (the pattern lets through
 * some it refuses, such as a port over 65535, and the site's host is what the parser reads).
 */
export function isWebsiteUrl(value: string): boolean {
  const trimmed = value.trim();
  return trimmed.length > 0 && trimmed.length <= MAX_URL_LENGTH && WEBSITE_URL.test(trimmed) && parsedHost(trimmed) !== null;
}

/** The URL parser's reading of an address with or without its scheme (https when none); null when it refuses it. */
export function parsedAddress(value: string): URL | null {
  const trimmed = value.trim();
  try {
    return new URL(/^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return null;
  }
}

/** The host the URL parser reads from an address with or without its scheme; null when it refuses the address. */
function parsedHost(trimmed: string): string | null {
  return parsedAddress(trimmed)?.hostname.toLowerCase().replace(/\.$/, "") ?? null;
}

/** Host of a website address, normalised; null when the address is not a website address. */
export function normaliseHost(value: string): string | null {
  return typedHost(value)?.replace(/^www\./, "") ?? null;
}

/** The https address of a site's home page, for links and fetches. */
export function homePageUrl(host: string): string {
  return `https://${host}/`;
}

/** The host as the owner typed it (lower-case, www. kept), which is where their home page answers. */
export function typedHost(value: string): string | null {
  return isWebsiteUrl(value) ? parsedHost(value.trim()) : null;
}

/** The same site, whatever the scheme and whether or not it has www. (the host check of a redirect chain). */
export function isSameSite(address: string, host: string): boolean {
  try {
    return (
      new URL(address).hostname
        .toLowerCase()
        .replace(/\.$/, "")
        .replace(/^www\./, "") === host
    );
  } catch {
    return false;
  }
}

/** The blog an address names on a platform whose addresses keep their path (medium.com/@name): its first path segment. */
function blogOf(url: string): string {
  return parsedAddress(url)?.pathname.split("/")[1]?.toLowerCase() ?? "";
}

/**
 * Whether `url` names another site than `ownUrl`, the user's site on the same host `host`: only on a platform whose
 * addresses keep their path, for another blog there (any other two addresses on one host are one site).
 */
export function isOtherBlog(host: string, ownUrl: string, url: string): boolean {
  return PATH_KEEPING_HOSTS.includes(host) && blogOf(ownUrl) !== blogOf(url);
}
