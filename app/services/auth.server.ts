/** Who is asking: the session cookie, resolved once per request, and the guards routes use. */
import { redirect } from "@remix-run/cloudflare";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { eq } from "drizzle-orm";
import { sessions } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { statementShapes, valueOf } from "~/lib/statement-shapes.server";
import { safeRedirectPath } from "~/domain/redirects";
import { closeChatSockets } from "./chats.server";
import {
  blankSessionCookie,
  readCookie,
  sessionCookie,
  sessionCookieName,
  sessionIdOf,
  sessionQuery,
  validateSessionRow,
  type ValidSession,
} from "./sessions.server";
import { loadActiveSite, rememberSites } from "./layout.server";
import { ownedSitesQuery } from "./sites.server";
import { sessionKeys, type Viewer } from "./viewer.server";

export interface CurrentAuth {
  session: ValidSession["session"];
  user: ValidSession["user"];
}

type Statements = Readonly<[BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>;

/** Statements a loader asked to read in the session's round trip, and where their rows go. */
export interface SessionRead {
  statements: (viewer: Viewer) => Statements;
  settle: (rows: unknown[]) => void;
  fail: (error: unknown) => void;
}

/** The end of this turn of the event loop: the loaders that run in parallel have all started by then. */
const endOfTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export function getCurrentAuth(request: Request, context: AppContext): Promise<CurrentAuth | null> {
  context.auth ??= context.timing ? context.timing.session(lookUpSession(request, context)) : lookUpSession(request, context);
  return context.auth;
}

/** Every signed-in request's statements: the session and its user, and the user's sites (the active one among them). */
const sessionShell = statementShapes((db) => {
  const session = valueOf("session");
  return [sessionQuery(db, session, valueOf("now")), ownedSitesQuery(db, sessionKeys(session).userId)] as const;
});

async function lookUpSession(request: Request, context: AppContext): Promise<CurrentAuth | null> {
  const token = readCookie(request, sessionCookieName(context.env));
  if (!token) return null;
  // One round trip for the session, the user's sites (the active one among them) and the page's own statements: every
  // signed-in page needs the first two, and a page's statements that wait for the session cost users far from the
  // database a second trip. Like DataLoader, the read waits for the end of this turn, so every loader of the request
  // can join it.
  const reads: SessionRead[] = (context.sessionReads = []);
  await endOfTurn();
  context.sessionReads = undefined;
  const id = sessionIdOf(token);
  const shell = sessionShell(context.db, { session: id, now: context.now() });
  let results: BatchResponse<typeof shell>;
  try {
    const viewer: Viewer = { sessionId: id, siteId: null };
    const asked = reads.map((read) => ({ read, statements: read.statements(viewer) }));
    results = await context.db.batch([...shell, ...asked.flatMap((ask) => ask.statements)] as unknown as typeof shell);
    let at = shell.length;
    for (const { read, statements } of asked) {
      read.settle((results as readonly unknown[]).slice(at, (at += statements.length)));
    }
  } catch (error) {
    for (const read of reads) read.fail(error);
    throw error;
  }
  const [[row], ownedSites] = results;
  const valid = await validateSessionRow(context.db, row, context.now());
  if (valid) rememberSites(context, ownedSites, valid.session.activeSiteId);
  if (!valid) {
    context.responseHeaders.append("Set-Cookie", blankSessionCookie(context.env));
    return null;
  }
  if (valid.refreshedExpiresAt) {
    context.responseHeaders.append("Set-Cookie", sessionCookie(context.env, token, valid.refreshedExpiresAt));
  }
  return { session: valid.session, user: valid.user };
}

/**
 * `requireAuth`, and the page's own statements read in the same round trip as the session when the session has not
 * been read yet (a GET's loaders); otherwise (after an action, say) in a round trip of their own. Read-only statements
 * only: they run before the session is known to be valid, and their rows are dropped when it is not.
 */
export async function requireAuthWith<T extends Statements>(
  request: Request,
  context: AppContext,
  statements: (viewer: Viewer) => T,
): Promise<{ auth: CurrentAuth; rows: BatchResponse<T> }> {
  const authenticated = requireAuth(request, context);
  const reads = context.sessionReads;
  if (reads) {
    const rows = new Promise<unknown[]>((settle, fail) => reads.push({ statements, settle, fail }));
    const [auth, read] = await Promise.all([authenticated, rows]);
    return { auth, rows: read as BatchResponse<T> };
  }
  const auth = await authenticated;
  const site = await loadActiveSite(context, auth);
  const rows = await context.db.batch(statements({ sessionId: auth.session.id, siteId: site?.id ?? null }));
  return { auth, rows };
}

/** Signed-out visitors of protected pages go to /login, and come back after signing in. */
export async function requireAuth(request: Request, context: AppContext): Promise<CurrentAuth> {
  const auth = await getCurrentAuth(request, context);
  if (!auth) {
    const url = new URL(request.url);
    const back = safeRedirectPath(`${url.pathname}${url.search}`);
    throw redirect(back && back !== "/market" ? `/login?redirectTo=${encodeURIComponent(back)}` : "/login");
  }
  return auth;
}

/** Signed-in users who open /login or /signup go to /market. */
export async function requireSignedOut(request: Request, context: AppContext): Promise<void> {
  if (await getCurrentAuth(request, context)) throw redirect("/market");
}

/**
 * The cookie of a new session (a sign-in, a sign-up). The session this browser had until now, if any, ends: a sign-in
 * from a signed-in tab (as someone else, say) would otherwise leave it valid on the server with no cookie naming it.
 */
export async function newSessionCookie(request: Request, context: AppContext, token: string, expiresAt: number): Promise<string> {
  await endBrowserSession(request, context);
  return sessionCookie(context.env, token, expiresAt);
}

/** Ends the session this browser's cookie names, if any, and closes its chat sockets. */
async function endBrowserSession(request: Request, context: AppContext): Promise<void> {
  const token = readCookie(request, sessionCookieName(context.env));
  if (!token) return;
  const ended = await context.db
    .delete(sessions)
    .where(eq(sessions.id, sessionIdOf(token)))
    .returning({ id: sessions.id, userId: sessions.userId });
  for (const session of ended) await closeChatSockets(context, session.userId, { sessionId: session.id });
}

/**
 * Signs this browser out. The session is ended without being read as a page reads it: a read would slide its idle
 * end and send the old cookie back after the blank one, and the browser would keep the last.
 */
export async function signOut(request: Request, context: AppContext): Promise<Headers> {
  await endBrowserSession(request, context);
  return new Headers({ "Set-Cookie": blankSessionCookie(context.env) });
}
