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
import { LINK_MARK_DAYS, LINK_WATCH_MS, reputationOf, TRADE_DUE_DAYS, type ReputationCounts } from "~/domain/reputation";

const DAY_MS = 24 * 60 * 60_000;
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

/** The record of a whole site row (the owner's own site). */
export function recordOfSite(site: typeof sites.$inferSelect): ReputationCounts {
  return {
    completed: site.repCompleted,
    settled: site.repSettled,
    answered: site.repAnswered,
    answerMs: site.repAnswerMs,
    links30: site.repLinks30,
    live30: site.repLive30,
    links90: site.repLinks90,
    live90: site.repLive90,
  };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}

const inList = (ids: string[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * Counts these sites' records from their offers, their trade sides and the checks of the links they delivered: three
 * queries for any number of sites (at most 30 per call; more are counted 30 at a time).
 */
export async function reputationCountsOf(db: Database, siteIds: string[], now: number): Promise<Map<string, ReputationCounts>> {
  const counts = new Map<string, ReputationCounts>(
    siteIds.map((id) => [id, { completed: 0, settled: 0, answered: 0, answerMs: null, links30: 0, live30: 0, links90: 0, live90: 0 }]),
  );
  if (siteIds.length === 0) return counts;
  const ids = inList(siteIds);
  const dueBefore = now - TRADE_DUE_DAYS * DAY_MS;
  const [sides, answers, links] = await Promise.all([
    // The sites' own sides of accepted trades (found through the offers' site indexes).
    db.all<{ siteId: string; completed: number; settled: number }>(sql`
      SELECT e.site_id AS siteId, sum(e.status = 'completed') AS completed,
             sum(e.status IN ('completed', 'stopped') OR o.answered_at < ${dueBefore}) AS settled
      FROM offers o JOIN offer_entries e ON e.offer_id = o.id
      WHERE (o.sender_site_id IN (${ids}) OR o.receiver_site_id IN (${ids})) AND e.site_id IN (${ids}) AND o.status = 'accepted'
      GROUP BY e.site_id`),
    // The latest answers of each site; an offer left unanswered counts as the whole answer window.
    db.all<{ siteId: string; ms: number }>(sql`
      SELECT siteId, ms FROM (
        SELECT receiver_site_id AS siteId,
               CASE WHEN status = 'expired' THEN answer_by - created_at ELSE answered_at - created_at END AS ms,
               row_number() OVER (PARTITION BY receiver_site_id ORDER BY created_at DESC) AS n
        FROM offers
        WHERE receiver_site_id IN (${ids})
          AND ((status IN ('accepted', 'declined') AND answered_at IS NOT NULL) OR status = 'expired'))
      WHERE n <= ${ANSWERS_COUNTED}`),
    // Each delivered link as the first readable check at or after 30 (90) days from delivery saw it: still on the
    // page, linking to the partner (1), or not (0); null when not checked yet.
    db.all<{ siteId: string; live30: number | null; live90: number | null }>(sql`
      SELECT e.site_id AS siteId,
        (SELECT c.state = 'found' FROM link_checks c
         WHERE c.offer_id = e.offer_id AND c.user_id = e.user_id AND c.state <> 'error' AND c.checked_at >= e.link_watch_until - ${
           LINK_WATCH_MS - LINK_MARK_DAYS[0] * DAY_MS
         }
         ORDER BY c.checked_at LIMIT 1) AS live30,
        (SELECT c.state = 'found' FROM link_checks c
         WHERE c.offer_id = e.offer_id AND c.user_id = e.user_id AND c.state <> 'error' AND c.checked_at >= e.link_watch_until - ${
           LINK_WATCH_MS - LINK_MARK_DAYS[1] * DAY_MS
         }
         ORDER BY c.checked_at LIMIT 1) AS live90
      FROM offers o JOIN offer_entries e ON e.offer_id = o.id
      WHERE (o.sender_site_id IN (${ids}) OR o.receiver_site_id IN (${ids})) AND e.site_id IN (${ids})
        AND e.status = 'completed' AND e.link_watch_until IS NOT NULL`),
  ]);
  for (const row of sides) Object.assign(counts.get(row.siteId)!, { completed: row.completed, settled: row.settled });
  for (const siteId of siteIds) {
    const own = answers.filter((answer) => answer.siteId === siteId).map((answer) => answer.ms);
    const delivered = links.filter((link) => link.siteId === siteId);
    const checked30 = delivered.filter((link) => link.live30 !== null);
    const checked90 = delivered.filter((link) => link.live90 !== null);
    Object.assign(counts.get(siteId)!, {
      answered: own.length,
      answerMs: median(own),
      links30: checked30.length,
      live30: checked30.filter((link) => link.live30 === 1).length,
      links90: checked90.length,
      live90: checked90.filter((link) => link.live90 === 1).length,
    });
  }
  return counts;
}

/** Sites counted per round: their ids appear three times in a query, within D1's 100 bound values. */
const SITES_PER_ROUND = 30;
/** Sites written per statement: 11 values each, within D1's 100 bound values. */
const SITES_PER_WRITE = 9;

/**
 * Counts these sites' records again and stores them with their sort key, in a few statements for any number. A
 * record counted meanwhile by a refresh that started later (a trade's move while this one read) is kept: this
 * count may be missing what that one saw (docs/decisions/0053-writes-that-overlap.md).
 */
export async function refreshReputation(db: Database, siteIds: Iterable<string>, now: number): Promise<void> {
  const all = [...new Set(siteIds)];
  for (let round = 0; round < all.length; round += SITES_PER_ROUND) {
    // The clock when reading starts (not the request's `now`: a request may refresh after another that began later).
    const countedAt = Date.now();
    const counts = await reputationCountsOf(db, all.slice(round, round + SITES_PER_ROUND), now);
    const rows = [...counts].map(
      ([id, c]) =>
        [id, c.completed, c.settled, c.answered, c.answerMs, c.links30, c.live30, c.links90, c.live90, reputationOf(c).sortKey, countedAt] as const,
    );
    const writes = [];
    for (let i = 0; i < rows.length; i += SITES_PER_WRITE) {
      const values = sql.join(
        rows.slice(i, i + SITES_PER_WRITE).map(
          (row) =>
            sql`(${sql.join(
              row.map((value) => sql`${value}`),
              sql`, `,
            )})`,
        ),
        sql`, `,
      );
      writes.push(
        db.run(sql`
          UPDATE sites SET rep_completed = v.column2, rep_settled = v.column3, rep_answered = v.column4, rep_answer_ms = v.column5,
            rep_links_30 = v.column6, rep_live_30 = v.column7, rep_links_90 = v.column8, rep_live_90 = v.column9, rep_sort = v.column10,
            rep_counted_at = v.column11
          FROM (VALUES ${values}) AS v WHERE sites.id = v.column1 AND sites.rep_counted_at <= v.column11`),
      );
    }
    await Promise.all(writes);
  }
}

/** After a request's response: the records its change touched. */
export function refreshReputationLater(context: AppContext, siteIds: string[]): void {
  const now = context.now();
  context.ctx.waitUntil(refreshReputation(context.db, siteIds, now).catch((error) => console.error("reputation refresh", siteIds, error)));
}

/**
 * The daily job: both sites of trades accepted 30 to 33 days ago, whose open sides now count as not completed, and
 * the receivers of offers left unanswered in the last three days. The windows overlap from day to day, so a missed
 * run loses nothing (counting again is harmless).
 */
export async function refreshDueReputations(context: AppContext): Promise<number> {
  const now = context.now();
  const dueBefore = now - TRADE_DUE_DAYS * DAY_MS;
  const [trades, unanswered] = await Promise.all([
    context.db
      .select({ sender: offers.senderSiteId, receiver: offers.receiverSiteId })
      .from(offers)
      .where(and(eq(offers.status, "accepted"), gte(offers.answeredAt, dueBefore - 3 * DAY_MS), lt(offers.answeredAt, dueBefore)))
      .all(),
    context.db
      .select({ receiver: offers.receiverSiteId })
      .from(offers)
      .where(and(eq(offers.status, "expired"), gte(offers.expiredAt, now - 3 * DAY_MS)))
      .all(),
  ]);
  const siteIds = new Set([...trades.flatMap((trade) => [trade.sender, trade.receiver]), ...unanswered.map((offer) => offer.receiver)]);
  await refreshReputation(context.db, siteIds, now);
  return siteIds.size;
}
