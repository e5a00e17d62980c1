/** The owner's dashboard: counters, the offers and trades lists, and suggestions of sites to trade with. */
import { and, eq, ne, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { BatchResponse } from "drizzle-orm/batch";
import { listings, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { countOffers } from "~/domain/offer-status";
import { FIRST_PAGES, offerListsOf, offerListsQueries } from "./offer-lists.server";
import { offerSidesQuery } from "./trades-read.server";
import { linkProblemOf } from "~/domain/offer-view";
import { linkProblemsQuery } from "./delivered-links.server";
import { dayOfWeek, SUGGESTIONS_PER_SECTION, tagOfTheDay, TOO_FEW_TAG_MATCHES } from "~/domain/suggestions";
import { valueOf } from "~/lib/statement-shapes.server";
import { viewerShapes, type Viewer } from "./viewer.server";
import { shownScore } from "./sites.server";

// Read in a batch, where drizzle maps rows by column name: every column needs a name of its own (sites.id and
// listings.id would collide and shift the row).
const suggestionColumns = {
  siteId: sql<string>`${sites.id}`.as("site_id"),
  url: sites.url,
  description: sites.description,
  category: sites.category,
  icon: sites.icon,
  score: shownScore.as("score"),
  listingId: listings.id,
  connects: listings.connects,
};

/**
 * How many of a tag's sites after the random point are looked at: bounds the work when few of them can be traded
 * with (unverified, unlisted or the viewer's own), and is plenty to find five tradable sites among them.
 */
const TAG_CANDIDATES = 200;

/**
 * The day's tag of the site (`tagOfTheDay`: its stored tags in turn, by the viewer's weekday) in SQL, NULL when it has
 * none. Worked out in SQL, the suggestions need not wait for the site to be read.
 */
function tagOfTheDaySql(siteId: string | SQL, weekday: number | Placeholder) {
  // D1 binds a number as a REAL, which would make the path '$[1.0]'.
  const path = sql`'$[' || (CAST(${weekday} AS INTEGER) % json_array_length(${sites.tags})) || ']'`;
  return sql`(SELECT json_extract(${sites.tags}, ${path}) FROM ${sites} WHERE ${sites.id} = ${siteId})`;
}

/**
 * Tradable sites from a random point of the search index onwards, wrapping round to the start: one statement, a
 * UNION ALL of the stretch after the point and the stretch before it, where the outer LIMIT stops before the second
 * stretch is read when the first has enough. `ORDER BY random()` read every listed site (half a second at 100,000
 * sites). Neighbours in the index are sites listed around the same time. With a tag, the tag's rows of `site_tags`
 * (migrations/0021, docs/decisions/0035-tags-index-for-suggestions.md; in the same order) are walked the same way.
 */
function randomSitesQuery(db: Database, userId: string | SQL, tag: SQL | null, count: number, fraction: number | Placeholder) {
  const start = sql`(SELECT CAST(${fraction} * max(${sites.searchRowid}) AS INTEGER) FROM ${sites})`;
  const tradable = and(eq(sites.verified, true), ne(sites.userId, userId));
  const stretch = (after: boolean) => {
    const side = after ? sql`>=` : sql`<`;
    // `+` keeps SQLite from walking every active listing (its index on `active`): the walk starts in the index.
    const listed = and(eq(listings.siteId, sites.id), sql`+${listings.active} = 1`);
    const name = after ? "after_point" : "before_point";
    if (tag) {
      // The tag's rows in order, joined to their sites one by one until `count` are tradable. (As `search_rowid IN
      // (…)`, SQLite read all TAG_CANDIDATES sites and sorted them: 0.5 ms instead of 0.1 ms.) A site without tags
      // has no tag of the day (NULL), which no row has.
      const candidates = sql`(SELECT search_rowid FROM site_tags WHERE tag = ${tag} AND search_rowid ${side} ${start}
        ORDER BY search_rowid LIMIT ${TAG_CANDIDATES}) AS candidates`;
      return db
        .select(suggestionColumns)
        .from(candidates)
        .innerJoin(sites, sql`${sites.searchRowid} = candidates.search_rowid`)
        .innerJoin(listings, listed)
        .where(tradable)
        .orderBy(sql`candidates.search_rowid`)
        .limit(count)
        .as(name);
    }
    return db
      .select(suggestionColumns)
      .from(sites)
      .innerJoin(listings, listed)
      .where(and(tradable, sql`${sites.searchRowid} ${side} ${start}`))
      .orderBy(sites.searchRowid)
      .limit(count)
      .as(name);
  };
  return db
    .select()
    .from(stretch(true))
    .unionAll(db.select().from(stretch(false)))
    .limit(count);
}

type SuggestionRow = Awaited<ReturnType<typeof randomSitesQuery>>[number];

/**
 * 'Try these sites about {tag}' with the day's tag, or 'Try these sites' when it matches too few; and 'Try something
 * new'.
 */
function suggestionsOf(tag: string | null, tagged: SuggestionRow[], any: SuggestionRow[]) {
  const enough = tag !== null && tagged.length > TOO_FEW_TAG_MATCHES;
  return {
    tag: enough ? tag : null,
    // The last five: other sites than 'something new' when there are ten, some of the same in a small market.
    matched: enough ? tagged : any.slice(Math.max(0, any.length - SUGGESTIONS_PER_SECTION)),
    somethingNew: any.slice(0, SUGGESTIONS_PER_SECTION),
  };
}

/**
 * Everything the dashboard reads, as one batch (`dashboardOf` reads its rows): the counters (over every offer of the
 * site), the first page of the offers and trades lists (as the Offers page shows it), delivered links with a problem,
 * and the suggestions: from a random point, with the day's tag (none without one) and without. Each is the viewer's
 * and their active site's alone, so the batch can be read in the session's round trip.
 */
export function dashboardQueries(db: Database, viewer: ViewerIds, now: number, timeZone: string, random = Math.random) {
  return dashboardStatementsFor(db, viewer, dashboardValues(now, timeZone, random));
}

/** The user and the active site, as ids or as SQL. */
type ViewerIds = { userId: string | SQL; siteId: string | SQL };

type DashboardValues<V> = { now: V; weekday: V; taggedFrom: V; anyFrom: V };

/** The request's values of the dashboard's statements: the time, the viewer's weekday, the suggestions' random points. */
function dashboardValues(now: number, timeZone: string, random: () => number): DashboardValues<number> {
  return { now, weekday: dayOfWeek(now, timeZone), taggedFrom: random(), anyFrom: random() };
}

function dashboardStatementsFor(db: Database, viewer: ViewerIds, values: DashboardValues<number | Placeholder>) {
  return [
    ...offerListsQueries(db, viewer.userId, viewer.siteId, FIRST_PAGES),
    offerSidesQuery(db, viewer.siteId),
    linkProblemsQuery(db, viewer.siteId, values.now),
    randomSitesQuery(db, viewer.userId, tagOfTheDaySql(viewer.siteId, values.weekday), SUGGESTIONS_PER_SECTION, values.taggedFrom),
    // Enough for both sections, in case the tag matches too few.
    randomSitesQuery(db, viewer.userId, null, SUGGESTIONS_PER_SECTION * 2, values.anyFrom),
  ] as const;
}

/** `dashboardQueries` built once, for `requireAuthWith`'s viewers. */
const dashboardShape = viewerShapes((db, viewer) =>
  dashboardStatementsFor(db, viewer, {
    now: valueOf("now"),
    weekday: valueOf("weekday"),
    taggedFrom: valueOf("taggedFrom"),
    anyFrom: valueOf("anyFrom"),
  }),
);

/** `dashboardQueries` for one of `requireAuthWith`'s viewers, with SQL built once. */
export function dashboardStatements(db: Database, viewer: Viewer, now: number, timeZone: string, random = Math.random) {
  return dashboardShape(db, viewer, dashboardValues(now, timeZone, random));
}

type DashboardRows = BatchResponse<ReturnType<typeof dashboardQueries>>;

/** The dashboard of the site from the rows `dashboardQueries` read. */
export function dashboardOf(site: { id: string; tags: string[] }, now: number, timeZone: string, rows: DashboardRows) {
  const [offerRows, tradeRows, sides, linkProblems, tagged, any] = rows;
  const { offers: open, trades } = offerListsOf(site.id, [offerRows, tradeRows]);
  const suggestions = suggestionsOf(tagOfTheDay(site.tags, now, timeZone), tagged, any);
  // Worded here: the page shows the words, and the browser's bundle of the dashboard does not carry them.
  const problems = linkProblems.map(({ status, ...problem }) => ({ ...problem, problem: linkProblemOf(status) }));
  return { counts: countOffers(sides, site.id), trades, offers: open, linkProblems: problems, suggestions };
}

/** The dashboard of the user's site, read in a round trip of its own (with the site's stored tags). */
export async function dashboardFor(db: Database, userId: string, siteId: string, now: number, timeZone: string, random = Math.random) {
  const [[site], ...rows] = await db.batch([
    db.select({ id: sites.id, tags: sites.tags }).from(sites).where(eq(sites.id, siteId)),
    ...dashboardQueries(db, { userId, siteId }, now, timeZone, random),
  ]);
  return dashboardOf(site ?? { id: siteId, tags: [] }, now, timeZone, rows as unknown as DashboardRows);
}
