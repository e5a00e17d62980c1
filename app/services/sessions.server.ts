/**
 * Sessions per Lucia's session guide: a random token in the cookie, only its SHA-256 hash in D1,
 * sliding idle expiry of 30 days within an absolute limit of 90 days.
 */
import { createHash } from "node:crypto";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import { and, eq, exists, gt, sql, type Placeholder, type SQL } from "drizzle-orm";
import { sessions, users } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { isProduction } from "~/lib/env";

export const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 30 * DAY_MS;
export const SESSION_ABSOLUTE_MS = 90 * DAY_MS;
/** Extend the idle expiry only when less than this is left, so most requests do not write. */
const SESSION_REFRESH_BELOW_MS = 15 * DAY_MS;

export function generateToken(): string {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return encodeBase32LowerCaseNoPadding(bytes);
}

/**
 * The token's SHA-256 in lowercase hex. The runtime's own hash (workerd's `node:crypto`, native code), not a
 * JavaScript one: every signed-in request hashes its session's token, and the JavaScript hash cost 0.25 ms of CPU.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The insert of a new session, for use inside a batch; the token goes into the cookie. */
export function prepareSession(db: Database, userId: string, activeSiteId: string | null, now: number) {
  const token = generateToken();
  const expiresAt = now + SESSION_IDLE_MS;
  const statement = db.insert(sessions).values({
    id: hashToken(token),
    userId,
    activeSiteId,
    createdAt: now,
    expiresAt,
    absoluteExpiresAt: now + SESSION_ABSOLUTE_MS,
  });
  return { token, expiresAt, statement };
}

/**
 * A new session, written only if `condition` still holds when it is written (one statement): null when it did not.
 * A sign-in checks its password, then writes its session; a reset or a change of that password in between ends every
 * session, and the one written after must not outlive it.
 */
export async function startSessionIf(db: Database, userId: string, condition: SQL, now: number) {
  const token = generateToken();
  const expiresAt = now + SESSION_IDLE_MS;
  const written = await db.run(sql`
    INSERT INTO sessions (id, user_id, active_site_id, created_at, expires_at, absolute_expires_at)
    SELECT ${hashToken(token)}, ${userId}, NULL, ${now}, ${expiresAt}, ${now + SESSION_ABSOLUTE_MS} WHERE ${condition}`);
  return written.meta.changes ? { token, expiresAt } : null;
}

/** How long the session a browser had before `replaceSession` still works: a form of that page sent twice still lands. */
export const REPLACED_SESSION_GRACE_MS = 60_000;

/**
 * Statements that give this browser a new session in place of `session` (same user and active site), the old one
 * ending within a minute, written only if `condition` holds when they run. The new session ends where the old one
 * would have, or at `absoluteExpiresAt` when given (a password just proved starts a new window). After a password
 * change or "sign out everywhere else", a copy of the old cookie (taken from this browser) signs in nowhere: the new
 * token is sent to this browser alone.
 */
export function replaceSession(
  db: Database,
  session: { id: string; absoluteExpiresAt: number },
  now: number,
  { condition, absoluteExpiresAt }: { condition?: SQL; absoluteExpiresAt?: number } = {},
) {
  const token = generateToken();
  const id = hashToken(token);
  const expiresAt = Math.min(now + SESSION_IDLE_MS, absoluteExpiresAt ?? session.absoluteExpiresAt);
  const graceEnd = now + REPLACED_SESSION_GRACE_MS;
  const replacing = and(eq(sessions.id, session.id), condition);
  return {
    id,
    token,
    expiresAt,
    statements: [
      db
        .insert(sessions)
        .select(
          db
            .select({
              id: sql<string>`${id}`.as("id"),
              userId: sessions.userId,
              activeSiteId: sessions.activeSiteId,
              createdAt: sql<number>`${now}`.as("created_at"),
              expiresAt: sql<number>`${expiresAt}`.as("expires_at"),
              absoluteExpiresAt:
                absoluteExpiresAt === undefined ? sessions.absoluteExpiresAt : sql<number>`${absoluteExpiresAt}`.as("absolute_expires_at"),
            })
            .from(sessions)
            .where(replacing),
        )
        .returning({ id: sessions.id }),
      db
        .update(sessions)
        .set({ expiresAt: sql`min(${sessions.expiresAt}, ${graceEnd})`, absoluteExpiresAt: sql`min(${sessions.absoluteExpiresAt}, ${graceEnd})` })
        .where(replacing),
    ] as const,
  };
}

/**
 * Whether the session still exists and has not been replaced (`replaceSession`: a replaced one ends within the grace
 * minute, as does one at the very end of its life).
 */
export function notReplaced(db: Database, sessionId: string, now: number): SQL {
  return exists(
    db
      .select({ one: sql`1` })
      .from(sessions)
      .where(and(eq(sessions.id, sessionId), gt(sessions.absoluteExpiresAt, now + REPLACED_SESSION_GRACE_MS))),
  );
}

export interface ValidSession {
  session: typeof sessions.$inferSelect;
  user: { id: string; email: string; emailVerified: boolean; connects: number; connectsHeld: number };
  /** Set when the idle expiry moved and the cookie must be sent again. */
  refreshedExpiresAt: number | null;
}

/** The stored id of a session token (its SHA-256): what every lookup of the session goes by. */
export function sessionIdOf(token: string): string {
  return hashToken(token);
}

/**
 * The connects a user can spend at `now`: the balance less lots whose year is up but which the five-minute job has not
 * taken yet (a proposal cannot hold them, so no page shows them as available).
 */
function availableConnects(now: number | Placeholder) {
  return sql<number>`${users.connects} - coalesce((SELECT sum(remaining) FROM connect_lots
    WHERE connect_lots.user_id = ${users.id} AND expires_at <= ${now} AND remaining > 0), 0)`
    .mapWith(Number)
    .as("available_connects");
}

/**
 * The session and its user at `now` (a query to run or to batch). Every column has a name of its own, as a batch
 * needs: the user's id is the session's `user_id`.
 */
export function sessionQuery(db: Database, id: string | Placeholder, now: number | Placeholder) {
  return db
    .select({
      session: sessions,
      user: { email: users.email, emailVerified: users.emailVerified, connects: availableConnects(now), connectsHeld: users.connectsHeld },
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.id, id))
    .limit(1);
}

type SessionRow = Awaited<ReturnType<ReturnType<typeof sessionQuery>["all"]>>[number];

/**
 * The session of this token, if still valid at `now`. `slide: false` where no cookie can go back (a socket's
 * upgrade): the idle expiry moves only where the browser's cookie moves with it.
 */
export async function validateSessionToken(db: Database, token: string, now: number, { slide = true } = {}): Promise<ValidSession | null> {
  const id = hashToken(token);
  const [row] = await sessionQuery(db, id, now).all();
  return validateSessionRow(db, row, now, { slide });
}

/** Whether the stored session is still valid at `now`: ends an expired one, slides the idle expiry when due. */
export async function validateSessionRow(
  db: Database,
  row: SessionRow | undefined,
  now: number,
  { slide = true } = {},
): Promise<ValidSession | null> {
  if (!row) return null;
  const { session } = row;
  const id = session.id;
  if (now >= session.expiresAt || now >= session.absoluteExpiresAt) {
    await db.delete(sessions).where(eq(sessions.id, id));
    return null;
  }
  let refreshedExpiresAt: number | null = null;
  if (slide && session.expiresAt - now < SESSION_REFRESH_BELOW_MS) {
    refreshedExpiresAt = Math.min(now + SESSION_IDLE_MS, session.absoluteExpiresAt);
    // Only a session not replaced meanwhile (`replaceSession`, by a request of another tab): else this answer, coming
    // last, would hand the browser its old cookie back, which ends within the minute.
    const slid =
      refreshedExpiresAt > session.expiresAt &&
      (
        await db
          .update(sessions)
          .set({ expiresAt: refreshedExpiresAt })
          .where(and(eq(sessions.id, id), gt(sessions.absoluteExpiresAt, now + REPLACED_SESSION_GRACE_MS)))
          .returning({ id: sessions.id })
      ).length > 0;
    if (slid) session.expiresAt = refreshedExpiresAt;
    else refreshedExpiresAt = null;
  }
  return { session, user: { id: session.userId, ...row.user }, refreshedExpiresAt };
}

export function sessionCookieName(env: Env): string {
  return isProduction(env) ? "__Host-session" : "session";
}

export function sessionCookie(env: Env, token: string, expiresAt: number): string {
  return `${sessionCookieName(env)}=${token}; HttpOnly; Secure; SameSite=Lax; Path=/; Expires=${new Date(expiresAt).toUTCString()}`;
}

export function blankSessionCookie(env: Env): string {
  return `${sessionCookieName(env)}=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0`;
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eqAt = part.indexOf("=");
    if (eqAt === -1) continue;
    if (part.slice(0, eqAt).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eqAt + 1).trim());
    } catch {
      // A malformed escape is no cookie of ours: ignore it as if it were absent.
      return null;
    }
  }
  return null;
}
