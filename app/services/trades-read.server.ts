/** What the Offers and Trades panels and the connects page show. */
import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { connectLedger, connectLots, offerEntries, offers, paymentEvents, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { offerStatusCode } from "~/domain/offer-rules";

const senderSite = alias(sites, "sender_site");
const receiverSite = alias(sites, "receiver_site");

/**
 * Offers involving the site that this user has not trashed, newest first (a query to batch). Its columns have names
 * of their own: in a batch drizzle maps rows by column name.
 */
function siteOffersQuery(db: Database, userId: string, siteId: string) {
  return db
    .select({
      id: offers.id,
      status: offers.status,
      connects: offers.connects,
      createdAt: offers.createdAt,
      expiredAt: offers.expiredAt,
      senderSiteId: offers.senderSiteId,
      receiverSiteId: offers.receiverSiteId,
      senderHost: sql<string>`${senderSite.host}`.as("sender_host"),
      receiverHost: sql<string>`${receiverSite.host}`.as("receiver_host"),
    })
    .from(offers)
    .innerJoin(senderSite, eq(senderSite.id, offers.senderSiteId))
    .innerJoin(receiverSite, eq(receiverSite.id, offers.receiverSiteId))
    .leftJoin(offerEntries, and(eq(offerEntries.offerId, offers.id), eq(offerEntries.userId, userId)))
    .where(and(or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId)), isNull(offerEntries.trashedAt)))
    .orderBy(desc(offers.createdAt))
    .limit(200);
}

/** Entry statuses of the site's trades, selected by site (an id list could pass D1's limit of bound parameters). */
function tradeEntriesQuery(db: Database, siteId: string) {
  return (
    db
      .select({ offerId: offerEntries.offerId, status: offerEntries.status })
      .from(offerEntries)
      .innerJoin(offers, eq(offers.id, offerEntries.offerId))
      // `+`: found by the site's offers, not by walking every accepted offer of the market (the status index).
      .where(and(sql`+${offers.status} = 'accepted'`, or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId))))
  );
}

type SiteOfferRow = Awaited<ReturnType<ReturnType<typeof siteOffersQuery>["all"]>>[number];
type TradeEntryRow = Awaited<ReturnType<ReturnType<typeof tradeEntriesQuery>["all"]>>[number];

/** The queries behind `offersAndTrades`, to run in one batch with others; `offersAndTradesOf` reads their rows. */
export function offersAndTradesQueries(db: Database, userId: string, siteId: string) {
  return [siteOffersQuery(db, userId, siteId), tradeEntriesQuery(db, siteId)] as const;
}

function toOfferRows(rows: SiteOfferRow[], siteId: string) {
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    connects: row.connects,
    createdAt: row.createdAt,
    sent: row.senderSiteId === siteId,
    otherHost: row.senderSiteId === siteId ? row.receiverHost : row.senderHost,
    senderSiteId: row.senderSiteId,
    receiverSiteId: row.receiverSiteId,
  }));
}

/** Status and sides of every offer of the site, for the dashboard counters (no cap, three small columns; to batch). */
export function offerSidesQuery(db: Database, siteId: string) {
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

/** Offers: not accepted, not trashed, oldest first. Trades: accepted, newest first. Each with its label. */
export function offersAndTradesOf(siteId: string, offerRows: SiteOfferRow[], entries: TradeEntryRow[]) {
  const labelled = toOfferRows(offerRows, siteId).map((row) => ({
    ...row,
    code: offerStatusCode({
      status: row.status,
      trashed: false,
      entries: entries.filter((entry) => entry.offerId === row.id).map((entry) => entry.status),
    }),
  }));
  return {
    offers: labelled.filter((row) => row.status !== "accepted").reverse(),
    trades: labelled.filter((row) => row.status === "accepted"),
  };
}

/** The Offers and Trades lists of the site, in one round trip. */
export async function offersAndTrades(db: Database, userId: string, siteId: string) {
  const [rows, entries] = await db.batch(offersAndTradesQueries(db, userId, siteId));
  return offersAndTradesOf(siteId, rows, entries);
}

export function connectLotsOf(db: Database, userId: string) {
  return db
    .select({
      id: connectLots.id,
      source: connectLots.source,
      amount: connectLots.amount,
      remaining: connectLots.remaining,
      expiresAt: connectLots.expiresAt,
    })
    .from(connectLots)
    .where(eq(connectLots.userId, userId))
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
