/** The market: listings of verified sites other than the viewer's own, newest first or best record first. */
import { and, desc, eq, inArray, ne, sql, type Placeholder, type SQL } from "drizzle-orm";
import { listings, sites } from "#drizzle/schema";
import { olderThan, type Database } from "~/lib/db.server";
import { valueOf } from "~/lib/statement-shapes.server";
import { BEFORE_ALL, formatRecordCursor, keysetPage, type Cursor, type RecordPosition } from "~/domain/cursor";
import { recordColumns } from "./reputation.server";
import { shownScore } from "./sites.server";
import { viewerShapes, type Viewer } from "./viewer.server";

export const MARKET_PAGE_SIZE = 24;

// Read in a batch, where drizzle maps rows by column name: every column needs a name of its own.
const postColumns = {
  id: listings.id,
  connects: listings.connects,
  contentTypes: listings.contentTypes,
  materials: listings.materials,
  createdAt: listings.createdAt,
  siteId: sql<string>`${sites.id}`.as("site_id"),
  url: sites.url,
  host: sites.host,
  description: sites.description,
  category: sites.category,
  icon: sites.icon,
  score: shownScore,
  tags: sites.tags,
  record: recordColumns,
};

/** "newest" (listing time) or "record" (the site's record, best first; poor records last). */
export type MarketSort = "newest" | "record";

export function parseMarketSort(value: string | null): MarketSort {
  return value === "record" ? "record" : "newest";
}

const tradable = (viewerUserId: string | SQL) => and(eq(listings.active, true), eq(sites.verified, true), ne(listings.userId, viewerUserId));

/**
 * One page of the market, newest first (a query to batch, see `marketPageOf`). Pages follow each other by the last
 * post shown (keyset): `createdAt_id` of the listing.
 */
export function marketPageQuery(db: Database, viewerUserId: string | SQL, cursor: { at: number | Placeholder; id: string | Placeholder } | null) {
  return db
    .select(postColumns)
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(and(tradable(viewerUserId), cursor ? olderThan(listings.createdAt, listings.id, cursor) : undefined))
    .orderBy(desc(listings.createdAt), desc(listings.id))
    .limit(MARKET_PAGE_SIZE + 1);
}

type PostRow = Awaited<ReturnType<typeof marketPageQuery>>[number];

/** `marketPageQuery` built once, for the session's round trip; the first page starts after a position before every listing. */
const marketPageShape = viewerShapes((db, viewer) => [marketPageQuery(db, viewer.userId, { at: valueOf("at"), id: valueOf("id") })] as const);

/** `marketPageQuery` for one of `requireAuthWith`'s viewers, with SQL built once. */
export function marketPageStatements(db: Database, viewer: Viewer, cursor: Cursor | null) {
  const after = cursor ?? BEFORE_ALL.descending;
  return marketPageShape(db, viewer, { at: after.at, id: after.id });
}

/** How many posts the market has for the viewer, counted up to `cap` (a query to batch): the search's count line. */
export function marketCountQuery(db: Database, viewerUserId: string | SQL, cap: number) {
  const capped = db
    .select({ one: sql`1`.as("one") })
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(tradable(viewerUserId))
    .limit(cap)
    .as("capped");
  return db.select({ count: sql<number>`count(*)`.mapWith(Number) }).from(capped);
}

/** The posts `marketPageQuery` read, and the position of the next page (null on the last). */
export function marketPageOf(rows: PostRow[]) {
  const { shown, next } = keysetPage(rows, MARKET_PAGE_SIZE, (row) => ({ at: row.createdAt, id: row.id }));
  return { posts: shown, next };
}

/**
 * One page of the market, best record first and newest first among equal records; pages follow each other by
 * `r{repSort}_{searchRowid}` of the last post's site (one listing per site, `formatRecordCursor`). The page's sites are
 * found walking the verified sites' record index (SQLite would otherwise sort every listing), then read with their
 * listings: two round trips that wait for the session.
 */
export async function listMarketByRecord(db: Database, viewerUserId: string, after: RecordPosition | null) {
  const order = await db.all<{ id: string; repSort: number; searchRowid: number }>(sql`
    SELECT s.id AS id, s.rep_sort AS repSort, s.search_rowid AS searchRowid
    FROM sites AS s INDEXED BY sites_tradable_record_idx
    JOIN listings AS l ON l.site_id = s.id
    WHERE l.active = 1 AND s.verified = 1 AND l.user_id <> ${viewerUserId}
      ${after ? sql`AND (s.rep_sort, s.search_rowid) < (${after.repSort}, ${after.searchRowid})` : sql``}
    ORDER BY s.rep_sort DESC, s.search_rowid DESC LIMIT ${MARKET_PAGE_SIZE + 1}`);
  const shown = order.slice(0, MARKET_PAGE_SIZE);
  // By the listings' site ids alone (the walk above has checked the rest): SQLite then looks each one up, where a
  // condition on `active` would make it scan every active listing.
  const rows = shown.length
    ? await db
        .select(postColumns)
        .from(listings)
        .innerJoin(sites, eq(sites.id, listings.siteId))
        .where(
          inArray(
            listings.siteId,
            shown.map((site) => site.id),
          ),
        )
        .all()
    : [];
  const posts = shown.flatMap((site) => rows.filter((row) => row.siteId === site.id));
  const last = shown.at(-1);
  return { posts, next: order.length > MARKET_PAGE_SIZE && last ? formatRecordCursor(last) : null };
}

/** One post for the trade terms panel; only a post the viewer could trade with (a query to batch). */
export function marketPostQuery(db: Database, viewerUserId: string | SQL, listingId: string | Placeholder) {
  return db
    .select(postColumns)
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(and(eq(listings.id, listingId), tradable(viewerUserId)))
    .limit(1);
}

/** `marketPostQuery` built once, for the session's round trip. */
const marketPostShape = viewerShapes((db, viewer) => [marketPostQuery(db, viewer.userId, valueOf("listing"))] as const);

/** `marketPostQuery` for one of `requireAuthWith`'s viewers, with SQL built once. */
export function marketPostStatements(db: Database, viewer: Viewer, listingId: string) {
  return marketPostShape(db, viewer, { listing: listingId });
}

export type MarketPost = PostRow;
