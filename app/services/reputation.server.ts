/**
 * Sites' records from what the product saw (`~/domain/reputation`): counted from offers, trade sides and link checks,
 * and kept on the site's row so the market, search and profiles read them with the listing and can sort by them.
 * A record is counted again after the events that change it: an answer to an offer, a move of a trade side, a check
 * of a delivered link, and (daily) trades that have just been open for 30 days.
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { offers, sites } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { reputationOf, TRADE_DUE_DAYS, type ReputationCounts } from "~/domain/reputation";

const DAY_MS = 24 * 60 * 60_000;
const YEAR_MS = 365 * DAY_MS;
/** The median answer time is taken over the latest answers. */
const ANSWERS_COUNTED = 100;

/** The columns of a site's record, for the reads that show it. */
export const recordColumns = {
  completed: sites.repCompleted,
  settled: sites.repSettled,
  answered: sites.repAnswered,
  answerMs: sites.repAnswerMs,
  links30: sites.repLinks30,
  live30: sites.repLive30,
  links90: sites.repLinks90,
  live90: sites.repLive90,
};

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

/** Counts a site's record from its offers, its trade sides and the checks of the links it delivered. */
export async function reputationCountsOf(db: Database, siteId: string, now: number): Promise<ReputationCounts> {
  const dueBefore = now - TRADE_DUE_DAYS * DAY_MS;
  const [sides, answers, links] = await Promise.all([
    // The site's own sides of accepted trades (found through the offers' site indexes).
    db.get<{ completed: number; settled: number }>(sql`
      SELECT coalesce(sum(e.status = 'completed'), 0) AS completed,
             coalesce(sum(e.status IN ('completed', 'stopped') OR o.answered_at < ${dueBefore}), 0) AS settled
      FROM offers o JOIN offer_entries e ON e.offer_id = o.id AND e.site_id = ${siteId}
      WHERE (o.sender_site_id = ${siteId} OR o.receiver_site_id = ${siteId}) AND o.status = 'accepted'`),
    db.all<{ ms: number }>(sql`
      SELECT answered_at - created_at AS ms FROM offers
      WHERE receiver_site_id = ${siteId} AND status IN ('accepted', 'declined') AND answered_at IS NOT NULL
      ORDER BY created_at DESC LIMIT ${ANSWERS_COUNTED}`),
    // Each delivered link as the first check at or after 30 (90) days from delivery saw it; null when not checked yet.
    db.all<{ live30: number | null; live90: number | null }>(sql`
      SELECT
        (SELECT c.state = 'found' AND c.hidden = 0 AND c.rel = 'follow' FROM link_checks c
         WHERE c.offer_id = e.offer_id AND c.user_id = e.user_id AND c.state <> 'error' AND c.checked_at >= e.link_watch_until - ${
           YEAR_MS - 30 * DAY_MS
         }
         ORDER BY c.checked_at LIMIT 1) AS live30,
        (SELECT c.state = 'found' AND c.hidden = 0 AND c.rel = 'follow' FROM link_checks c
         WHERE c.offer_id = e.offer_id AND c.user_id = e.user_id AND c.state <> 'error' AND c.checked_at >= e.link_watch_until - ${
           YEAR_MS - 90 * DAY_MS
         }
         ORDER BY c.checked_at LIMIT 1) AS live90
      FROM offers o JOIN offer_entries e ON e.offer_id = o.id AND e.site_id = ${siteId}
      WHERE (o.sender_site_id = ${siteId} OR o.receiver_site_id = ${siteId}) AND e.status = 'completed' AND e.link_watch_until IS NOT NULL`),
  ]);
  const checked30 = links.filter((link) => link.live30 !== null);
  const checked90 = links.filter((link) => link.live90 !== null);
  return {
    completed: sides?.completed ?? 0,
    settled: sides?.settled ?? 0,
    answered: answers.length,
    answerMs: median(answers.map((answer) => answer.ms)),
    links30: checked30.length,
    live30: checked30.filter((link) => link.live30 === 1).length,
    links90: checked90.length,
    live90: checked90.filter((link) => link.live90 === 1).length,
  };
}

/** Counts these sites' records again and stores them with their sort key. */
export async function refreshReputation(db: Database, siteIds: Iterable<string>, now: number): Promise<void> {
  for (const siteId of new Set(siteIds)) {
    const counts = await reputationCountsOf(db, siteId, now);
    await db
      .update(sites)
      .set({
        repCompleted: counts.completed,
        repSettled: counts.settled,
        repAnswered: counts.answered,
        repAnswerMs: counts.answerMs,
        repLinks30: counts.links30,
        repLive30: counts.live30,
        repLinks90: counts.links90,
        repLive90: counts.live90,
        repSort: reputationOf(counts).sortKey,
      })
      .where(eq(sites.id, siteId));
  }
}

/** After a request's response: the records its change touched. */
export function refreshReputationLater(context: AppContext, siteIds: string[]): void {
  const now = context.now();
  context.ctx.waitUntil(refreshReputation(context.db, siteIds, now).catch((error) => console.error("reputation refresh", siteIds, error)));
}

/** The daily job: both sites of trades accepted 30 to 31 days ago, whose open sides now count as not completed. */
export async function refreshDueReputations(context: AppContext): Promise<number> {
  const now = context.now();
  const dueBefore = now - TRADE_DUE_DAYS * DAY_MS;
  const trades = await context.db
    .select({ sender: offers.senderSiteId, receiver: offers.receiverSiteId })
    .from(offers)
    .where(and(eq(offers.status, "accepted"), gte(offers.answeredAt, dueBefore - DAY_MS), lt(offers.answeredAt, dueBefore)))
    .all();
  const siteIds = new Set(trades.flatMap((trade) => [trade.sender, trade.receiver]));
  await refreshReputation(context.db, siteIds, now);
  return siteIds.size;
}
