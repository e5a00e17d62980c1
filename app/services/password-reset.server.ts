/** Password reset (docs/decisions/0005-password-reset-links.md): single-use emailed links valid for one hour; only their hash is stored. */
import { and, eq, gt, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { passwordCredentials, passwordResetTokens, sessions, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { messages } from "~/domain/messages";
import { closeChatSockets } from "./chats.server";
import { deliverSoon, emailToUser } from "./email.server";
import { passesAsKnownDevice } from "./known-devices.server";
import { hashPassword } from "./passwords.server";
import { addressLimitScale, consume, RATE_LIMITS } from "./rate-limit.server";
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
    !(await consume(db, RATE_LIMITS.resetPerAddress, clientAddress, now, addressLimitScale(context.env))) ||
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

/** Uses the link once, sets the new password and ends every session of the account. */
export async function resetPassword(context: AppContext, token: string, password: string): Promise<string | null> {
  const { db } = context;
  const now = context.now();
  const claimed = await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(and(eq(passwordResetTokens.id, hashToken(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now)))
    .returning({ userId: passwordResetTokens.userId })
    .get();
  if (!claimed) return null;
  const passwordHash = await hashPassword(password);
  await db.batch([
    db
      .insert(passwordCredentials)
      .values({ userId: claimed.userId, passwordHash, updatedAt: now })
      .onConflictDoUpdate({ target: passwordCredentials.userId, set: { passwordHash, updatedAt: now } }),
    db.delete(sessions).where(eq(sessions.userId, claimed.userId)),
    db.update(users).set({ emailVerified: true }).where(eq(users.id, claimed.userId)),
    emailToUser(
      db,
      {
        userId: claimed.userId,
        kind: "password-changed",
        subject: "Your password was changed",
        text: "The password of your account was just changed and every session was signed out. If this was not you, reset your password now.",
      },
      now,
    ),
  ]);
  await closeChatSockets(context, claimed.userId, { allBut: null });
  deliverSoon(context);
  return claimed.userId;
}

export async function deleteExpiredResetTokens(context: Pick<AppContext, "db">, now: number): Promise<void> {
  await context.db
    .delete(passwordResetTokens)
    .where(or(lt(passwordResetTokens.expiresAt, now), lt(passwordResetTokens.createdAt, now - 2 * RESET_TOKEN_LIFETIME_MS)));
}
