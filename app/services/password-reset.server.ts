/** Password reset (docs/decisions/0005-password-reset-links.md): single-use emailed links valid for one hour; only their hash is stored. */
import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { knownDevices, passwordCredentials, passwordResetTokens, sessions, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { messages } from "~/domain/messages";
import { closeChatSockets } from "./chats.server";
import { deliverSoon, emailToUser } from "./email.server";
import { passesAsKnownDevice } from "./known-devices.server";
import { hashPassword, verifyPassword } from "./passwords.server";
import { allow, consume, RATE_LIMITS } from "./rate-limit.server";
import { generateToken, hashToken } from "./sessions.server";

export const RESET_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

export type ResetRequestResult = { ok: true; message: string } | { ok: false; status: number; message: string };

/**
 * The answer is the same whether or not the email has an account. Requests from elsewhere that use up the account's
 * limit do not refuse a browser that signed in to the account before (`deviceToken`), which has a limit of its own.
 */
export async function requestPasswordReset(
  context: AppContext,
  email: string,
  clientAddress: string,
  deviceToken: string | null = null,
): Promise<ResetRequestResult> {
  const { db } = context;
  const now = context.now();
  if (
    !(await allow(context, RATE_LIMITS.resetPerAddress, clientAddress)) ||
    (!(await consume(db, RATE_LIMITS.resetPerAccount, email, now)) &&
      !(await passesAsKnownDevice(context, RATE_LIMITS.resetPerKnownDevice, deviceToken, email)))
  ) {
    return { ok: false, status: 429, message: messages.tooManyAttempts };
  }
  // The same work and the same statements whether or not the email has an account: each statement finds the
  // account by its email itself, so an unknown address simply writes no rows. A new request invalidates older links.
  const token = generateToken();
  const link = new URL(`/reset-password?token=${token}`, context.env.APP_URL).toString();
  const account = eq(users.email, email);
  await db.batch([
    db.delete(passwordResetTokens).where(inArray(passwordResetTokens.userId, db.select({ id: users.id }).from(users).where(account))),
    db.insert(passwordResetTokens).select(
      db
        .select({
          id: sql<string>`${hashToken(token)}`.as("id"),
          userId: users.id,
          expiresAt: sql<number>`${now + RESET_TOKEN_LIFETIME_MS}`.as("expires_at"),
          usedAt: sql<null>`NULL`.as("used_at"),
          claim: sql<null>`NULL`.as("claim"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(users)
        .where(account),
    ),
    emailToUser(
      db,
      {
        userEmail: email,
        kind: "password-reset",
        subject: "Reset your password",
        text: `Someone asked to reset the password of your account.\n\nChoose a new password here (the link works once, for one hour):\n${link}\n\nIf it was not you, ignore this email; your password stays as it is.`,
      },
      now,
    ),
  ]);
  deliverSoon(context);
  return { ok: true, message: messages.resetLinkSent };
}

export async function isResetTokenUsable(context: AppContext, token: string): Promise<boolean> {
  const row = await context.db
    .select({ id: passwordResetTokens.id })
    .from(passwordResetTokens)
    .where(and(eq(passwordResetTokens.id, hashToken(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, context.now())))
    .get();
  return Boolean(row);
}

/** How long after a link was used the same form sent again (a double click without JavaScript) still counts as done. */
const RESUBMIT_WINDOW_MS = 60_000;

/**
 * Uses the link once, sets the new password and ends every session of the account, in one batch: the link is spent
 * only with the password written (docs/decisions/0053-writes-that-overlap.md). The same form sent again just after (the password it set) is done too. The
 * account's id, or null for a link that is not (or no longer) usable.
 */
export async function resetPassword(context: AppContext, token: string, password: string): Promise<string | null> {
  const { db } = context;
  const now = context.now();
  const id = hashToken(token);
  const link = await db
    .select({ userId: passwordResetTokens.userId, usedAt: passwordResetTokens.usedAt, expiresAt: passwordResetTokens.expiresAt })
    .from(passwordResetTokens)
    .where(eq(passwordResetTokens.id, id))
    .get();
  if (!link || link.expiresAt <= now) return null;
  if (link.usedAt !== null) return (await isSameResetSentAgain(context, link.userId, link.usedAt, password)) ? link.userId : null;
  const passwordHash = await hashPassword(password);
  // The request's own mark: two sends of the form in the same millisecond must not both pass for the one that used it.
  const claim = generateToken();
  const claimedHere = sql`EXISTS (SELECT 1 FROM password_reset_tokens WHERE id = ${id} AND claim = ${claim})`;
  const [claimed] = await db.batch([
    db
      .update(passwordResetTokens)
      .set({ usedAt: now, claim })
      .where(and(eq(passwordResetTokens.id, id), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now)))
      .returning({ userId: passwordResetTokens.userId }),
    db
      .insert(passwordCredentials)
      .select(
        db
          .select({
            userId: passwordResetTokens.userId,
            passwordHash: sql<string>`${passwordHash}`.as("password_hash"),
            updatedAt: sql<number>`${now}`.as("updated_at"),
          })
          .from(passwordResetTokens)
          .where(and(eq(passwordResetTokens.id, id), eq(passwordResetTokens.claim, claim))),
      )
      .onConflictDoUpdate({ target: passwordCredentials.userId, set: { passwordHash, updatedAt: now } }),
    db.delete(sessions).where(and(eq(sessions.userId, link.userId), claimedHere)),
    // Browsers known to the account go with its sessions: a reset is how an owner takes an account back from whoever
    // signed up with the address, whose browser would otherwise still pass the account's sign-in and reset ceilings.
    db.delete(knownDevices).where(and(eq(knownDevices.userId, link.userId), claimedHere)),
    db
      .update(users)
      .set({ emailVerified: true })
      .where(and(eq(users.id, link.userId), claimedHere)),
    emailToUser(
      db,
      {
        userId: link.userId,
        kind: "password-changed",
        subject: "Your password was changed",
        text: "The password of your account was just changed and every session was signed out. If this was not you, reset your password now.",
        onlyIf: claimedHere,
      },
      now,
    ),
  ]);
  // Used meanwhile (the same form sent twice at once): done if it set this password.
  if (claimed.length === 0) {
    const usedAt = (await db.select({ usedAt: passwordResetTokens.usedAt }).from(passwordResetTokens).where(eq(passwordResetTokens.id, id)).get())
      ?.usedAt;
    return usedAt != null && (await isSameResetSentAgain(context, link.userId, usedAt, password)) ? link.userId : null;
  }
  await closeChatSockets(context, link.userId, { allBut: null });
  deliverSoon(context);
  return link.userId;
}

/** Whether a used link's form came again just after its use, with the password that use set. */
async function isSameResetSentAgain(context: AppContext, userId: string, usedAt: number, password: string): Promise<boolean> {
  if (context.now() - usedAt > RESUBMIT_WINDOW_MS) return false;
  const stored = await context.db
    .select({ passwordHash: passwordCredentials.passwordHash })
    .from(passwordCredentials)
    .where(eq(passwordCredentials.userId, userId))
    .get();
  return stored !== undefined && (await verifyPassword(password, stored.passwordHash));
}

export async function deleteExpiredResetTokens(context: Pick<AppContext, "db">, now: number): Promise<void> {
  await context.db
    .delete(passwordResetTokens)
    .where(or(lt(passwordResetTokens.expiresAt, now), lt(passwordResetTokens.createdAt, now - 2 * RESET_TOKEN_LIFETIME_MS)));
}
