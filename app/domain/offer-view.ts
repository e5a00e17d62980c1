/** One offer as a participant sees it on the Offers page: the server builds it, the components show it. */
import { clockTime, formatShortDate, isSameDayIn, partsIn } from "./dates";
import type { EntryStatus, OfferState, Role } from "./offer-rules";
import type { StatusCode } from "./offer-status";
import type { ReputationCounts } from "./reputation";

/**
 * When a pending offer can be answered until, which holds to the minute (14 days after its proposal): the clock time
 * with "today" or the date, so a date alone is not read as the whole of that day.
 */
export function formatAnswerBy(answerBy: number, now: number, timeZone: string): string {
  const time = clockTime(partsIn(answerBy, timeZone));
  return isSameDayIn(answerBy, now, timeZone) ? `${time} today` : `${formatShortDate(answerBy, now, timeZone)}, ${time}`;
}

/** What the checks of a delivered link found (the `link_checks` states). */
export type LinkCheckState = "found" | "missing" | "changed" | "nofollow" | "error";
/** A delivered link's state as of its last check: a problem is flagged. */
export type DeliveredLinkStatus = "live" | "nofollow" | "hidden" | "lost" | "moved";

/**
 * What is wrong with a delivered link, said after "the link" or "your link on {site}": the same words on the trade's
 * flag, the dashboard's "Delivered links to look at" and the email to the party the link was for.
 */
export const LINK_PROBLEMS: Record<Exclude<DeliveredLinkStatus, "live">, string> = {
  lost: "is gone from the page",
  moved: "points to another site",
  nofollow: "is nofollow (or sponsored or ugc)",
  hidden: "is hidden on the page",
};

/**
 * The same, said of a change (the emails sent when a check finds the link changed). The panel and the dashboard say
 * what is (`LINK_PROBLEMS`): a link delivered nofollow was never anything else.
 */
export const LINK_CHANGES: Record<Exclude<DeliveredLinkStatus, "live">, string> = {
  lost: "is gone from the page",
  moved: "now points to another site",
  nofollow: "is now nofollow (or sponsored or ugc)",
  hidden: "is now hidden on the page",
};

/** The problem of a link in a state read from the database (`null` or an unknown state: the link was not found). */
export function linkProblemOf(status: string | null): string {
  return LINK_PROBLEMS[status as keyof typeof LINK_PROBLEMS] ?? LINK_PROBLEMS.lost;
}

export interface LinkCheckSummary {
  state: LinkCheckState;
  rel: string | null;
  hidden: boolean;
  anchorText: string | null;
  targetHost: string;
  checkedAt: number;
}

export interface LinkCheckRecord extends LinkCheckSummary {
  userId: string;
  error: string | null;
  /** The check of the viewer's own delivered link. */
  mine: boolean;
}

/** One participant's side of an offer. */
export interface OfferSide {
  contentType: string;
  materials: string[];
  status: EntryStatus;
  contentUrl: string | null;
  linkStatus: DeliveredLinkStatus | null;
  /** The delivered link's last check. */
  link: LinkCheckSummary | null;
}

/** A site of an offer as its profile shows it. */
export interface OfferSiteProfile {
  id: string;
  url: string;
  host: string;
  icon: string | null;
  score: number;
  description: string;
  tags: string[];
  contentTypes: string[];
  materials: string[];
  verified: boolean;
  record: ReputationCounts;
}

export interface OfferDetail {
  id: string;
  status: OfferState;
  connects: number;
  createdAt: number;
  answerBy: number;
  role: Role;
  trashed: boolean;
  code: StatusCode;
  own: OfferSide;
  other: OfferSide;
  /** Every check of both delivered links, newest first. */
  linkHistory: LinkCheckRecord[];
  ownSite: OfferSiteProfile;
  otherSite: OfferSiteProfile;
}
