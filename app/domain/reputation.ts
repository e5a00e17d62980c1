/**
 * A site's record from its behaviour on the marketplace: trades completed, the share of its finished trades it
 * completed, how fast it answers offers, and how many of the links it delivered were still live after 30 and 90
 * days. Pure: the service counts, this decides what the counts mean.
 */

export interface ReputationCounts {
  /** Its sides of accepted trades that it completed (delivered, with a link found). */
  completed: number;
  /** Its sides that are over or overdue: completed, stopped, or accepted more than 30 days ago. */
  settled: number;
  /** Offers it answered (accepted or declined) or left unanswered, and the median time it took (an unanswered offer
   * counts as the whole 14-day answer window). */
  answered: number;
  answerMs: number | null;
  /** Its delivered links checked 30 (90) days after delivery, and how many were still there, linking to the partner. */
  links30: number;
  live30: number;
  links90: number;
  live90: number;
}

export interface Reputation extends ReputationCounts {
  completionRate: number | null;
  live30Share: number | null;
  live90Share: number | null;
  /** Why the record is poor; empty when it is not. */
  poorReasons: string[];
  /** "Best record" order (`RECORD_KEY`): 0 poor, 1 no record yet, then 2 to 1002, the better the higher. */
  sortKey: number;
}

/** The "Best record" sort key's parts: a poor record, no record yet, and the lowest key of a good one (`sites.rep_sort`). */
export const RECORD_KEY = { poor: 0, none: 1, good: 2 } as const;

const DAY_MS = 24 * 60 * 60_000;
/** A delivered link is watched (checked daily) for a year after delivery: delivery = link_watch_until - this. */
export const LINK_WATCH_MS = 365 * DAY_MS;
/** The record counts each delivered link as the first readable check on or after these days saw it. */
export const LINK_MARK_DAYS = [30, 90] as const;

/** A trade side counts against completion once it has been accepted this long without being completed. */
export const TRADE_DUE_DAYS = 30;

const share = (part: number, whole: number) => (whole > 0 ? part / whole : null);
/** Laplace's rule: one success and one failure assumed, so 1 of 1 does not beat 19 of 20. */
const smoothed = (part: number, whole: number) => (part + 1) / (whole + 2);

export function reputationOf(counts: ReputationCounts): Reputation {
  const poorReasons: string[] = [];
  if (counts.settled >= 3 && counts.completed / counts.settled < 0.5) poorReasons.push(`completed ${counts.completed} of ${counts.settled} trades`);
  if (counts.links30 >= 2 && counts.live30 / counts.links30 < 0.5)
    poorReasons.push(`${counts.links30 - counts.live30} of ${counts.links30} links gone within 30 days`);
  else if (counts.links90 >= 2 && counts.live90 / counts.links90 < 0.5)
    poorReasons.push(`${counts.links90 - counts.live90} of ${counts.links90} links gone within 90 days`);
  const parts = [
    ...(counts.settled > 0 ? [smoothed(counts.completed, counts.settled)] : []),
    ...(counts.links30 > 0 ? [smoothed(counts.live30, counts.links30)] : []),
    ...(counts.links90 > 0 ? [smoothed(counts.live90, counts.links90)] : []),
  ];
  const quality = parts.length ? parts.reduce((sum, part) => sum + part, 0) / parts.length : null;
  return {
    ...counts,
    completionRate: share(counts.completed, counts.settled),
    live30Share: share(counts.live30, counts.links30),
    live90Share: share(counts.live90, counts.links90),
    poorReasons,
    sortKey: poorReasons.length ? RECORD_KEY.poor : quality === null ? RECORD_KEY.none : RECORD_KEY.good + Math.round(quality * 1000),
  };
}

const percent = (value: number) => `${Math.round(value * 100)}%`;

/** How long a site takes to answer, in words: "within an hour", "in 5 hours", "in 2 days". */
export function formatAnswerTime(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours <= 1) return "within an hour";
  if (hours < 1.5) return "in 1 hour";
  if (hours < 48) return `in ${Math.round(hours)} hours`;
  return `in ${Math.round(hours / 24)} days`;
}

export interface RecordLine {
  label: string;
  value: string;
}

/** The record as lines for the profile and the market panel; figures without data say so. */
export function recordLines(rep: Reputation): RecordLine[] {
  return [
    { label: "Trades completed", value: String(rep.completed) },
    { label: "Completion rate", value: rep.completionRate === null ? "no finished trades yet" : `${percent(rep.completionRate)} of ${rep.settled}` },
    {
      label: "Answers offers",
      value: rep.answerMs === null ? "no offers answered yet" : `${formatAnswerTime(rep.answerMs)} (median of ${rep.answered})`,
    },
    { label: "Links live after 30 days", value: rep.live30Share === null ? "none checked yet" : `${percent(rep.live30Share)} of ${rep.links30}` },
    { label: "Links live after 90 days", value: rep.live90Share === null ? "none checked yet" : `${percent(rep.live90Share)} of ${rep.links90}` },
  ];
}

/** One line for a search or market card. */
export function recordSummary(rep: Reputation): string {
  if (rep.settled === 0 && rep.links30 === 0) return rep.completed > 0 ? `${rep.completed} trades completed` : "No trades yet";
  const parts = [`${rep.completed} ${rep.completed === 1 ? "trade" : "trades"} completed`];
  if (rep.completionRate !== null) parts.push(`${percent(rep.completionRate)} completion`);
  if (rep.live30Share !== null) parts.push(`${percent(rep.live30Share)} links live at 30 days`);
  return parts.join(" · ");
}

export const RECORD_EXPLANATION =
  "Measured by the marketplace from this site's trades: the sides it completed, the share of its finished trades it completed (a side still open 30 days after the offer was accepted counts as not completed), the median time it took to answer offers (one left unanswered counts as 14 days), and how many of the links it delivered were still on their page, linking to the partner, when checked 30 and 90 days later.";
