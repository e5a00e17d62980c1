/** Who a signed-in page's statements are for, before the session has been read (auth.server.ts, `requireAuthWith`). */
import { sql, type Placeholder } from "drizzle-orm";
import type { Database } from "~/lib/db.server";
import { statementShapes, valueOf, type Preparable, type Values } from "~/lib/statement-shapes.server";
import { activeSiteIdSql } from "./sites.server";

/**
 * Who a page's own statements are for. They are statement shapes (decision 32) that find the user from the session's
 * id in SQL, since in the session's round trip the session has not been read yet; after an action the session has
 * been read, and its active site is known too.
 */
export interface Viewer {
  sessionId: string;
  /** The active site's id when the request knows it already; null: the statements find it from the session. */
  siteId: string | null;
}

/**
 * The session's user and remembered site as SQL. A cookie that names no session gives '' (no user's id), not NULL:
 * `user_id <> NULL` matches no row, so a page's statements would walk whole tables for rows that never come, where
 * `user_id <> ''` costs what a real user's page costs (their rows are dropped all the same).
 */
export function sessionKeys(sessionId: string | Placeholder) {
  return {
    userId: sql`coalesce((SELECT user_id FROM sessions WHERE id = ${sessionId}), '')`,
    remembered: sql`(SELECT active_site_id FROM sessions WHERE id = ${sessionId})`,
  };
}

/**
 * The viewer in a statement shape (`viewerShapes` fills it in): the user from the session's id, and the active site
 * given, or else found from the session (so a page's lists are of the site the request has already read, when it has).
 */
export function shapeViewer(db: Database) {
  const { userId, remembered } = sessionKeys(valueOf("session"));
  return { userId, siteId: sql`coalesce(${valueOf("site")}, ${activeSiteIdSql(db, userId, remembered)})` };
}

/**
 * Statement shapes (decision 32) for `requireAuthWith`'s viewers: `build` writes the statements for the viewer as
 * `shapeViewer`'s SQL, and each use fills in the viewer and the statements' own `values`.
 */
export function viewerShapes<T extends readonly Preparable[]>(build: (db: Database, viewer: ReturnType<typeof shapeViewer>) => T) {
  const shapes = statementShapes((db) => build(db, shapeViewer(db)));
  return (db: Database, viewer: Viewer, values: Values = {}): T => shapes(db, { ...values, session: viewer.sessionId, site: viewer.siteId });
}
