/**
 * The offer state machine, as pure rules the server enforces and the pages use to
 * decide which actions to show. See docs/decisions/0013-proposal-holds-connects.md, 0014-trash-per-participant.md and
 * 0015-trade-progress-and-delivery.md.
 */
import type { StatusCode } from "./offer-status";

export type Role = "sender" | "receiver";
export type OfferState = "pending" | "declined" | "rescind" | "accepted" | "expired";
export type OfferAction = "accept" | "decline" | "rescind" | "trash";
export type EntryStatus = "not_started" | "in_progress" | "completed" | "stopped";

export const ANSWER_WITHIN_MS = 14 * 24 * 60 * 60 * 1000;

/** Who may do what to the offer as a whole. */
export function canActOnOffer(action: OfferAction, offer: { status: OfferState; role: Role; trashed: boolean }): boolean {
  switch (action) {
    case "accept":
    case "decline":
      return offer.status === "pending" && offer.role === "receiver";
    case "rescind":
      return offer.status === "pending" && offer.role === "sender";
    case "trash":
      return !offer.trashed && (offer.status === "declined" || offer.status === "rescind" || offer.status === "expired");
  }
}

/** Each participant's own progress after acceptance; completed is final. */
export const ENTRY_TRANSITIONS: Record<EntryStatus, readonly EntryStatus[]> = {
  not_started: ["in_progress"],
  in_progress: ["completed", "stopped"],
  stopped: ["in_progress"],
  completed: [],
};

export function canMoveEntry(from: EntryStatus, to: EntryStatus): boolean {
  return ENTRY_TRANSITIONS[from].includes(to);
}

/** The states an entry may be in to move to `to`. */
export function entryStatesBefore(to: EntryStatus): EntryStatus[] {
  return (Object.keys(ENTRY_TRANSITIONS) as EntryStatus[]).filter((from) => canMoveEntry(from, to));
}

export const ENTRY_STATUS_CODES: Record<EntryStatus, StatusCode> = {
  not_started: "DNS",
  in_progress: "INP",
  completed: "COM",
  stopped: "STP",
};

/** The label of an offer for one side: a trade is Completed when both sides are; unanswered offers are Incomplete. */
export function offerStatusCode(offer: { status: OfferState; trashed: boolean; entries?: EntryStatus[] }): StatusCode {
  if (offer.trashed) return "TRS";
  switch (offer.status) {
    case "pending":
      return "PEN";
    case "declined":
      return "DEC";
    case "rescind":
      return "RES";
    case "expired":
      return "NORES";
    case "accepted":
      if (offer.entries && offer.entries.length > 0 && offer.entries.every((entry) => entry === "completed")) return "COM";
      if (offer.entries?.some((entry) => entry !== "not_started")) return "INP";
      return "ACC";
  }
}

/** Labels of the buttons that move one's own entry. */
const ENTRY_ACTION_LABELS: Record<EntryStatus, string> = {
  in_progress: "Start",
  completed: "Mark completed",
  stopped: "Stop",
  not_started: "",
};

/** The label of the button that moves one's own entry from `from` to `to`: work stopped is resumed, not started. */
export function entryActionLabel(from: EntryStatus, to: EntryStatus): string {
  return from === "stopped" && to === "in_progress" ? "Resume" : ENTRY_ACTION_LABELS[to];
}

/**
 * The addresses a content url (from `contentUrlOf`) may be typed as for the same page: either scheme, www. or not, a
 * slash at the end of its path or not.
 */
export function samePageAddresses(contentUrl: string): string[] {
  const url = new URL(contentUrl);
  const bare = url.hostname.replace(/^www\./, "");
  const path = url.pathname.replace(/(.)\/+$/, "$1");
  // With a slash at its end or without ("/guide", "/guide/"): servers answer both with the same page.
  const paths = path === "/" ? [path] : [path, `${path}/`];
  const addresses: string[] = [];
  for (const protocol of ["https:", "http:"]) {
    for (const hostname of [bare, `www.${bare}`]) {
      for (const pathname of paths) {
        const variant = new URL(url.href);
        variant.protocol = protocol;
        variant.hostname = hostname;
        variant.pathname = pathname;
        addresses.push(variant.href);
      }
    }
  }
  return addresses;
}

/** The longest content url stored, as it is stored (a path in another script takes several times its length once encoded). */
export const CONTENT_URL_MAX_LENGTH = 2048;

/**
 * The page a trade's content is on, as the owner typed it: an http(s) address, or one without its scheme (read as
 * https, as the site field reads "yoursite.com"); null when it is not one or is longer than CONTENT_URL_MAX_LENGTH.
 */
export function contentUrlOf(value: string): string | null {
  const href = webPageAddress(value);
  return href !== null && href.length <= CONTENT_URL_MAX_LENGTH ? href : null;
}

/** Whether a typed content url is refused for its length: a web page's address too long to store, or far too long to read. */
export function isOverlongContentUrl(value: string): boolean {
  return value.trim().length > TYPED_ADDRESS_MAX_LENGTH || (webPageAddress(value)?.length ?? 0) > CONTENT_URL_MAX_LENGTH;
}

/** Longer than this, what was typed is not read as an address at all. */
const TYPED_ADDRESS_MAX_LENGTH = 8 * CONTENT_URL_MAX_LENGTH;

/** A typed address as the web page's address it names, whatever its encoded length, or null. */
function webPageAddress(value: string): string | null {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > TYPED_ADDRESS_MAX_LENGTH) return null;
  try {
    const url = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
    const web = url.protocol === "https:" || url.protocol === "http:";
    // A fragment names a place in the page, never another page: it is left out.
    url.hash = "";
    // An empty query ("page?") is the page itself.
    if (url.search === "") url.search = "";
    // No user name or password in it: the address is shown to the other party and fetched by the link checks.
    return web && url.hostname.includes(".") && !url.username && !url.password ? url.href : null;
  } catch {
    return null;
  }
}
