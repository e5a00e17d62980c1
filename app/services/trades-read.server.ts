/** Reads about trades: the dashboard's counters, the hosts an offer's messages name, and the connects page. */
import { and, desc, eq, gt, lt, or, sql, type SQL } from "drizzle-orm";
import { connectLedger, connectLots, offers, paymentEvents } from "#drizzle/schema";
import { BEFORE_ALL, keysetPage, type Cursor } from "~/domain/cursor";
import type { Database } from "~/lib/db.server";
import { receiverSite, senderSite } from "./offer-lists.server";

/** Status and sides of every offer of the site, for the dashboard counters (no cap, three small columns; to batch). */
export function offerSidesQuery(db: Database, siteId: string | SQL) {
  return db
    .select({ status: offers.status, senderSiteId: offers.senderSiteId, receiverSiteId: offers.receiverSiteId })
    .from(offers)
    .where(or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId)));
}

/** The two sites' hosts of an offer, for messages about it. */
export function hostsOf(db: Database, offerId: string) {
  return db
    .select({ sender: senderSite.host, receiver: receiverSite.host })
    .from(offers)
    .innerJoin(senderSite, eq(senderSite.id, offers.senderSiteId))
    .innerJoin(receiverSite, eq(receiverSite.id, offers.receiverSiteId))
    .where(eq(offers.id, offerId))
    .get();
}

/** How many lots the Connects page lists, and how many moves a page of its history shows. */
export const LOTS_SHOWN = 100;
export const LEDGER_PAGE_SIZE = 100;

/**
 * The lots the user can still spend at `now` (some left, not expired), soonest to expire first, the first
 * `LOTS_SHOWN`; with how many there are in all and what they hold, so the page says what it leaves out. Spent and
 * expired lots stay in the table (every returned proposal makes one) and would otherwise fill the page before these.
 */
export async function connectLotsOf(db: Database, userId: string, now: number) {
  const rows = await db
    .select({
      id: connectLots.id,
      source: connectLots.source,
      amount: connectLots.amount,
      remaining: connectLots.remaining,
      expiresAt: connectLots.expiresAt,
      lotsInAll: sql<number>`count(*) OVER ()`,
      connectsInAll: sql<number>`sum(${connectLots.remaining}) OVER ()`,
    })
    .from(connectLots)
    .where(and(eq(connectLots.userId, userId), gt(connectLots.expiresAt, now), gt(connectLots.remaining, 0)))
    .orderBy(connectLots.expiresAt, connectLots.id)
    .limit(LOTS_SHOWN)
    .all();
  const lots = rows.map(({ lotsInAll: _count, connectsInAll: _sum, ...lot }) => lot);
  const first = rows[0];
  const shownConnects = lots.reduce((sum, lot) => sum + lot.remaining, 0);
  const more = first && first.lotsInAll > lots.length ? { lots: first.lotsInAll - lots.length, connects: first.connectsInAll - shownConnects } : null;
  return { lots, more };
}

/**
 * A page of the user's ledger, newest first, from just before `before` (the last move of the page before; the newest
 * first); purchases with their receipt (amount paid and currency).
 */
export async function ledgerPage(db: Database, userId: string, before: Cursor = BEFORE_ALL.descending) {
  const rows = await db
    .select({
      id: connectLedger.id,
      kind: connectLedger.kind,
      amount: connectLedger.amount,
      held: connectLedger.held,
      createdAt: connectLedger.createdAt,
      paid: paymentEvents.amountTotal,
      currency: paymentEvents.currency,
    })
    .from(connectLedger)
    .leftJoin(paymentEvents, and(eq(paymentEvents.id, connectLedger.paymentEventId), eq(connectLedger.kind, "purchase")))
    .where(
      and(
        eq(connectLedger.userId, userId),
        or(lt(connectLedger.createdAt, before.at), and(eq(connectLedger.createdAt, before.at), lt(connectLedger.id, before.id))),
      ),
    )
    .orderBy(desc(connectLedger.createdAt), desc(connectLedger.id))
    .limit(LEDGER_PAGE_SIZE + 1)
    .all();
  return keysetPage(rows, LEDGER_PAGE_SIZE, (row) => ({ at: row.createdAt, id: row.id }));
}
