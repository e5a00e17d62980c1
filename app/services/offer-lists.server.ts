/**
 * The Offers and Trades lists of a site, a page at a time (docs/decisions/0026-offers-paging.md). Offers: not accepted,
 * not trashed by the viewer, oldest first. Trades: accepted, newest first. Pages follow each other by the last row
 * shown (keyset on created_at, then id), so offers that come and go meanwhile neither repeat nor skip a row.
 */
import { and, asc, desc, eq, isNull, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { offerEntries, offers, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { valueOf } from "~/lib/statement-shapes.server";
import { BEFORE_ALL, keysetPage, type Cursor } from "~/domain/cursor";
import { offerStatusCode, type EntryStatus } from "~/domain/offer-rules";
import { viewerShapes, type Viewer } from "./viewer.server";

/** Rows on a page of either list. */
export const OFFER_PAGE_SIZE = 20;

/** Where each list's page starts: after this row, or at the beginning (null). */
export interface OfferListPositions {
  offersAfter: Cursor | null;
  tradesAfter: Cursor | null;
}

export const FIRST_PAGES: OfferListPositions = { offersAfter: null, tradesAfter: null };

/** An offer's two sites, joined under their own names (the lists here, and the other reads of trades). */
export const senderSite = alias(sites, "sender_site");
export const receiverSite = alias(sites, "receiver_site");

/**
 * One page (and one row more, to know whether another follows) of the site's offers that this user has not trashed,
 * accepted ones or the others (a query to batch). Its columns have names of their own: in a batch drizzle maps rows by
 * column name.
 */
function pageQuery(db: Database, userId: string | SQL, siteId: string | SQL, accepted: boolean, after: Position | null) {
  const position = sql`(${offers.createdAt}, ${offers.id})`;
  return db
    .select({
      id: offers.id,
      status: offers.status,
      connects: offers.connects,
      createdAt: offers.createdAt,
      senderSiteId: offers.senderSiteId,
      senderHost: sql<string>`${senderSite.host}`.as("sender_host"),
      receiverHost: sql<string>`${receiverSite.host}`.as("receiver_host"),
      // A trade's label follows both sides' progress.
      senderProgress: sql<EntryStatus | null>`(SELECT status FROM offer_entries WHERE offer_id = ${offers.id} AND role = 'sender')`.as(
        "sender_progress",
      ),
      receiverProgress: sql<EntryStatus | null>`(SELECT status FROM offer_entries WHERE offer_id = ${offers.id} AND role = 'receiver')`.as(
        "receiver_progress",
      ),
    })
    .from(offers)
    .innerJoin(senderSite, eq(senderSite.id, offers.senderSiteId))
    .innerJoin(receiverSite, eq(receiverSite.id, offers.receiverSiteId))
    .leftJoin(offerEntries, and(eq(offerEntries.offerId, offers.id), eq(offerEntries.userId, userId)))
    .where(
      and(
        or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId)),
        // `+`: found by the site's offers, not by walking every accepted offer of the market (the status index).
        accepted ? sql`+${offers.status} = 'accepted'` : sql`+${offers.status} <> 'accepted'`,
        isNull(offerEntries.trashedAt),
        after ? (accepted ? sql`${position} < (${after.at}, ${after.id})` : sql`${position} > (${after.at}, ${after.id})`) : undefined,
      ),
    )
    .orderBy(...(accepted ? [desc(offers.createdAt), desc(offers.id)] : [asc(offers.createdAt), asc(offers.id)]))
    .limit(OFFER_PAGE_SIZE + 1);
}

/** A row's position in a list, or a statement shape's place for one. */
type Position = { at: number | Placeholder; id: string | Placeholder };

/** The two lists' page queries, to run in one batch with others; `offerListsOf` reads their rows. */
export function offerListsQueries(db: Database, userId: string | SQL, siteId: string | SQL, positions: OfferListPositions) {
  return [pageQuery(db, userId, siteId, false, positions.offersAfter), pageQuery(db, userId, siteId, true, positions.tradesAfter)] as const;
}

/** `offerListsQueries` built once, for `requireAuthWith`'s viewers; a first page starts after a position before every row. */
const offerListsShape = viewerShapes(
  (db, viewer) =>
    [
      pageQuery(db, viewer.userId, viewer.siteId, false, { at: valueOf("offersAt"), id: valueOf("offersId") }),
      pageQuery(db, viewer.userId, viewer.siteId, true, { at: valueOf("tradesAt"), id: valueOf("tradesId") }),
    ] as const,
);

/** `offerListsQueries` for one of `requireAuthWith`'s viewers, with SQL built once. */
export function offerListsStatements(db: Database, viewer: Viewer, positions: OfferListPositions) {
  // Offers are oldest first, trades newest first.
  const offersAfter = positions.offersAfter ?? BEFORE_ALL.ascending;
  const tradesAfter = positions.tradesAfter ?? BEFORE_ALL.descending;
  return offerListsShape(db, viewer, {
    offersAt: offersAfter.at,
    offersId: offersAfter.id,
    tradesAt: tradesAfter.at,
    tradesId: tradesAfter.id,
  });
}

type PageRow = Awaited<ReturnType<ReturnType<typeof pageQuery>["all"]>>[number];

/** A page's rows as the lists show them, and the cursor of the next page (null on the last). */
function pageOf(siteId: string, rows: PageRow[]) {
  const { shown, next } = keysetPage(rows, OFFER_PAGE_SIZE, (row) => ({ at: row.createdAt, id: row.id }));
  return {
    rows: shown.map((row) => ({
      id: row.id,
      status: row.status,
      connects: row.connects,
      createdAt: row.createdAt,
      sent: row.senderSiteId === siteId,
      otherHost: row.senderSiteId === siteId ? row.receiverHost : row.senderHost,
      code: offerStatusCode({
        status: row.status,
        trashed: false,
        entries: [row.senderProgress, row.receiverProgress].filter((progress) => progress !== null),
      }),
    })),
    next,
  };
}

export function offerListsOf(siteId: string, [offerRows, tradeRows]: readonly [PageRow[], PageRow[]]) {
  return { offers: pageOf(siteId, offerRows), trades: pageOf(siteId, tradeRows) };
}

export type OfferLists = ReturnType<typeof offerListsOf>;
