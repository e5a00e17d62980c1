/** Who a signed-in page's statements are for, before the session has been read (auth.server.ts, `requireAuthWith`). */
import { sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Database } from "~/lib/db.server";
import { activeSiteIdSql } from "./sites.server";

/**
 * Who a page's own statements are for, when they are read in the session's round trip: SQL that finds the user and
 * their active site from the session (the session has not been read yet), or their ids once it has.
 */
export interface Viewer {
  userId: string | SQL;
  /** The active site's id; NULL (no rows) for a user without a site. */
  siteId: string | SQL;
  /** The session's id, for statements built once (`statementShapes`) that find the user and site from it themselves. */
  sessionId: string;
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

/** Who the statements read in the session's round trip are for: the user and the active site of this session. */
export function sessionViewer(db: Database, sessionId: string): Viewer {
  return { ...sqlViewer(db, sessionKeys(sessionId)), sessionId };
}

/** The user and the active site of a session as SQL (the session's id a value, or a statement shape's `valueOf`). */
export function sqlViewer(db: Database, { userId, remembered }: ReturnType<typeof sessionKeys>) {
  return { userId, siteId: activeSiteIdSql(db, userId, remembered) };
}
