/** A signed-in owner's account security: change the password, sign out every other session. */
import { and, eq, exists, ne, sql, type SQL } from "drizzle-orm";
import { passwordCredentials, passwordResetTokens, sessions } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { isCommonPassword } from "~/lib/common-passwords.server";
import { messages } from "~/domain/messages";
import type { CurrentAuth } from "./auth.server";
import { notReplaced, replaceSession, SESSION_ABSOLUTE_MS } from "./sessions.server";
import { closeChatSockets } from "./chats.server";
import { deliverSoon, emailToUser } from "./email.server";
import { hashPassword, verifyPassword } from "./passwords.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";

/** The session that replaces this browser's (its cookie to send): after a change, the old cookie's copies sign in nowhere. */
export type ReplacedSession = { token: string; expiresAt: number };

export type AccountChange =
  /** Done; `session` unless the same form was sent twice (the first one replaced the session). */
  | { ok: true; session?: ReplacedSession }
  | { ok: false; status: number; field?: "currentPassword" | "newPassword"; message: string }
  /** The session ended while the change was made (signed out elsewhere, or a reset): sign in again. */
  | { ok: false; signedOut: true };

/** How soon after a change the same form again is that change sent twice. */
const SENT_AGAIN_WITHIN_MS = 60_000;

/** Needs the current password; sets the new one and ends every other session, with an email saying so. */
export async function changePassword(context: AppContext, auth: CurrentAuth, currentPassword: string, newPassword: string): Promise<AccountChange> {
  const { db } = context;
  if (!(await allow(context, RATE_LIMITS.passwordChangesPerUser, auth.user.id))) {
    return { ok: false, status: 429, message: messages.tooManyAttempts };
  }
  const stored = await db
    .select({ hash: passwordCredentials.passwordHash, updatedAt: passwordCredentials.updatedAt })
    .from(passwordCredentials)
    .where(eq(passwordCredentials.userId, auth.user.id))
    .get();
  if (!stored) return { ok: false, status: 400, field: "currentPassword", message: messages.noPasswordYet };
  if (!(await verifyPassword(currentPassword, stored.hash))) {
    // The same form sent again once the first had changed the password (a second click without JavaScript, the old
    // session still in its grace minute): done, as when the two overlap.
    if (context.now() - stored.updatedAt <= SENT_AGAIN_WITHIN_MS && (await verifyPassword(newPassword, stored.hash))) {
      return notChanged(context, auth, newPassword, stored.hash);
    }
    return { ok: false, status: 400, field: "currentPassword", message: messages.currentPasswordWrong };
  }
  if (isCommonPassword(newPassword)) return { ok: false, status: 400, field: "newPassword", message: messages.passwordTooCommon };
  const now = context.now();
  const passwordHash = await hashPassword(newPassword);
  // The change holds only over the password just checked and from a session that still exists: a reset finished while
  // the new password was hashed (it sets another and ends every session) is not undone. The statements after it run
  // only if it did (the new hash, salted, is this change's alone; docs/decisions/0051-writes-recheck-what-they-read.md).
  const changed = exists(
    db
      .select({ one: sql`1` })
      .from(passwordCredentials)
      .where(and(eq(passwordCredentials.userId, auth.user.id), eq(passwordCredentials.passwordHash, passwordHash))),
  );
  // The password just proved starts the new session's window, as a sign-in would.
  const replaced = replaceSession(db, auth.session, now, { condition: changed, absoluteExpiresAt: now + SESSION_ABSOLUTE_MS });
  const [updated] = await db.batch([
    db
      .update(passwordCredentials)
      .set({ passwordHash, updatedAt: now })
      .where(
        and(
          eq(passwordCredentials.userId, auth.user.id),
          eq(passwordCredentials.passwordHash, stored.hash),
          exists(
            db
              .select({ one: sql`1` })
              .from(sessions)
              .where(eq(sessions.id, auth.session.id)),
          ),
        ),
      )
      .returning({ userId: passwordCredentials.userId }),
    endOtherSessions(context, auth, changed),
    ...replaced.statements,
    // A reset link asked for earlier must not undo this change.
    db.delete(passwordResetTokens).where(and(eq(passwordResetTokens.userId, auth.user.id), changed)),
    emailToUser(
      db,
      {
        userId: auth.user.id,
        kind: "password-changed",
        subject: "Your password was changed",
        text: "The password of your account was just changed, and every other session was signed out. If this was not you, reset your password now.",
        onlyIf: changed,
      },
      now,
    ),
  ]);
  if (updated.length === 0) return notChanged(context, auth, newPassword);
  await closeChatSockets(context, auth.user.id, { allBut: replaced.id, replaced: auth.session.id });
  deliverSoon(context);
  return { ok: true, session: { token: replaced.token, expiresAt: replaced.expiresAt } };
}

/**
 * Why a change whose guarded update applied to nothing was not made: this session ended meanwhile, or the password was
 * already changed, to this new one (the same form sent twice: done) or by a reset (the current password is wrong now).
 */
async function notChanged(
  context: AppContext,
  auth: CurrentAuth,
  newPassword: string,
  /** A hash the new password was already checked against (a check costs a lot of CPU: not twice for the same hash). */
  checkedHash?: string,
): Promise<AccountChange> {
  const { db } = context;
  const [session, stored] = await db.batch([
    db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, auth.session.id)),
    db.select({ hash: passwordCredentials.passwordHash }).from(passwordCredentials).where(eq(passwordCredentials.userId, auth.user.id)),
  ]);
  if (!session[0]) return { ok: false, signedOut: true };
  if (stored[0] && (stored[0].hash === checkedHash || (await verifyPassword(newPassword, stored[0].hash)))) {
    // The same form sent twice (a double click): the first answer, with the new session, may be the one the browser
    // dropped; this one carries a session of its own, as it proved the new password.
    const now = context.now();
    const again = replaceSession(db, auth.session, now, { absoluteExpiresAt: now + SESSION_ABSOLUTE_MS });
    const [made] = await db.batch([...again.statements]);
    return made.length > 0 ? { ok: true, session: { token: again.token, expiresAt: again.expiresAt } } : { ok: false, signedOut: true };
  }
  return { ok: false, status: 409, field: "currentPassword", message: messages.currentPasswordWrong };
}

/** Ends the account's other sessions, from this one only while it exists (a request in flight from an ended session ends nothing). */
function endOtherSessions(context: AppContext, auth: CurrentAuth, onlyIf?: SQL) {
  const { db } = context;
  return db.delete(sessions).where(
    and(
      eq(sessions.userId, auth.user.id),
      ne(sessions.id, auth.session.id),
      exists(
        db
          .select({ one: sql`1` })
          .from(sessions)
          .where(eq(sessions.id, auth.session.id)),
      ),
      onlyIf,
    ),
  );
}

/**
 * Ends every session of the account but this browser's (a lost phone, a shared computer), and gives this browser a new
 * one: a copy of its cookie taken from it signs in nowhere either. "already" when this session was replaced a moment
 * ago (the button pressed twice, or a copy of the cookie trying it in the grace minute): nothing more is ended or made,
 * so the session the first press made stays, and a copy gets none. Null when this session had ended meanwhile.
 */
export async function signOutOtherSessions(context: AppContext, auth: CurrentAuth): Promise<ReplacedSession | "already" | null> {
  const { db } = context;
  const now = context.now();
  const current = notReplaced(db, auth.session.id, now);
  const replaced = replaceSession(db, auth.session, now, { condition: current });
  const [, made, , stillThere] = await db.batch([
    endOtherSessions(context, auth, current),
    ...replaced.statements,
    db.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, auth.session.id)),
  ]);
  if (made.length === 0) return stillThere.length > 0 ? "already" : null;
  await closeChatSockets(context, auth.user.id, { allBut: replaced.id, replaced: auth.session.id });
  return { token: replaced.token, expiresAt: replaced.expiresAt };
}
