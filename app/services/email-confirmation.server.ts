/**
 * Email confirmation (docs/decisions/0022-email-confirmation.md): sign-up sends a single-use link, valid for a day; only its hash is stored.
 * An unconfirmed account can use the product, but its address does not count as proven when an OAuth sign-in
 * with the same email comes along (see oauth.server.ts).
 */
import { and, eq, gt, inArray, lt } from "drizzle-orm";
import { emailConfirmationTokens, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import type { CurrentAuth } from "./auth.server";
import { deliverSoon, emailToUser } from "./email.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import { generateToken, hashToken } from "./sessions.server";

export const CONFIRMATION_LIFETIME_MS = 24 * 60 * 60_000;

/** A new link for the account, replacing older ones, and its email: statements for the caller's batch. */
export function confirmationStatements(context: AppContext, userId: string, now: number) {
  const { db } = context;
  const token = generateToken();
  const link = new URL(`/confirm-email?token=${token}`, context.env.APP_URL).toString();
  return [
    db.delete(emailConfirmationTokens).where(eq(emailConfirmationTokens.userId, userId)),
    db.insert(emailConfirmationTokens).values({ id: hashToken(token), userId, expiresAt: now + CONFIRMATION_LIFETIME_MS, createdAt: now }),
    emailToUser(
      db,
      {
        userId,
        kind: "email-confirmation",
        subject: "Confirm your email address",
        text: `Welcome to Backlink Market. Please confirm that this address is yours (the link works once, for a day):\n${link}\n\nIf you did not sign up, ignore this email.`,
      },
      now,
    ),
  ] as const;
}

/** The account a link (still usable) confirms; null when it is used up, expired or never was. */
export async function confirmationAccount(context: AppContext, token: string): Promise<string | null> {
  const row = await context.db
    .select({ userId: emailConfirmationTokens.userId })
    .from(emailConfirmationTokens)
    .where(and(eq(emailConfirmationTokens.id, hashToken(token)), gt(emailConfirmationTokens.expiresAt, context.now())))
    .get();
  return row?.userId ?? null;
}

/**
 * Uses the link once, from a browser signed in to its account: the address is marked proven and the token deleted,
 * together. Signed in, because whoever holds the address may not be who signed up with it: an owner who pressed the
 * link of an account a stranger made with their address would prove it for the stranger, who keeps its password, and
 * a later Google or GitHub sign-in would join it as it is instead of taking it back.
 */
export async function confirmEmail(context: AppContext, token: string, userId: string): Promise<boolean> {
  const { db } = context;
  const usable = and(
    eq(emailConfirmationTokens.id, hashToken(token)),
    eq(emailConfirmationTokens.userId, userId),
    gt(emailConfirmationTokens.expiresAt, context.now()),
  );
  const [confirmed] = await db.batch([
    db
      .update(users)
      .set({ emailVerified: true })
      .where(inArray(users.id, db.select({ id: emailConfirmationTokens.userId }).from(emailConfirmationTokens).where(usable)))
      .returning({ id: users.id }),
    db.delete(emailConfirmationTokens).where(usable),
  ]);
  return confirmed.length > 0;
}

/** Whether the account's email address is confirmed now (read afresh: a request's session may predate it). */
export async function isEmailConfirmed(db: Database, userId: string): Promise<boolean> {
  const row = await db.select({ verified: users.emailVerified }).from(users).where(eq(users.id, userId)).get();
  return row?.verified ?? false;
}

/** Sends a new link to a signed-in owner whose address is not confirmed yet (3 an hour). */
export async function resendConfirmation(context: AppContext, auth: CurrentAuth): Promise<"sent" | "confirmed" | "limited"> {
  if (auth.user.emailVerified) return "confirmed";
  if (!(await allow(context, RATE_LIMITS.confirmationsPerUser, auth.user.id))) return "limited";
  await context.db.batch([...confirmationStatements(context, auth.user.id, context.now())]);
  deliverSoon(context);
  return "sent";
}

export async function deleteExpiredConfirmations(db: Database, now: number): Promise<void> {
  await db.delete(emailConfirmationTokens).where(lt(emailConfirmationTokens.expiresAt, now));
}
