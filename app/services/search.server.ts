/**
 * Search over the market (spec 5) with SQLite FTS5's trigram index (migrations/0002): the term and the chosen
 * tags become one MATCH expression, results come newest-indexed first straight from the index, and only
 * tradable listings (verified, active, not the viewer's) are kept.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Database } from "~/lib/db.server";
import { AUTHORITY_BANDS } from "~/domain/score";
import { ftsPhrase, tagToken, type SearchQuery } from "~/domain/search";

export const SEARCH_PAGE_SIZE = 24;
/** The count line stops counting here ('{n}+ sites available'). */
export const SEARCH_COUNT_CAP = 1000;

export interface SearchPost {
  id: string;
  connects: number;
  url: string;
  description: string;
  category: string;
  icon: string | null;
  score: number | null;
  tags: string[];
}

/** The trigram index needs three characters; shorter terms are matched with LIKE on the indexed text. */
function termCondition(term: string): { match: string[]; like: SQL | null } {
  if (!term) return { match: [], like: null };
  if ([...term].length >= 3) return { match: [ftsPhrase(term)], like: null };
  const escaped = term.replace(/[\\%_]/g, (c) => `\\${c}`);
  return { match: [], like: sql`f.body LIKE ${`%${escaped}%`} ESCAPE '\\'` };
}

function bandCondition(query: SearchQuery): SQL | null {
  if (query.bands.length === 0) return null;
  const parts = AUTHORITY_BANDS.filter((band) => query.bands.includes(band.id)).map(
    (band) => sql`(s.score BETWEEN ${band.min} AND ${band.max})`,
  );
  return sql`(${sql.join(parts, sql` OR `)})`;
}

export async function searchListings(db: Database, viewerUserId: string, query: SearchQuery, afterRowid?: number) {
  const started = performance.now();
  const term = termCondition(query.term);
  const match = [...term.match, ...query.tags.map((tag) => ftsPhrase(tagToken(tag)))];
  const conditions: SQL[] = [sql`s.verified = 1`, sql`s.user_id <> ${viewerUserId}`];
  if (match.length > 0) conditions.push(sql`f.site_search MATCH ${match.join(" AND ")}`);
  if (term.like) conditions.push(term.like);
  const bands = bandCondition(query);
  if (bands) conditions.push(bands);
  const where = sql.join(conditions, sql` AND `);
  const from = sql`site_search AS f
    JOIN sites AS s ON s.search_rowid = f.rowid
    JOIN listings AS l ON l.site_id = s.id AND l.active = 1`;
  const pageWhere = afterRowid ? sql`${where} AND f.rowid < ${afterRowid}` : where;

  const [rows, counted] = await Promise.all([
    db.all<SearchPost & { rowid: number; tags: string }>(sql`
      SELECT f.rowid AS rowid, l.id AS id, l.connects AS connects, s.url AS url, s.description AS description,
             s.category AS category, s.icon AS icon, s.score AS score, s.tags AS tags
      FROM ${from} WHERE ${pageWhere}
      ORDER BY f.rowid DESC LIMIT ${SEARCH_PAGE_SIZE + 1}`),
    db.all<{ n: number }>(sql`SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT ${SEARCH_COUNT_CAP})`),
  ]);
  const page = rows.slice(0, SEARCH_PAGE_SIZE);
  return {
    posts: page.map(({ rowid: _rowid, tags, ...post }) => ({ ...post, tags: JSON.parse(tags) as string[] })),
    count: counted[0]?.n ?? 0,
    next: rows.length > SEARCH_PAGE_SIZE ? (page.at(-1)?.rowid ?? null) : null,
    durationMs: performance.now() - started,
  };
}
