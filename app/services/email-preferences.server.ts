/** Whether a user gets notification emails: from Settings (signed in) or an email's unsubscribe link (its token). */
import { eq } from "drizzle-orm";
import { users } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";

export async function notificationEmailsOf(db: Database, userId: string): Promise<boolean> {
  const row = await db.select({ on: users.notificationEmails }).from(users).where(eq(users.id, userId)).get();
  return row?.on ?? true;
}

export async function setNotificationEmails(db: Database, userId: string, on: boolean): Promise<void> {
  await db.update(users).set({ notificationEmails: on }).where(eq(users.id, userId));
}

const TOKEN = /^[a-f0-9]{32}$/;

/** The account an unsubscribe link names (its address, to show it), or null for a link that is not one of ours. */
export async function accountOfUnsubscribeToken(db: Database, token: string | null): Promise<{ email: string; on: boolean } | null> {
  if (!token || !TOKEN.test(token)) return null;
  const row = await db.select({ email: users.email, on: users.notificationEmails }).from(users).where(eq(users.unsubscribeToken, token)).get();
  return row ?? null;
}

/** Turns notification emails off (or on again) for the account of an unsubscribe link; false when the link is unknown. */
export async function setNotificationEmailsByToken(db: Database, token: string | null, on: boolean): Promise<boolean> {
  if (!token || !TOKEN.test(token)) return false;
  const row = await db.update(users).set({ notificationEmails: on }).where(eq(users.unsubscribeToken, token)).returning({ id: users.id }).get();
  return Boolean(row);
}
