/**
 * Search over the market: a free-text term, category tags and authority bands (the rules are in app/domain/search.ts).
 *
 * Candidates come newest-indexed first straight from an index (`finderOf`): a term of three characters or more is a
 * phrase of SQLite FTS5's trigram index (migrations/0002), or with tags of the trigram index of the sites with the
 * first two of them, or the one (migrations/0026); tags without such a term read the sites with two of them from
 * `site_tag_pairs` (migrations/0024; three or more intersect pairs of them), or one tag's sites from `site_tags`
 * (migrations/0021); a one- or two-character term alone reads the index of characters and pairs (migrations/0020).
 * Without any of them (only authority bands) the listings are walked newest first, so the query stops as soon as a
 * page is full. Only tradable listings are kept: verified, active, not the viewer's.
 *
 * The count line counts at most SEARCH_COUNT_CAP matches ('100+ sites available'), in the same statement as the
 * page (or, for a later page with nothing left on it, in one of its own), which reads the fields of its own results
 * only. Sorted by record, results come best record first (`sites.rep_sort`), newest indexed first among equal records
 * (`sites.search_rowid`, so the sites with no record yet come in each index's own order), and pages follow each other
 * by that pair.
 */
import { fillPlaceholders, is, Placeholder, sql, type SQL } from "drizzle-orm";
import { queryOf, type Database } from "~/lib/db.server";
import { AUTHORITY_BANDS } from "~/domain/score";
import { RECORD_KEY, type ReputationCounts } from "~/domain/reputation";
import { foldsAsAscii, ftsPhrase, gramToken, lowerAscii, TAG_IDS, type SearchQuery } from "~/domain/search";
import { BEFORE_ALL, parseCursor, parseRecordCursor } from "~/domain/cursor";
import type { BatchResponse } from "drizzle-orm/batch";
import { valueOf, type Values } from "~/lib/statement-shapes.server";
import { marketCountQuery, marketPageOf, marketPageQuery, MARKET_PAGE_SIZE } from "./market.server";
import { viewerShapes, type Viewer } from "./viewer.server";

/** The market's page size: a search with nothing to search for shows the market's own pages (`isBrowsing` in app/domain/search.ts). */
export const SEARCH_PAGE_SIZE = MARKET_PAGE_SIZE;
export const SEARCH_COUNT_CAP = 100;

/**
 * A number the code chose (a limit, a threshold), written into the statement rather than bound: every bound value is
 * one more for D1 to carry and check (at most 100 a statement), and a later page sorted by record repeats each check
 * in four places.
 */
function number(value: number): SQL {
  if (!Number.isFinite(value)) throw new Error(`Not a number for a statement: ${value}`);
  return sql.raw(String(value));
}

/** A category tag written into the statement: only the specification's tag ids (parseSearchQuery keeps no other). */
function tagId(tag: string): SQL {
  if (!TAG_IDS.has(tag) || !/^[a-z0-9-]+$/.test(tag)) throw new Error(`Not a category tag: ${tag}`);
  return sql.raw(`'${tag}'`);
}

export interface SearchPost {
  id: string;
  connects: number;
  url: string;
  description: string;
  category: string;
  icon: string | null;
  /** The audited score, or the placeholder until the first audit. */
  score: number;
  /** What the listing asks for and provides: the trade terms panel opens from the results with them. */
  contentTypes: string[];
  materials: string[];
  record: ReputationCounts;
}

interface Row extends Omit<SearchPost, "contentTypes" | "materials" | "record">, ReputationCounts {
  contentTypes: string;
  materials: string;
  /**
   * The position for the next page: the site's `search_rowid` (a search of an index), `r{rep_sort}_{search_rowid}`
   * (sorted by record) or `{created_at}_{listing id}` (a walk of the listings).
   */
  position: string;
}

function bandCondition(query: { bands: SearchQuery["bands"] }): SQL | null {
  if (query.bands.length === 0) return null;
  const parts = AUTHORITY_BANDS.filter((band) => query.bands.includes(band.id)).map(
    (band) => sql`(coalesce(s.score, s.placeholder_score) BETWEEN ${number(band.min)} AND ${number(band.max)})`,
  );
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/**
 * A short term on the site's own fields, case folded as SQLite's lower() folds it (ASCII letters): how short terms
 * (which the trigram index cannot hold) are matched, in the fields `site_grams` (migrations/0020) finds their
 * candidates in, the tags as their words (migrations/0031: their JSON's brackets, quotes and commas are no text of the
 * listing's). With instr(), not LIKE: a LIKE pattern bound as a parameter makes SQLite prepare the whole statement a
 * second time once it is bound (for its LIKE optimization), and instr() takes `%` and `_` as characters.
 */
function termCondition(): SQL {
  const lowered = valueOf("lowered");
  return sql`(instr(lower(s.url), ${lowered}) > 0 OR instr(lower(s.description), ${lowered}) > 0
    OR instr(lower(s.category), ${lowered}) > 0
    OR instr(replace(replace(replace(replace(s.tags, '[]', ''), '["', ''), '","', ' '), '"]', ''), ${lowered}) > 0)`;
}

/**
 * A long term on the text the trigram indexes hold (migrations/0002 and 0026: the address, description and category,
 * then the tags as `#tag#`, a space between each): how the walk in record order checks a long term, so that it finds
 * what the index finds, a term across two fields or on a tag included. The tags' JSON array of ids becomes their
 * `#tag#` list by replacing its punctuation. Only for a term that folds as ASCII (`foldsAsAscii`; the plan never
 * walks another), on the text lower-cased, with the only two letters beyond ASCII that the index folds into ASCII
 * letters (the Kelvin sign and the long s) made those. With instr(), not LIKE: D1 refuses a LIKE pattern over 50
 * bytes, a term may have 100 characters, and a bound LIKE pattern makes SQLite prepare the statement again
 * (docs/decisions/0047-walk-checks-terms-exactly.md).
 */
function indexedTextCondition(): SQL {
  return sql`instr(replace(replace(lower(s.url || ' ' || s.description || ' ' || s.category || ' '
    || replace(replace(replace(replace(s.tags, '[]', ''), '["', '#'), '","', '# #'), '"]', '#')), char(8490), 'k'), char(383), 's'),
    ${valueOf("lowered")}) > 0`;
}

const columns = sql`l.id AS id, l.connects AS connects, l.content_types AS contentTypes, l.materials AS materials,
  s.url AS url, s.description AS description, s.category AS category, s.icon AS icon,
  coalesce(s.score, s.placeholder_score) AS score,
  s.rep_completed AS completed, s.rep_settled AS settled, s.rep_answered AS answered, s.rep_answer_ms AS answerMs,
  s.rep_links_30 AS links30, s.rep_live_30 AS live30, s.rep_links_90 AS links90, s.rep_live_90 AS live90`;

/**
 * Where a later page starts: after the last result shown, in the order of the search that made it. Sorted by record,
 * that site's record key and search_rowid; newest first, its row id in the index read, or, walking the listings, its
 * listing's creation and id.
 */
type Position =
  | { kind: "record"; repSort: number; searchRowid: number }
  | { kind: "index"; rowid: number }
  | { kind: "walk"; createdAt: number; id: string };

/**
 * Parses the position of the last result shown, in the form of the search that made it: a cursor (app/domain/cursor.ts)
 * when sorted by record (`r` before it) or walking the listings, the index row id alone for a search of an index.
 */
function parsePosition(value: string | null | undefined, indexed: boolean, byRecord: boolean): Position | null {
  if (!value) return null;
  if (byRecord) {
    const at = parseRecordCursor(value);
    return at ? { kind: "record", repSort: at.repSort, searchRowid: at.searchRowid } : null;
  }
  if (indexed) return /^\d{1,15}$/.test(value) ? { kind: "index", rowid: Number(value) } : null;
  const cursor = parseCursor(value);
  return cursor ? { kind: "walk", createdAt: cursor.at, id: cursor.id } : null;
}

/** What a position's kind makes of a search's shape: for a record cursor, how its key stands to the record keys. */
function positionShapeOf(from: Position | null): SearchShape["position"] {
  if (!from) return null;
  if (from.kind === "record") return { kind: "record", recordKey: Math.min(from.repSort, RECORD_KEY.good) };
  return { kind: from.kind };
}

/** A position's values, by the names of the placeholders they fill (`shapePositionOf`). */
function positionValuesOf(from: Position | null): Values {
  if (!from) return {};
  if (from.kind === "record") return { repSort: from.repSort, searchRowid: from.searchRowid };
  if (from.kind === "index") return { rowid: from.rowid };
  return { createdAt: from.createdAt, cursorId: from.id };
}

/**
 * What a search's statements depend on besides the values bound to them (`searchListings` binds them): searches of
 * one shape share their SQL, built once per isolate (`searchStatementsOf`). A term is only its kind here (none, one
 * or two characters, or more) and whether the walk in record order can check it (`foldsAsAscii`); a later page's
 * position only its kind, and for a record cursor how its key stands to the record keys (which parts of the order it
 * has passed). The tags, bands and the record plan's numbers are written into the SQL.
 */
interface SearchShape {
  term: "" | "short" | "long";
  walkable: boolean;
  tags: string[];
  bands: SearchQuery["bands"];
  sort: SearchQuery["sort"];
  position: null | { kind: "index" } | { kind: "walk" } | { kind: "record"; recordKey: number };
  walkAbove: number;
  walkSites: number;
  pageWindow: number;
}

/** A later page's position in a shape's statements: each value a placeholder (`searchListings` fills them in). */
type ShapePosition =
  | { kind: "record"; repSort: Placeholder; searchRowid: Placeholder; recordKey: number }
  | { kind: "index"; rowid: Placeholder }
  | { kind: "walk"; createdAt: Placeholder; id: Placeholder }
  | null;

function shapePositionOf(position: SearchShape["position"]): ShapePosition {
  if (position === null) return null;
  if (position.kind === "index") return { kind: "index", rowid: valueOf("rowid") };
  if (position.kind === "walk") return { kind: "walk", createdAt: valueOf("createdAt"), id: valueOf("cursorId") };
  return { kind: "record", repSort: valueOf("repSort"), searchRowid: valueOf("searchRowid"), recordKey: position.recordKey };
}

/**
 * The term as the walk in record order checks it on each site's row: a short term on the site's fields, a long one on
 * the text the index holds. A long term the walk cannot check as the index matches it (not `walkable`) is never walked:
 * its condition here is false, and the plan reads the index.
 */
function termOnRowOf({ term, walkable }: SearchShape): SQL[] {
  if (term === "") return [];
  if (term === "short") return [termCondition()];
  return [walkable ? indexedTextCondition() : sql`0`];
}

/** The site with the index row id `rowid` (`sites.search_rowid`) has the tag (the walk in record order checks each site so). */
function tagCondition(rowid: SQL, tag: string): SQL {
  return sql`EXISTS (SELECT 1 FROM site_tags WHERE site_tags.tag = ${tagId(tag)} AND site_tags.search_rowid = ${rowid})`;
}

/**
 * The first two of the chosen tags as `site_tag_pairs` (migrations/0024) keys them, the tag ids in order with a space
 * between, and which tags those are; null for fewer than two tags.
 */
function tagPairOf(tags: string[]): { pair: SQL; tags: string[] } | null {
  if (tags.length < 2) return null;
  const pair = tags.slice(0, 2).sort();
  for (const tag of pair) tagId(tag);
  return { pair: sql.raw(`'${pair.join(" ")}'`), tags: pair };
}

/**
 * The table of the sites with the first two of the chosen tags (`site_tag_pairs`) or with the one (`site_tags`): its
 * name, its index in record order (both hold each site's record key and id, migrations/0027), the column of its key,
 * the key, and the tags it stands for; null without tags.
 */
function tagTableOf(tags: string[]): { table: SQL; recordIndex: SQL; column: SQL; key: SQL; tags: string[] } | null {
  const paired = tagPairOf(tags);
  if (paired) {
    return {
      table: sql.raw("site_tag_pairs"),
      recordIndex: sql.raw("site_tag_pairs_record_idx"),
      column: sql.raw("pair"),
      key: paired.pair,
      tags: paired.tags,
    };
  }
  const [tag] = tags;
  return tag
    ? { table: sql.raw("site_tags"), recordIndex: sql.raw("site_tags_record_idx"), column: sql.raw("tag"), key: tagId(tag), tags: [tag] }
    : null;
}

/**
 * Where a search of an index finds its candidates, newest indexed first: `rowid` is each candidate's
 * `sites.search_rowid`, `source(before)` the index read as `f` with a join to `site_tags` for each chosen tag it does
 * not read itself, `match(before)` the candidates' own condition on it (with `before`, only the candidates indexed
 * before that search_rowid, written as the index reads it, in one or the other), and `order` newest indexed first in
 * the index's own terms.
 * `windowed`: the index is FTS5 read by descending row id, which it does slowly far from the newest row, so a later
 * page reads a window below its cursor upwards instead (`searchListings`).
 */
interface Finder {
  source: (before?: SQL) => SQL;
  match: (before?: SQL) => SQL;
  rowid: SQL;
  order: SQL;
  windowed: boolean;
}

/** A finder whose index keys its candidates by `rowid` itself (`sites.search_rowid`), read downwards. */
function byRowid(source: SQL, match: SQL, rowid: SQL, windowed: boolean): Finder {
  return {
    source: () => source,
    match: (before) => (before ? sql`${match} AND ${rowid} < ${before}` : match),
    rowid,
    order: sql`${rowid} DESC`,
    windowed,
  };
}

/** The row ids of one group of `site_tag_search` (migrations/0026): the group's id times this, plus the site's place. */
const TAG_GROUP_SPAN = 4_294_967_296;

/**
 * A long term among the sites with the chosen tags: `site_tag_search` (migrations/0026), the range of the first two
 * tags' group (or of the one tag's), read upwards, newest first. A row id there is the group's base plus
 * (TAG_GROUP_SPAN - 1 - the site's search_rowid). A later page's bound stays within the group whatever its cursor (one
 * bound, as FTS5 reads only one lower bound of a row id). The group is joined first (`g`), once per read of the index:
 * its id written as a subquery in each bound was ten subqueries in a statement sorted by record ("marketing" with two
 * tags at a million sites: 3.9 ms of SQLite prepared and run, 3.2 ms joined).
 */
function tagGroupFinder(group: SQL): Finder {
  const base = sql`g.id * ${number(TAG_GROUP_SPAN)}`;
  return {
    source: () => sql`search_tag_groups AS g CROSS JOIN site_tag_search AS f`,
    match: (before) => sql`g.tags = ${group} AND f.site_tag_search MATCH ${valueOf("phrase")}
      AND f.rowid >= ${before ? sql`max(${base}, ${base} + ${number(TAG_GROUP_SPAN)} - ${before})` : base}
      AND f.rowid < ${base} + ${number(TAG_GROUP_SPAN)}`,
    rowid: sql`(${number(TAG_GROUP_SPAN - 1)} - f.rowid % ${number(TAG_GROUP_SPAN)})`,
    order: sql`f.rowid ASC`,
    windowed: false,
  };
}

/** Compound SELECTs D1 allows at most (SQLite's SQLITE_LIMIT_COMPOUND_SELECT there): the pairs intersected at most. */
const MAX_COMPOUND_TERMS = 5;

/**
 * Three tags or more: the sites with all of them, as the intersection of pairs of them in `site_tag_pairs`
 * (migrations/0024), which covers the chosen tags two by two (the first with the last for an odd number), newest
 * first. SQLite merges the pairs' ranges in order (MERGE (INTERSECT), kept by the subquery's ORDER BY and LIMIT) and
 * stops where the page is full: three tags at a million sites took 1.6 to 2.9 ms of SQLite read as one pair with each
 * entry looked up in the third tag's rows (about 1,100 lookups for the count line's hundred), and 0.4 to 0.6 ms so. A
 * later page's bound is in each pair's range. Null for fewer than three tags; beyond the pairs D1's compound allows,
 * the other tags are joined as `finderOf` joins them.
 */
function tagPairsFinder(tags: string[]): { finder: Finder; tags: string[] } | null {
  if (tags.length < 3) return null;
  const covered = tags.slice(0, MAX_COMPOUND_TERMS * 2);
  const pairs = Array.from({ length: Math.ceil(covered.length / 2) }, (_, i) =>
    tagPairOf([covered[2 * i]!, covered[2 * i + 1] ?? covered[0]!]),
  ).filter((pair): pair is NonNullable<typeof pair> => pair !== null);
  return {
    finder: {
      source: (before) =>
        sql`(${sql.join(
          pairs.map(
            ({ pair }) => sql`SELECT search_rowid FROM site_tag_pairs WHERE pair = ${pair}${before ? sql` AND search_rowid < ${before}` : sql``}`,
          ),
          sql` INTERSECT `,
        )} ORDER BY 1 DESC LIMIT -1) AS f`,
      match: () => sql`1`,
      rowid: sql`f.search_rowid`,
      order: sql`f.search_rowid DESC`,
      windowed: false,
    },
    tags: covered,
  };
}

/**
 * The index a search reads, and the tags it reads itself. A term of three characters or more: with tags, the trigram
 * index of the first two tags' sites (or the one tag's, `tagGroupFinder`); without, the whole trigram index. Otherwise
 * three tags or more: pairs of them intersected (`tagPairsFinder`); two tags: their sites in `site_tag_pairs`; one tag:
 * its sites in `site_tags`; and a short term decides on the fields (`termCondition`). Otherwise a short term: the index
 * of characters and pairs. Null without any of them (only bands): the listings are walked.
 */
function indexOf(shape: SearchShape): { finder: Finder; tags: string[] } | null {
  const paired = tagPairOf(shape.tags);
  if (shape.term === "long") {
    if (shape.tags.length === 0) {
      return { finder: byRowid(sql`site_search AS f`, sql`f.site_search MATCH ${valueOf("phrase")}`, sql`f.rowid`, true), tags: [] };
    }
    const [tag] = shape.tags as [string];
    return paired ? { finder: tagGroupFinder(paired.pair), tags: paired.tags } : { finder: tagGroupFinder(tagId(tag)), tags: [tag] };
  }
  const allTags = tagPairsFinder(shape.tags);
  if (allTags) return allTags;
  if (paired) return { finder: byRowid(sql`site_tag_pairs AS f`, sql`f.pair = ${paired.pair}`, sql`f.search_rowid`, false), tags: paired.tags };
  const [tag] = shape.tags;
  if (tag) return { finder: byRowid(sql`site_tags AS f`, sql`f.tag = ${tagId(tag)}`, sql`f.search_rowid`, false), tags: [tag] };
  if (shape.term === "short")
    return { finder: byRowid(sql`site_grams AS f`, sql`f.site_grams MATCH ${valueOf("gram")}`, sql`f.rowid`, true), tags: [] };
  return null;
}

/**
 * `indexOf`'s index, joined to a row of `site_tags` for each chosen tag it does not read itself. The site's own tags
 * decide, so "#gaming#" typed in a description is no tag; and joined before the site is read, a candidate without
 * them costs a lookup in a small index rather than reading its site and listing (two tags without a term at a million
 * sites: 10 ms checked after the site, 2.8 ms before).
 */
function finderOf(shape: SearchShape): Finder | null {
  const index = indexOf(shape);
  if (!index) return null;
  const joins = shape.tags
    .filter((tag) => !index.tags.includes(tag))
    .map((tag, i) => {
      const alias = sql.raw(`t${i}`);
      return sql` CROSS JOIN site_tags AS ${alias} ON ${alias}.tag = ${tagId(tag)} AND ${alias}.search_rowid = ${index.finder.rowid}`;
    });
  return { ...index.finder, source: (before) => sql.join([index.finder.source(before), ...joins]) };
}

/** How a search reads its matches (`searchListings`' `scanOf`). */
interface Scan {
  body: SQL;
  order: SQL;
  /** Each match's position for the next page, from its site and listing (`s`, `l`). */
  position: SQL;
  /** The same order from the site and listing alone, where `order` reads the index. */
  orderOnSite?: SQL;
}

/**
 * Sorting by record walks the good records best first when the walk is expected to be cheaper than reading every
 * match from the index and sorting them: when (estimated matches) x (share of the sites that match) reaches this. The
 * walk reads about (a page and one) / share sites, at 5 to 10 µs each at a million sites (they are read out of
 * order); reading a match from the index, checking and sorting it costs about 5 µs, so the two cost the same where the
 * product is about 25 x 1.5. Measured at a million sites: a term one site in sixty-five has (15,000 matches), 8 ms
 * walked against 79 ms read from the index; two tags that one site in sixty has together, 15 ms against 80 ms.
 */
export const RECORD_WALK_MIN = 40;
/** The sites a walk in record order reads at most before it gives way to the index (about 50 ms at a million sites). */
export const RECORD_WALK_SITES = 5_000;
/** Whether the count line's matches are every match (fewer than it counts at most): an aggregate over `counted`. */
const everyMatchCounted = sql`count(*) < ${number(SEARCH_COUNT_CAP)}`;

/**
 * Sorted by record with an index to read, the plan is chosen inside the statement (no round trip for it) from the
 * count line's matches (`counted`, the first SEARCH_COUNT_CAP newest indexed, with their row ids `r` and record keys
 * `k`). Fewer than that ("few"): they are every match, and the page is theirs, sorted (`searchListings`). Otherwise
 * the sites with no record and the poor records are read from the index in its own order, and the good records need a
 * plan: their span estimates the share of the sites that match (and so how many do): many ("walk"), walk the good
 * records best first, checking each one's fields and tags, until enough are found; the walk reads `walkSites` sites at
 * most, and where it stops short (the estimate was wrong) the index is read after all. The good records are walked
 * too when the window holds them all (`goodSites`, counted up to one more than `walkSites`) and they are no more than
 * the matches estimated: in a market where few sites have a record yet, that walk is short. Else ("from-index"): read
 * every match from the index and sort the good ones. The plans are gated by their LIMITs, which SQLite works out
 * before it starts a scan: a WHERE term on the plan would be checked per row (a common term's every match read: 200
 * ms at a million sites). Tests set `walkAbove` 0 to walk always. A term the walk cannot check as the index matches
 * it (not `walkable`) is never walked.
 */
function recordPlanCte(walkAbove: number, walkable: boolean, span: SQL, goodSites: SQL, walkSites: number): SQL {
  // Estimated matches x share = (share x top) x share, the share being (n - 1) matches over their span of row ids, or
  // over the candidates a walk reads in that span (`span`, with `low` and `high` the span's ends).
  const estimate = sql`n > 1 AND 1.0 * (n - 1) * (n - 1) * top >= ${number(walkAbove)} * (high - low) * ${span}`;
  const allGood = sql`good <= ${number(walkSites)} AND 1.0 * good * (high - low) <= 1.0 * (n - 1) * top`;
  const walk = !walkable ? sql`0` : walkAbove > 0 ? sql`n = ${number(SEARCH_COUNT_CAP)} AND ((${estimate}) OR (${allGood}))` : sql`1`;
  // The good records are counted only where the plan needs them (not for a few matches). The plan names `counted`
  // once: each CTE a statement names is compiled again where it is named, with every CTE it names in turn, and the
  // plan is named five times over (through the walk and its gates). The OFFSET keeps SQLite from merging the inner
  // query into the outer one, which would copy `good` (and its count) into each place the outer one names it.
  return sql`record_plan AS MATERIALIZED (
      SELECT ${walkAbove > 0 ? sql`n < ${number(SEARCH_COUNT_CAP)}` : sql`0`} AS few, ${walk} AS walk, good
      FROM (
        SELECT n, low, high, top, ${walkAbove > 0 ? sql`CASE WHEN n < ${number(SEARCH_COUNT_CAP)} THEN 0 ELSE ${goodSites} END` : goodSites} AS good
        FROM (SELECT count(*) AS n, min(r) AS low, max(r) AS high FROM counted), (SELECT coalesce(max(search_rowid), 0) AS top FROM sites)
        LIMIT 1 OFFSET 0))`;
}

/** The matches a later page of an index search reads at most below its cursor before it reads the index downwards. */
export const PAGE_WINDOW_MATCHES = 1_000;

/** The CTEs naming `name` a search's matches from `from` on, at most `limit`, in the order shown: (site, listing) rowids. */
type MatchesOf = (name: string, from: ShapePosition, limit: number) => SQL;

/** A statement as D1 takes it, its values still placeholders. */
type ShapeQuery = ReturnType<typeof queryOf>;

/** The SQL of a shape's statement, checked to bind nothing but placeholders (a value written in would be shared). */
function shapeQueryOf(statement: SQL): ShapeQuery {
  const query = queryOf(statement);
  const bound = query.params.find((param) => !is(param, Placeholder));
  if (bound !== undefined) throw new Error(`A search statement binds a value, not a placeholder: ${String(bound)}`);
  return query;
}

/** Shapes kept at most: one per kind of search people make (the tags' order is part of a shape). */
const SHAPES_KEPT = 500;
const shapes = new Map<string, { page: ShapeQuery; count: ShapeQuery | null }>();

/**
 * A search shape's statements, built once per isolate: drizzle builds a statement by asking every piece of it what
 * kind of object it is, and a search's has hundreds (about 0.9 ms of the Worker's CPU per search at 8 clients, by its
 * profiler; docs/decisions/0048-search-statements-built-once-per-shape.md).
 */
function searchStatementsOf(shape: SearchShape) {
  const key = JSON.stringify(shape);
  let statements = shapes.get(key);
  if (!statements) {
    if (shapes.size >= SHAPES_KEPT) shapes.clear();
    const built = buildSearchStatements(shape);
    statements = { page: shapeQueryOf(built.page), count: built.count && shapeQueryOf(built.count) };
    shapes.set(key, statements);
  }
  return statements;
}

async function runShape<T>(db: Database, query: ShapeQuery, values: Values): Promise<T[]> {
  const { results } = await db.$client
    .prepare(query.sql)
    .bind(...fillPlaceholders(query.params, values))
    .all<T>();
  return results;
}

export async function searchListings(
  db: Database,
  viewerUserId: string,
  query: SearchQuery,
  after?: string | null,
  /**
   * How sorting by record chooses, and how many matches a later page reads below its cursor (tests set `walkAbove` 0
   * to walk always, a small `walkSites` to stop walks short and a small `pageWindow` to read from the cursor down, and
   * compare the ways on a small market).
   */
  { walkAbove = RECORD_WALK_MIN, walkSites = RECORD_WALK_SITES, pageWindow = PAGE_WINDOW_MATCHES } = {},
) {
  const started = performance.now();
  const length = [...query.term].length;
  const term = length === 0 ? "" : length >= 3 ? "long" : "short";
  const byRecord = query.sort === "record";
  // Whether an index is read (`indexOf`): a term or a tag.
  const from = parsePosition(after, term !== "" || query.tags.length > 0, byRecord);
  const shape: SearchShape = {
    term,
    walkable: term !== "long" || foldsAsAscii(query.term),
    tags: query.tags,
    bands: query.bands,
    sort: query.sort,
    position: positionShapeOf(from),
    walkAbove,
    walkSites,
    pageWindow,
  };
  const values: Values = {
    viewer: viewerUserId,
    phrase: ftsPhrase(query.term),
    gram: ftsPhrase(gramToken(query.term) ?? ""),
    lowered: lowerAscii(query.term),
    ...positionValuesOf(from),
  };
  const statements = searchStatementsOf(shape);
  const rows = await runShape<Row & { matches: number }>(db, statements.page, values);
  // A later page with nothing on it (the results changed since its link was made) still says how many there are.
  const matches = rows[0]?.matches ?? (statements.count ? (await runShape<{ n: number }>(db, statements.count, values))[0]?.n ?? 0 : 0);
  const page = rows.slice(0, SEARCH_PAGE_SIZE);
  return {
    posts: page.map(
      ({
        position: _position,
        matches: _matches,
        contentTypes,
        materials,
        completed,
        settled,
        answered,
        answerMs,
        links30,
        live30,
        links90,
        live90,
        ...post
      }) => ({
        ...post,
        contentTypes: JSON.parse(contentTypes) as string[],
        materials: JSON.parse(materials) as string[],
        record: { completed, settled, answered, answerMs, links30, live30, links90, live90 },
      }),
    ),
    count: matches,
    next: rows.length > SEARCH_PAGE_SIZE ? page.at(-1)?.position ?? null : null,
    durationMs: performance.now() - started,
  };
}

/**
 * The statements of a search of shape `shape`: its page (with the count line's matches) and, for a later page, the
 * count alone (`searchListings`).
 */
function buildSearchStatements(shape: SearchShape): { page: SQL; count: SQL | null } {
  const { walkAbove, walkSites, pageWindow } = shape;
  const viewer = valueOf("viewer");
  const finder = finderOf(shape);
  // The joins are written in the order they run (CROSS JOIN keeps SQLite from reordering them): from the candidates
  // to their sites and listings. SQLite 3.51 (Node's) otherwise starts from the listings and searches the index once
  // per listing: 23 s for a tag with a band at 100,000 sites, where workerd's SQLite took 1 ms.
  // Each candidate is checked in the partial indexes of tradable sites and active listings (migrations/0023), which
  // hold what the check and the order need: only the page's own results are read from the rows.
  /** The index's candidates, each with its entry in the tradable sites' index as `s`. */
  const candidatesOf = (found: Finder, before?: SQL) => sql`FROM ${found.source(before)}
    CROSS JOIN sites AS s INDEXED BY sites_tradable_idx ON s.search_rowid = ${found.rowid}`;
  const fromIndex = (found: Finder, before?: SQL) => sql`${candidatesOf(found, before)}
    CROSS JOIN listings AS l INDEXED BY listings_active_site_idx ON l.site_id = s.id AND l.active = 1`;

  const conditions: SQL[] = [sql`s.verified = 1`, sql`s.user_id <> ${viewer}`];
  if (shape.term === "short") conditions.push(termCondition());
  const bands = bandCondition(shape);
  if (bands) conditions.push(bands);

  const byRecord = shape.sort === "record";
  /** After a record cursor: the rows of `alias` (a site, or a tag table's entry) whose key and search_rowid come later. */
  const recordAfter = (from: ShapePosition, alias: string) =>
    from?.kind === "record" ? [sql`(${sql.raw(alias)}.rep_sort, ${sql.raw(alias)}.search_rowid) < (${from.repSort}, ${from.searchRowid})`] : [];
  /** The index's matches indexed before `before` (a search_rowid) and within `bounds`: what they are read from, and how. */
  const indexBody = (found: Finder, before?: SQL, bounds: SQL[] = []) =>
    sql`${fromIndex(found, before)} WHERE ${sql.join([found.match(before), ...conditions, ...bounds], sql` AND `)}`;
  // A later page's cursor is cast: a number may be bound as a REAL, and FTS5 ignores a rowid bound that is not an
  // integer (a later page deep in a common term's matches read them all from the newest: 110 ms at a million sites).
  const cursorOf = (rowid: Placeholder) => sql`CAST(${rowid} AS INTEGER)`;
  /** The index's matches from `from` on, newest indexed first. */
  const indexScan = (found: Finder, from: ShapePosition): Scan => ({
    body: indexBody(found, from?.kind === "index" ? cursorOf(from.rowid) : undefined),
    order: found.order,
    position: sql`CAST(s.search_rowid AS TEXT)`,
    orderOnSite: sql`s.search_rowid DESC`,
  });
  /** The matches from `from` on in the order shown: what they are read from and how, and each one's position. */
  const scanOf = (from: ShapePosition): Scan => {
    if (byRecord) {
      // No index to read (no term or tag, only bands): the sites in record order, each checked, until the page is full.
      const where = sql.join([sql`l.active = 1`, ...conditions, ...recordAfter(from, "s")], sql` AND `);
      return {
        body: sql`FROM sites AS s INDEXED BY sites_tradable_record_idx CROSS JOIN listings AS l ON l.site_id = s.id WHERE ${where}`,
        order: sql`s.rep_sort DESC, s.search_rowid DESC`,
        position: sql`'r' || s.rep_sort || '_' || s.search_rowid`,
      };
    }
    if (finder) return indexScan(finder, from);
    const where = sql.join(
      [
        sql`l.active = 1`,
        ...conditions,
        ...(from?.kind === "walk" ? [sql`(l.created_at < ${from.createdAt} OR (l.created_at = ${from.createdAt} AND l.id < ${from.id}))`] : []),
      ],
      sql` AND `,
    );
    return {
      body: sql`FROM listings AS l INDEXED BY listings_active_created_idx CROSS JOIN sites AS s ON s.id = l.site_id WHERE ${where}`,
      order: sql`l.created_at DESC, l.id DESC`,
      position: sql`l.created_at || '_' || l.id`,
    };
  };
  const shown = scanOf(null);

  const matchesOf: MatchesOf =
    byRecord && finder
      ? (name, from, limit) => {
          const ref = (suffix: string) => sql.raw(`${name}${suffix}`);
          const tagged = tagTableOf(shape.tags);
          const after = from?.kind === "record" ? from : null;
          // The order has three parts: the good records (key 2 and above) best first, then the sites with no record
          // yet (key 1), then the poor records (key 0), newest indexed first within a key. The last two are the
          // finder's own order with each entry's key checked (`byKey`); only the good records need a plan of their own
          // (`good`). A part the cursor has passed is left out.
          const good = !after || after.recordKey >= RECORD_KEY.good;
          // A site with the key of a good record: the only ones the plans below walk or sort.
          const goodKey = (alias: string) => sql`${sql.raw(alias)}.rep_sort >= ${number(RECORD_KEY.good)}`;
          // With tags: the window is the good records among the sites of the first two, or of the one (`site_tag_pairs`,
          // `site_tags`, migrations/0027), any other tag checked on the entry, then each looked up among the tradable
          // sites (migrations/0023) for its owner (three tags at a million sites: 3.9 ms of SQLite with the third tag
          // checked after the lookup, 3.5 ms before). It reads RECORD_WALK_SITES of the table's entries at most (the
          // limit is on the entries, not on those that pass, so a third tag that few of them have cannot make the walk
          // read the whole pair).
          // Otherwise every verified site with a good record, best first: the window's index holds the owner
          // (migrations/0025), so that check is made on its entries.
          // Either way a site's row is read only where a term (its fields) or a band (its placeholder score, a
          // generated column no index covers) is to be checked.
          /** Any other tag, checked on the table's entry, before the site is looked up. */
          const otherTags = shape.tags.filter((tag) => !tagged?.tags.includes(tag)).map((tag) => tagCondition(sql`p.search_rowid`, tag));
          const tagsAfter = sql.join([goodKey("p"), ...recordAfter(after, "p")].map((bound) => sql` AND ${bound}`));
          const windowWhere = tagged
            ? sql`p.${tagged.column} = ${tagged.key}${tagsAfter}`
            : sql.join([sql`w.verified = 1`, goodKey("w"), ...recordAfter(after, "w")], sql` AND `);
          const windowSource = tagged
            ? sql`${tagged.table} AS p INDEXED BY ${tagged.recordIndex}`
            : sql`sites AS w INDEXED BY sites_tradable_record_idx`;
          const window = tagged
            ? sql`SELECT w.rowid AS r, w.id AS id, w.search_rowid AS search_rowid, w.user_id AS user_id
              FROM (SELECT p.search_rowid FROM ${windowSource} WHERE ${windowWhere}
                ORDER BY p.rep_sort DESC, p.search_rowid DESC LIMIT ${number(walkSites)}) AS p
              CROSS JOIN sites AS w INDEXED BY sites_tradable_idx ON w.search_rowid = p.search_rowid AND w.verified = 1
              ${otherTags.length > 0 ? sql`WHERE ${sql.join(otherTags, sql` AND `)}` : sql``}`
            : sql`SELECT w.rowid AS r, w.id AS id, w.search_rowid AS search_rowid, w.user_id AS user_id
              FROM ${windowSource} WHERE ${windowWhere} ORDER BY w.rep_sort DESC, w.search_rowid DESC LIMIT ${number(walkSites)}`;
          // The good records the window may hold (up to one more than it reads: more than that, and it holds only the
          // best of them).
          const goodSites = sql`(SELECT count(*) FROM (SELECT 1 FROM ${windowSource} WHERE ${windowWhere} LIMIT ${number(walkSites + 1)}))`;
          // The candidates the window's table holds within the counted matches' span of row ids.
          const span = tagged
            ? sql`(SELECT count(*) FROM ${tagged.table} AS p WHERE p.${tagged.column} = ${tagged.key} AND p.search_rowid BETWEEN low AND high)`
            : sql`(high - low)`;
          const onRow = [...termOnRowOf(shape), ...(bands ? [bands] : [])];
          const walkOn = sql.join([sql`w.user_id <> ${viewer}`, ...onRow], sql` AND `);
          const fromIndexSorted = tagged
            ? sql`SELECT s.rowid AS site, l.rowid AS listing FROM (
                  SELECT p.search_rowid FROM ${finder.source()}
                  CROSS JOIN ${tagged.table} AS p ON p.${tagged.column} = ${tagged.key} AND p.search_rowid = ${finder.rowid}
                  WHERE ${finder.match()}${tagsAfter} ORDER BY p.rep_sort DESC, p.search_rowid DESC LIMIT -1) AS m
                CROSS JOIN sites AS s INDEXED BY sites_tradable_idx ON s.search_rowid = m.search_rowid
                CROSS JOIN listings AS l INDEXED BY listings_active_site_idx ON l.site_id = s.id AND l.active = 1
                WHERE ${sql.join(conditions, sql` AND `)}`
            : sql`SELECT m.site, l.rowid AS listing FROM (
                  SELECT s.rowid AS site, s.id AS id ${candidatesOf(finder)}
                  WHERE ${sql.join([finder.match(), ...conditions, goodKey("s"), ...recordAfter(after, "s")], sql` AND `)}
                  ORDER BY s.rep_sort DESC, s.search_rowid DESC LIMIT -1) AS m
                CROSS JOIN listings AS l INDEXED BY listings_active_site_idx ON l.site_id = m.id AND l.active = 1`;
          // The plan's `complete`: 2 for a few matches (their page is sorted), 1 when the good records are found
          // (walked, or none left), 0 when they are read from the index.
          // The walk takes its sites in the order the window gives them (a subquery with a LIMIT keeps its ORDER BY,
          // and CROSS JOIN makes it the outer loop, each join adding at most one row), so its first `limit` matches are
          // the best; an ORDER BY here would check the whole window.
          // It is complete when it fills its limit or its window holds every good record after the cursor; otherwise
          // the index is read instead (`fromIndexSorted`): the matches are sorted, and only then are the best looked
          // up among the active listings until the page is full (the LIMIT keeps SQLite from merging the sorted
          // matches into the join, which would look every listing up: "shop" with one tag at a million sites, 847
          // matches, 6.3 ms of SQLite so and 4.7 ms sorted first). With tags, each match's key and row id come from
          // its entry in the tag's or pair's table (which the matches all have, in a range of that table's key), not
          // from the tradable sites' index, and whether a site is tradable is checked after the sort too ("shop" with
          // one tag: 9.1 to 8.0 ms of SQLite on a machine half as fast, 97 ms p95 with 8 clients instead of 103).
          const plan = good
            ? sql`${recordPlanCte(walkAbove, shape.walkable, span, goodSites, walkSites)},
              ${ref("_walk")} AS MATERIALIZED (
                SELECT w.r AS site, l.rowid AS listing FROM (${window}) AS w
                ${onRow.length > 0 ? sql`CROSS JOIN sites AS s ON s.rowid = w.r` : sql``}
                CROSS JOIN listings AS l INDEXED BY listings_active_site_idx ON l.site_id = w.id AND l.active = 1
                WHERE ${walkOn} LIMIT (SELECT CASE WHEN walk THEN ${number(limit)} ELSE 0 END FROM record_plan)),
              ${ref("_walked")} AS MATERIALIZED (
                SELECT CASE WHEN few THEN 2 WHEN NOT walk THEN 0
                  WHEN good <= ${number(walkSites)} OR (SELECT count(*) FROM ${ref("_walk")}) >= ${number(limit)} THEN 1
                  ELSE 0 END AS complete FROM record_plan)`
            : null;
          // For a few matches (every match counted), the page is theirs, sorted on the key and row id each carries: the
          // good records from the part below that sorts them, the others from `counted` in `byKey`, which reads
          // nothing more of the index then. These gates name `counted` alone, and as few times as they can: every CTE
          // a statement names is compiled again where it is named, so a gate on the plan's CTEs (which name others)
          // cost 0.2 ms of preparing each, and each naming of `counted` about 0.04 ms.
          const sortsFew = walkAbove > 0;
          /** Below the oldest counted match; for a few matches (every match counted), below the first row id: none. */
          const belowCounted = sortsFew
            ? sql`(SELECT CASE WHEN ${everyMatchCounted} THEN 0 ELSE min(r) END FROM counted)`
            : sql`(SELECT min(r) FROM counted)`;
          /**
           * The matches with the record key `key` after the cursor, newest indexed first, as many as the page needs.
           * The counted matches are every match from the newest down to the oldest of them, so those with the key come
           * first from `counted` (no second read of the index), then the index is read below the oldest counted one:
           * the first pages of a search whose matches mostly have no record read the index once.
           */
          const byKey = (key: number) => {
            if (after && after.recordKey < key) return null;
            const cursor = after?.recordKey === key ? cursorOf(after.searchRowid) : null;
            // One term of the page's compound (D1 allows five), two of its own.
            return sql`SELECT * FROM (
              SELECT * FROM (SELECT site, listing FROM counted WHERE k = ${number(key)}${cursor ? sql` AND r < ${cursor}` : sql``}
                ORDER BY r DESC LIMIT ${number(limit)})
              UNION ALL
              SELECT * FROM (SELECT s.rowid AS site, l.rowid AS listing
                ${indexBody(finder, cursor ? sql`min(${cursor}, ${belowCounted})` : belowCounted, [sql`s.rep_sort = ${number(key)}`])}
                ORDER BY ${finder.order} LIMIT ${number(limit)}))`;
          };
          // The good records (walked, or read from the index and sorted), then the sites with no record and the poor
          // records. The LIMIT on the whole stops SQLite before a part the page does not reach (it is not opened).
          const recordAfterCounted = after ? [sql`(k, r) < (${after.repSort}, ${after.searchRowid})`] : [];
          const parts = [
            // The gate compares outside its subquery: written `(SELECT count(*) < …)` it cost 15 to 25% of the
            // searches sorted by record answered under load at a million sites (same results).
            ...(sortsFew && good
              ? [
                  sql`SELECT * FROM (SELECT site, listing FROM counted
                    WHERE ${sql.join(
                      [
                        sql`(SELECT count(*) FROM counted) < ${number(SEARCH_COUNT_CAP)}`,
                        sql`k >= ${number(RECORD_KEY.good)}`,
                        ...recordAfterCounted,
                      ],
                      sql` AND `,
                    )}
                    ORDER BY k DESC, r DESC LIMIT ${number(limit)})`,
                ]
              : []),
            ...(good
              ? [
                  sql`SELECT site, listing FROM ${ref("_walk")} WHERE (SELECT complete = 1 FROM ${ref("_walked")})`,
                  sql`SELECT * FROM (${fromIndexSorted} LIMIT (SELECT CASE WHEN complete = 0 THEN ${number(limit)} ELSE 0 END FROM ${ref(
                    "_walked",
                  )}))`,
                ]
              : []),
            byKey(RECORD_KEY.none),
            byKey(RECORD_KEY.poor),
          ].filter((part): part is SQL => part !== null);
          return sql`${plan ? sql`${plan}, ` : sql``}${ref("")} AS MATERIALIZED (${sql.join(parts, sql` UNION ALL `)} LIMIT ${number(limit)})`;
        }
      : finder
      ? (name, from, limit) => {
          if (from?.kind !== "index" || !finder.windowed) {
            const scan = indexScan(finder, from);
            return sql`${sql.raw(name)} AS MATERIALIZED (
                SELECT s.rowid AS site, l.rowid AS listing ${scan.body} ORDER BY ${scan.order} LIMIT ${number(limit)})`;
          }
          // A later page: its matches are read upwards from the bottom of a window below the cursor, as wide as the
          // counted matches' span (so expected to hold about as many), and the page is the window's top. It is
          // complete when the window held enough matches (or reaches the index's start) and not more than it reads;
          // otherwise the index is read downwards from the cursor instead, which FTS5 does slowly far from the
          // newest row (it steps back through its doclist index: a page halfway down a common term's matches took 1.9
          // to 3.1 ms of SQLite that way at a million sites, and 0.7 to 0.8 ms so). `counted` holds the first matches'
          // row ids (`r`).
          const ref = (suffix: string) => sql.raw(`${name}${suffix}`);
          const at = cursorOf(from.rowid);
          return sql`${ref("_window")} AS MATERIALIZED (
                SELECT CASE WHEN ${everyMatchCounted} THEN 0 ELSE max(0, ${at} - (max(r) - min(r)) - 1) END AS low
                FROM counted),
              ${ref("_near")} AS MATERIALIZED (
                SELECT s.rowid AS site, l.rowid AS listing, ${finder.rowid} AS r
                ${indexBody(finder, at, [sql`${finder.rowid} >= (SELECT low FROM ${ref("_window")})`])}
                ORDER BY ${finder.rowid} ASC LIMIT ${number(pageWindow)}),
              ${ref("_read")} AS MATERIALIZED (
                SELECT count(*) < ${number(pageWindow)} AND (count(*) >= ${number(limit)} OR (SELECT low FROM ${ref("_window")}) = 0) AS complete
                FROM ${ref("_near")}),
              ${ref("")} AS MATERIALIZED (
                SELECT * FROM (SELECT site, listing FROM ${ref("_near")} WHERE (SELECT complete FROM ${ref("_read")})
                  ORDER BY r DESC LIMIT ${number(limit)})
                UNION ALL
                SELECT * FROM (SELECT s.rowid AS site, l.rowid AS listing ${indexBody(finder, at)}
                  ORDER BY ${finder.order} LIMIT (SELECT CASE WHEN complete THEN 0 ELSE ${number(limit)} END FROM ${ref("_read")})))`;
        }
      : (name, from, limit) => {
          const scan = scanOf(from);
          return sql`${sql.raw(name)} AS MATERIALIZED (
            SELECT s.rowid AS site, l.rowid AS listing ${scan.body} ORDER BY ${scan.order} LIMIT ${number(limit)})`;
        };
  const ctes = (...named: SQL[]) => sql`WITH ${sql.join(named, sql`, `)}`;
  /** The page of `matches` (their site and listing rowids): their fields and positions, with the count of `counted`. */
  const pageOf = (matches: SQL) => sql`
    SELECT ${columns}, ${shown.position} AS position, (SELECT count(*) FROM counted) AS matches
    FROM ${matches} AS m CROSS JOIN sites AS s ON s.rowid = m.site CROSS JOIN listings AS l ON l.rowid = m.listing
    ORDER BY ${shown.orderOnSite ?? shown.order} LIMIT ${number(SEARCH_PAGE_SIZE + 1)}`;

  // The count line counts the matches up to the cap ("100+" beyond it), remembering only where each site and listing
  // is, and the page reads the fields of its own results and one more (whether a next page exists): one statement,
  // one round trip. The first page is the first of the counted matches; a later page starts elsewhere. Sorted by
  // record with an index, the count reads the index newest first, as the count does not depend on the order: a walk
  // in record order finds the page's matches, not four times as many (a term one site in seven has, at a million
  // sites: 1.4 to 2 ms of SQLite, 1.1 to 1.2 ms so).
  const counted = finder
    ? sql`counted AS MATERIALIZED (
        SELECT s.rowid AS site, l.rowid AS listing, ${finder.rowid} AS r, s.rep_sort AS k ${indexBody(finder)}
        ORDER BY ${finder.order} LIMIT ${number(SEARCH_COUNT_CAP)})`
    : matchesOf("counted", null, SEARCH_COUNT_CAP);
  // The first page newest first is the newest of the counted matches, taken from them before their sites and listings
  // are read: a page's rows, not a hundred (their rows are read out of order; a term with two tags at a million sites:
  // 3 ms of workerd's SQLite reading them all, 1 ms so). `r` is the site's search_rowid, which orders the page.
  const firstPage = finder ? sql`(SELECT site, listing FROM counted ORDER BY r DESC LIMIT ${number(SEARCH_PAGE_SIZE + 1)})` : sql`counted`;
  const from = shapePositionOf(shape.position);
  return from || (byRecord && finder)
    ? {
        page: sql`${ctes(counted, matchesOf("paged", from, SEARCH_PAGE_SIZE + 1))} ${pageOf(sql`paged`)}`,
        count: from ? sql`${ctes(counted)} SELECT count(*) AS n FROM counted` : null,
      }
    : { page: sql`${ctes(counted)} ${pageOf(firstPage)}`, count: null };
}

/** The market's page from the position `after` and its count up to SEARCH_COUNT_CAP, built once for `requireAuthWith`. */
const browseShape = viewerShapes(
  (db, viewer) =>
    [marketPageQuery(db, viewer.userId, { at: valueOf("at"), id: valueOf("id") }), marketCountQuery(db, viewer.userId, SEARCH_COUNT_CAP)] as const,
);

/**
 * The statements of a search with nothing to search for (`isBrowsing`, app/domain/search.ts) for one of
 * `requireAuthWith`'s viewers: a page from `after` (a market cursor) and the count.
 */
export function browseStatements(db: Database, viewer: Viewer, after: string | null) {
  const from = parseCursor(after) ?? BEFORE_ALL.descending;
  return browseShape(db, viewer, { at: from.at, id: from.id });
}

/** The results `browseStatements` read, as `searchListings` gives them. */
export function browseResultOf([rows, [counted]]: BatchResponse<ReturnType<typeof browseStatements>>) {
  const { posts, next } = marketPageOf(rows);
  return {
    posts: posts.map(
      ({ id, connects, url, description, category, icon, score, contentTypes, materials, record }): SearchPost => ({
        id,
        connects,
        url,
        description,
        category,
        icon,
        score,
        contentTypes,
        materials,
        record,
      }),
    ),
    count: counted?.count ?? 0,
    next,
  };
}

/** Pages (about 4 KB each) one merge step of a search index writes at most. */
const MERGE_STEP_PAGES = 1000;

/**
 * Merges each search index into one segment (FTS5's 'merge' command), for the weekly run of the daily job. Every
 * change of a site writes its index rows as a segment of their own, and FTS5 merges segments only within a level as
 * they come, so a phrase reads each of its trigrams from many segments: at a million sites, a term every site matches
 * with two tags took 6.9 ms from the index as seeded and 2.1 ms once merged
 * (docs/decisions/0038-search-indexes-merged-weekly.md). The merge rewrites the whole index, in steps of
 * MERGE_STEP_PAGES so that no write holds the database long: the first step gathers every segment into one merge (a
 * negative size), the next ones carry it on, and a segment written meanwhile does not start it again. The steps are
 * counted from the index's size, not from what each step reports, so the job does not depend on how D1 counts the
 * changes of a virtual table. Answers the steps taken, per index.
 */
export async function mergeSearchIndexes(db: Database) {
  const steps: Record<string, number> = {};
  for (const index of ["site_search", "site_grams", "site_tag_search"]) {
    const [size] = await db.all<{ pages: number }>(sql`SELECT count(*) AS pages FROM ${sql.raw(`${index}_data`)}`);
    // Merged pages are about as many as the pages merged; a quarter more and two steps spare, and a step with
    // nothing left to merge writes nothing.
    steps[index] = Math.ceil(((size?.pages ?? 0) * 1.25) / MERGE_STEP_PAGES) + 2;
    for (let step = 0; step < steps[index]; step += 1) {
      const pages = step === 0 ? -MERGE_STEP_PAGES : MERGE_STEP_PAGES;
      await db.run(sql`INSERT INTO ${sql.raw(index)} (${sql.raw(index)}, rank) VALUES ('merge', ${pages})`);
    }
  }
  return steps;
}
