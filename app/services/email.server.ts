/**
 * Email goes into the outbox table first (docs/decisions/0018-email-outbox.md), in the same batch as the change it reports. A transport
 * chosen by configuration delivers it after the response (waitUntil) and from the scheduled jobs: each row is claimed
 * with a guarded update before it is sent (so two runs never send it twice), failures are retried with a growing
 * delay, and a refusal that retrying cannot fix ends it as failed.
 */
import { and, asc, desc, eq, gte, lt, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { emailOutbox, users } from "#drizzle/schema";
import { isNotification, renderEmail } from "~/domain/email-content";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { chooseTransport, PermanentEmailError, type Transport } from "~/lib/email-transports.server";
import { hasPublicAppUrl, isDevelopment, type Env } from "~/lib/env";
import { newId } from "~/lib/ids";

/** An email still undelivered this long after it was queued is given up (marked failed, kept in the outbox). */
const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60_000;
/** How far back the daily purge of secrets looks past their lifetimes: days of the job not running are caught up. */
const PURGE_LOOKBACK_MS = 30 * 24 * 60 * 60_000;
/** Retries wait 1, 2, 4… minutes, at most an hour. */
const MAX_RETRY_DELAY_MS = 60 * 60_000;

/**
 * Emails that carry a one-time secret (a reset link), and how long it lives: reset links an hour, confirmation links a
 * day. Their body is kept only until delivered, or until the secret has expired, whichever comes first.
 */
const SECRET_LIFETIMES_MS: Record<string, number> = { "password-reset": 60 * 60_000, "email-confirmation": 24 * 60 * 60_000 };
export const SECRET_BEARING_KINDS = Object.keys(SECRET_LIFETIMES_MS);
export const SECRET_BODY_REMOVED = "(This email held a one-time link. It was removed once the email was delivered or the link expired.)";

export function hasEmailTransport(env: Env): boolean {
  return chooseTransport(env) !== null;
}

export interface UserEmail {
  /** The account it goes to, by id or by its email address (no row, no email), or every account `users` holds for. */
  userId?: string;
  userEmail?: string;
  users?: SQL;
  subject: string;
  text: string;
  kind: string;
  /** At most one email per key, ever (e.g. `offer:ID:accepted`). */
  dedupeKey?: string;
  /** Written only when this holds at its place in the batch: the change it reports really happened. */
  onlyIf?: SQL;
}

/**
 * An email to a user as a statement for the same `db.batch` as the change it reports, so the two are written
 * together or not at all. Call `deliverSoon` after the batch.
 */
export function emailToUser(db: Database, email: UserEmail, now: number) {
  return db
    .insert(emailOutbox)
    .select(
      db
        .select(
          outboxSelection(
            { subject: sql`${email.subject}`, textBody: sql`${email.text}`, kind: sql`${email.kind}`, dedupeKey: sql`${email.dedupeKey ?? null}` },
            now,
          ),
        )
        .from(users)
        .where(
          and(
            email.users ?? (email.userId !== undefined ? eq(users.id, email.userId) : eq(users.email, email.userEmail ?? "")),
            email.onlyIf,
            // Notifications only to those who want them; receipts and security emails always.
            isNotification(email.kind) ? eq(users.notificationEmails, true) : undefined,
          ),
        ),
    )
    .onConflictDoNothing();
}

/**
 * An outbox row for an insert...select whose rows come with `users` (the email goes to `users.email`): every column
 * in the table's order, since drizzle writes the selection by position.
 */
export function outboxSelection(fields: { subject: SQL; textBody: SQL; kind: SQL; dedupeKey: SQL }, now: number) {
  return {
    id: sql<string>`lower(hex(randomblob(16)))`.as("id"),
    toAddress: users.email,
    subject: sql<string>`${fields.subject}`.as("subject"),
    textBody: sql<string>`${fields.textBody}`.as("text_body"),
    kind: sql<string>`${fields.kind}`.as("kind"),
    dedupeKey: sql<string | null>`${fields.dedupeKey}`.as("dedupe_key"),
    status: sql<"pending">`'pending'`.as("status"),
    attempts: sql<number>`0`.as("attempts"),
    lastError: sql<null>`NULL`.as("last_error"),
    transport: sql<null>`NULL`.as("transport"),
    providerMessageId: sql<null>`NULL`.as("provider_message_id"),
    nextAttemptAt: sql<number>`${now}`.as("next_attempt_at"),
    sentAt: sql<null>`NULL`.as("sent_at"),
    createdAt: sql<number>`${now}`.as("created_at"),
  };
}

/**
 * Starts delivering what was queued, after the response, when an email API is configured. Not inside a scheduled job:
 * each email a job queues (a verification warning, say) would start a whole outbox run of its own beside the job's.
 */
export function deliverSoon(context: AppContext): void {
  if (context.deliversAtEnd || !hasEmailTransport(context.env)) return;
  // Work after a response has 30 seconds: sends are started only while they can end within them. A send cut off
  // midway would be sent again by the next run, after the provider may have taken it.
  const deadline = Date.now() + AFTER_RESPONSE_MS;
  context.ctx.waitUntil(deliverOutbox(context.db, context.env, context.now(), { deadline }).catch((error) => console.error("outbox", error)));
}

/** What a request's delivery after its response may take, within the 30 seconds Workers give `waitUntil`. */
const AFTER_RESPONSE_MS = 25_000;

/** How long one delivery may take before it counts as failed (and is tried again, with the same idempotency key). */
const SEND_TIMEOUT_MS = 10_000;

/** The unsubscribe link of a notification's recipient (made on first use); "off" when they do not want them (or
 * no account has the address any more). */
async function unsubscribeLinkFor(db: Database, env: Env, address: string): Promise<string | "off"> {
  const row = await db
    .update(users)
    .set({ unsubscribeToken: sql`coalesce(${users.unsubscribeToken}, ${newId().replaceAll("-", "")})` })
    .where(eq(users.email, address))
    .returning({ token: users.unsubscribeToken, wanted: users.notificationEmails })
    .get();
  if (!row || !row.wanted || !row.token) return "off";
  return new URL(`/unsubscribe?token=${row.token}`, env.APP_URL).toString();
}

/** Sends what is due; failures are retried later with a growing delay. Returns how many were sent. */
let warnedNoTransport = false;

export async function deliverOutbox(
  db: Database,
  env: Env,
  now: number,
  options: { transport?: Transport; timeoutMs?: number; deadline?: number } = {},
): Promise<number> {
  const timeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS;
  const transport = options.transport ?? chooseTransport(env);
  if (!transport) {
    // Production without a way to send: sign-up confirmations and reset links wait in the outbox. Said once per isolate.
    if (!isDevelopment(env) && !warnedNoTransport) {
      warnedNoTransport = true;
      console.warn("outbox held: no email transport is configured (README, Configuration: EMAIL_TRANSPORT and its key)");
    }
    return 0;
  }
  // A deploy that left APP_URL at its local default would email links to localhost: the emails wait, untouched, until
  // it is set (then go out, however long they waited, but for one-time links past their lifetime, cancelled below).
  if (!hasPublicAppUrl(env)) {
    console.error("outbox held: APP_URL must be the public https origin in production (README, Deploy)");
    return 0;
  }
  const due = await db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.status, "pending"), lte(emailOutbox.nextAttemptAt, now)))
    .orderBy(asc(emailOutbox.nextAttemptAt))
    .limit(50)
    .all();
  let sent = 0;
  for (const row of due) {
    // No send starts that could not end by the deadline: the rows left are the next run's, untouched.
    if (options.deadline !== undefined && Date.now() + timeoutMs > options.deadline) break;
    // Claim the row so an overlapping run does not send it twice; the claim is also the retry time if this fails.
    // It runs from the real clock (a job's own time may be minutes old) and outlasts the send's deadline.
    const claimedAt = Math.max(now, Date.now());
    const retryIn = Math.max(Math.min(60_000 * 2 ** row.attempts, MAX_RETRY_DELAY_MS), timeoutMs * 3);
    const claimed = await db
      .update(emailOutbox)
      .set({ attempts: row.attempts + 1, nextAttemptAt: claimedAt + retryIn })
      .where(and(eq(emailOutbox.id, row.id), eq(emailOutbox.attempts, row.attempts), eq(emailOutbox.status, "pending")))
      .returning({ id: emailOutbox.id })
      .get();
    if (!claimed) continue;
    // A one-time link that expired while its email waited (a provider down for an hour): the email would only carry a
    // dead link, so it is cancelled as the daily purge would.
    const lifetime = SECRET_LIFETIMES_MS[row.kind];
    if (lifetime !== undefined && claimedAt > row.createdAt + lifetime) {
      await db
        .update(emailOutbox)
        .set({ status: "cancelled", textBody: SECRET_BODY_REMOVED, lastError: "its link expired" })
        .where(eq(emailOutbox.id, row.id));
      continue;
    }
    try {
      const unsubscribe = isNotification(row.kind) ? await unsubscribeLinkFor(db, env, row.toAddress) : null;
      if (unsubscribe === "off") {
        await db.update(emailOutbox).set({ status: "cancelled", lastError: "notification emails turned off" }).where(eq(emailOutbox.id, row.id));
        continue;
      }
      const rendered = renderEmail({ subject: row.subject, text: row.textBody, appUrl: env.APP_URL, unsubscribeUrl: unsubscribe });
      const result = await transport.send(
        { id: row.id, from: env.EMAIL_FROM ?? "Backlink Market <no-reply@localhost>", to: row.toAddress, subject: row.subject, ...rendered },
        AbortSignal.timeout(timeoutMs),
      );
      const purge = !transport.keepsBodies && SECRET_BEARING_KINDS.includes(row.kind) ? { textBody: SECRET_BODY_REMOVED } : {};
      await db
        .update(emailOutbox)
        .set({
          status: "sent",
          sentAt: Date.now(),
          transport: transport.name,
          providerMessageId: result.providerMessageId,
          lastError: null,
          ...purge,
        })
        .where(eq(emailOutbox.id, row.id));
      sent += 1;
    } catch (error) {
      const failedForGood = error instanceof PermanentEmailError || claimedAt - row.createdAt > GIVE_UP_AFTER_MS;
      await db
        .update(emailOutbox)
        .set({ lastError: String(error).slice(0, 500), transport: transport.name, ...(failedForGood ? { status: "failed" as const } : {}) })
        .where(eq(emailOutbox.id, row.id));
    }
  }
  return sent;
}

/**
 * The daily job: bodies with secrets that outlived their secret are emptied, delivered or not; one still waiting to
 * be sent is cancelled (its link no longer works, and the emptied body is no email to send).
 */
export async function purgeExpiredSecrets(db: Database, now: number): Promise<void> {
  // Each kind's rows of the last month past their lifetime: the job runs daily, so older ones were emptied before (a
  // range of the created_at index, not the whole outbox's history every day).
  const expired = Object.entries(SECRET_LIFETIMES_MS).map(([kind, lifetime]) =>
    and(eq(emailOutbox.kind, kind), lt(emailOutbox.createdAt, now - lifetime), gte(emailOutbox.createdAt, now - lifetime - PURGE_LOOKBACK_MS)),
  );
  await db
    .update(emailOutbox)
    .set({ textBody: SECRET_BODY_REMOVED, status: sql`CASE WHEN ${emailOutbox.status} = 'pending' THEN 'cancelled' ELSE ${emailOutbox.status} END` })
    .where(and(or(...expired), ne(emailOutbox.textBody, SECRET_BODY_REMOVED)));
}

/** The outbox as the dev mailbox shows it: each email's text and HTML parts as they are (or were) sent. */
export async function listMailbox(db: Database, env: Env, limit = 100) {
  const rows = await db
    .select({ email: emailOutbox, token: users.unsubscribeToken })
    .from(emailOutbox)
    .leftJoin(users, eq(users.email, emailOutbox.toAddress))
    .orderBy(desc(emailOutbox.createdAt))
    .limit(limit)
    .all();
  return rows.map(({ email, token }) => {
    const unsubscribeUrl = isNotification(email.kind) ? new URL(`/unsubscribe?token=${token ?? "(made when sent)"}`, env.APP_URL).toString() : null;
    return { ...email, rendered: renderEmail({ subject: email.subject, text: email.textBody, appUrl: env.APP_URL, unsubscribeUrl }) };
  });
}
