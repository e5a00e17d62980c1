/** Who is asking: the session cookie, resolved once per request, and the guards routes use. */
import { redirect } from "@remix-run/cloudflare";
import { sql } from "drizzle-orm";
import type { AppContext } from "~/lib/context";
import { safeRedirectPath } from "~/domain/redirects";
import { closeChatSockets } from "./chats.server";
import {
  blankSessionCookie,
  invalidateSession,
  readCookie,
  sessionCookie,
  sessionCookieName,
  sessionIdOf,
  sessionQuery,
  validateSessionRow,
  type ValidSession,
} from "./sessions.server";
import { rememberSites } from "./layout.server";
import { activeSiteQuery, userSitesQuery } from "./sites.server";

export interface CurrentAuth {
  session: ValidSession["session"];
  user: ValidSession["user"];
}

export function getCurrentAuth(request: Request, context: AppContext): Promise<CurrentAuth | null> {
  const lookup = async () => {
    const token = readCookie(request, sessionCookieName(context.env));
    if (!token) return null;
    // The session, the user's sites and the active site in one round trip: every signed-in page needs all three.
    const id = sessionIdOf(token);
    const sessionUser = sql`(SELECT user_id FROM sessions WHERE id = ${id})`;
    const remembered = sql`(SELECT active_site_id FROM sessions WHERE id = ${id})`;
    const [[row], userSites, [activeRow]] = await context.db.batch([
      sessionQuery(context.db, id),
      userSitesQuery(context.db, sessionUser),
      activeSiteQuery(context.db, sessionUser, remembered),
    ]);
    const valid = await validateSessionRow(context.db, row, context.now());
    if (valid) rememberSites(context, { userSites, activeRow: activeRow ?? null });
    if (!valid) {
      context.responseHeaders.append("Set-Cookie", blankSessionCookie(context.env));
      return null;
    }
    if (valid.refreshedExpiresAt) {
      context.responseHeaders.append("Set-Cookie", sessionCookie(context.env, token, valid.refreshedExpiresAt));
    }
    return { session: valid.session, user: valid.user };
  };
  context.auth ??= context.timing ? context.timing.session(lookup()) : lookup();
  return context.auth;
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

export function sessionCookieHeaders(context: AppContext, token: string, expiresAt: number): Headers {
  return new Headers({ "Set-Cookie": sessionCookie(context.env, token, expiresAt) });
}

export async function signOut(request: Request, context: AppContext): Promise<Headers> {
  const auth = await getCurrentAuth(request, context);
  if (auth) {
    await invalidateSession(context.db, auth.session.id);
    await closeChatSockets(context, auth.user.id, { sessionId: auth.session.id });
  }
  return new Headers({ "Set-Cookie": blankSessionCookie(context.env) });
}
