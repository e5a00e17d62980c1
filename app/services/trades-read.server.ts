/** Reads about trades: the dashboard's counters, the hosts an offer's messages name, and the connects page. */
import { and, desc, eq, gt, or, type SQL } from "drizzle-orm";
import { connectLedger, connectLots, offers, paymentEvents } from "#drizzle/schema";
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

/**
 * The lots the user can still spend at `now` (some left, not expired), soonest to expire first. Spent and expired lots
 * stay in the table (every returned proposal makes one) and would otherwise fill the page's hundred before these.
 */
export function connectLotsOf(db: Database, userId: string, now: number) {
  return db
    .select({
      id: connectLots.id,
      source: connectLots.source,
      amount: connectLots.amount,
      remaining: connectLots.remaining,
      expiresAt: connectLots.expiresAt,
    })
    .from(connectLots)
    .where(and(eq(connectLots.userId, userId), gt(connectLots.expiresAt, now), gt(connectLots.remaining, 0)))
    .orderBy(connectLots.expiresAt, connectLots.id)
    .limit(100)
    .all();
}

/** The user's ledger, newest first; purchases with their receipt (amount paid and currency). */
export function ledgerOf(db: Database, userId: string) {
  return db
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
    .where(eq(connectLedger.userId, userId))
    .orderBy(desc(connectLedger.createdAt), desc(connectLedger.id))
    .limit(100)
    .all();
}
