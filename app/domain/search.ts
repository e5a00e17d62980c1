/**
 * Search rules: the term matches case-insensitively anywhere in the listing (address, description,
 * category, tags); chosen categories must all be among the listing's tags; authority bands combine with OR on
 * the rounded-up score. The server runs these rules as SQL (app/services/search.server.ts).
 */
import { CATEGORY_TAGS } from "./options";
import { AUTHORITY_BANDS, type AuthorityBand } from "./score";

export interface SearchQuery {
  term: string;
  tags: string[];
  bands: AuthorityBand[];
  /** "newest" (the default) or "record": the sites' records, best first, poor records last. */
  sort: "newest" | "record";
}

export const MAX_TERM_LENGTH = 100;

/** The category tags' ids: the only tags a search reads (search.server.ts writes them into its statements). */
export const TAG_IDS = new Set<string>(CATEGORY_TAGS.map((tag) => tag.id));
const BAND_IDS = new Set<string>(AUTHORITY_BANDS.map((band) => band.id));

/**
 * A search with nothing to search for (no term, tag or band), newest first: the market's own list, which /market shows
 * to any signed-in user without a limit (docs/decisions/0036-browsing-search-is-the-market.md). Its page and count are
 * read in the session's round trip, as the market's page is, and it is not counted against the search limit.
 */
export function isBrowsing(query: SearchQuery): boolean {
  return query.term === "" && !hasFilters(query);
}

/** Whether the search narrows by category tags or authority bands. */
export function hasFilters(query: SearchQuery): boolean {
  return query.tags.length > 0 || query.bands.length > 0;
}

/** Reads `term`, repeated `tag` and `band` parameters and `sort`; unknown values are dropped. */
export function parseSearchQuery(params: URLSearchParams, pathTerm?: string): SearchQuery {
  // Control characters are spaces (FTS5 reads a phrase only up to a NUL, and would find it unterminated). Cut by
  // characters, not UTF-16 units: a cut never leaves half of an emoji.
  const typed = (pathTerm ?? params.get("term") ?? "").replace(/\p{Cc}/gu, " ");
  const term = [...typed.trim().replace(/\s+/g, " ")].slice(0, MAX_TERM_LENGTH).join("");
  const tags = [...new Set(params.getAll("tag").filter((tag) => TAG_IDS.has(tag)))];
  const bands = [...new Set(params.getAll("band").filter((band) => BAND_IDS.has(band)))] as AuthorityBand[];
  return { term, tags, bands, sort: params.get("sort") === "record" ? "record" : "newest" };
}

/** A phrase for SQLite FTS5: the text quoted, inner quotes doubled, so user input is never query syntax. */
export function ftsPhrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The `site_grams` token (migrations/0020) of a one- or two-character term: 'u' for one character, 'b' for a pair,
 * then the UTF-8 bytes in hex, lower-cased as SQLite's lower() does it (ASCII letters only). Null for other lengths.
 */
export function gramToken(term: string): string | null {
  const length = [...term].length;
  if (length < 1 || length > 2) return null;
  const hex = [...new TextEncoder().encode(lowerAscii(term))].map((byte) => byte.toString(16).toUpperCase().padStart(2, "0")).join("");
  return `${length === 1 ? "u" : "b"}${hex}`;
}

/** The text with its ASCII letters in lower case, as SQLite's lower() writes it (other letters unchanged). */
export function lowerAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * Whether a site's text can be checked for the term exactly as the trigram index matches it, with SQLite's lower()
 * (which folds the case of ASCII letters only, where the index folds every letter's): true unless the term has a letter
 * beyond ASCII that has another case.
 */
export function foldsAsAscii(term: string): boolean {
  return [...term].every((char) => char < "\x80" || (char.toLowerCase() === char && char.toUpperCase() === char));
}

/**
 * The term a search page shows, from `/search?term=…` or `/search/{term}` (in any letter case, as the router matches
 * them: a phone's address bar may write "/Search/seo"); empty on any other page.
 */
export function searchTermOf(pathname: string, search: string): string {
  if (/^\/search\/?$/i.test(pathname)) return new URLSearchParams(search).get("term") ?? "";
  const match = /^\/search\/([^/]+)\/?$/i.exec(pathname);
  return match ? decodedLeniently(match[1]!) : "";
}

/**
 * A path segment as the text it encodes, each run of escapes decoded on its own: a stray "%" typed in the address bar
 * ("50% off" is sent as "50%%20off") would make the whole segment undecodable; a run that is no UTF-8 stays as typed.
 */
function decodedLeniently(segment: string): string {
  return segment.replace(/(?:%[\da-f]{2})+/gi, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}
