/**
 * Email goes into the outbox table first (decision 18). With an HTTP email API configured the outbox is
 * delivered in the background and retried by the cron job; without one it stays in the dev mailbox.
 */
import { and, asc, desc, eq, lte } from "drizzle-orm";
import { emailOutbox } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { newId } from "~/lib/ids";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  kind: string;
}

const MAX_ATTEMPTS = 8;

export function hasEmailTransport(env: Env): boolean {
  return Boolean(env.EMAIL_API_URL && env.EMAIL_API_KEY);
}

/** Queues an email; delivery never blocks or fails the user's action. */
export async function sendEmail(context: AppContext, email: OutgoingEmail): Promise<void> {
  const now = context.now();
  await context.db.insert(emailOutbox).values({
    id: newId(),
    toAddress: email.to,
    subject: email.subject,
    textBody: email.text,
    kind: email.kind,
    nextAttemptAt: now,
    createdAt: now,
  });
  if (hasEmailTransport(context.env)) {
    context.ctx.waitUntil(deliverOutbox(context.db, context.env, now).catch((error) => console.error("outbox", error)));
  }
}

async function postToEmailApi(env: Env, row: typeof emailOutbox.$inferSelect): Promise<void> {
  const response = await fetch(env.EMAIL_API_URL as string, {
    method: "POST",
    headers: { Authorization: `Bearer ${env.EMAIL_API_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      from: env.EMAIL_FROM ?? "Backlink Market <no-reply@localhost>",
      to: [row.toAddress],
      subject: row.subject,
      text: row.textBody,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`email API answered ${response.status}`);
}

/** Sends what is due; failures are retried later with a growing delay. */
export async function deliverOutbox(db: Database, env: Env, now: number): Promise<number> {
  if (!hasEmailTransport(env)) return 0;
  const due = await db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.status, "pending"), lte(emailOutbox.nextAttemptAt, now)))
    .orderBy(asc(emailOutbox.nextAttemptAt))
    .limit(50)
    .all();
  let sent = 0;
  for (const row of due) {
    // Claim the row so an overlapping run does not send it twice.
    const claimed = await db
      .update(emailOutbox)
      .set({ attempts: row.attempts + 1, nextAttemptAt: now + 60_000 * 2 ** row.attempts })
      .where(and(eq(emailOutbox.id, row.id), eq(emailOutbox.attempts, row.attempts), eq(emailOutbox.status, "pending")))
      .returning({ id: emailOutbox.id })
      .get();
    if (!claimed) continue;
    try {
      await postToEmailApi(env, row);
      await db.update(emailOutbox).set({ status: "sent", sentAt: Date.now() }).where(eq(emailOutbox.id, row.id));
      sent += 1;
    } catch (error) {
      const failedForGood = row.attempts + 1 >= MAX_ATTEMPTS;
      await db
        .update(emailOutbox)
        .set({ lastError: String(error).slice(0, 500), ...(failedForGood ? { status: "failed" as const } : {}) })
        .where(eq(emailOutbox.id, row.id));
    }
  }
  return sent;
}

export function listMailbox(db: Database, limit = 100) {
  return db.select().from(emailOutbox).orderBy(desc(emailOutbox.createdAt)).limit(limit).all();
}
