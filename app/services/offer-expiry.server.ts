/** Expiry, every five minutes and in the daily job: offers left unanswered return their hold, and connect lots past their date expire. */
import { and, eq, gt, inArray, lte, sql } from "drizzle-orm";
import { connectLedger, connectLots, emailOutbox, offers, sites, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { outboxSelection } from "./email.server";

/**
 * Pending offers unanswered after 14 days return their hold (NORES to the sender). Every five minutes (through the
 * status and answer-by index), so a lapsed offer neither holds its connects nor blocks a new proposal to the same post
 * for up to a day. Single statements over all rows, so a run that overlaps another does no harm.
 */
export async function expireLapsedOffers(context: AppContext) {
  const { db } = context;
  const now = context.now();
  const lapsed = and(eq(offers.status, "pending"), lte(offers.answerBy, now));
  const link = new URL("/mysite/offers?offer=", context.env.APP_URL).toString();
  // Set-based: two statements in one atomic batch for any number of offers (the holds return in triggers).
  const [, expired] = await db.batch([
    db
      .insert(emailOutbox)
      .select(
        db
          .select(
            outboxSelection(
              {
                subject: sql`'Your offer got no answer'`,
                textBody: sql`${sites.host} || ' did not answer your offer in 14 days. The ' || ${offers.connects} || ' connects it held are back in your balance, apart from any whose year has run out or that a refund of their payment took back.' || char(10) || char(10) || 'See it here: ' || ${link} || ${offers.id}`,
                kind: sql`'offer'`,
                dedupeKey: sql`'offer:' || ${offers.id} || ':expired'`,
              },
              now,
            ),
          )
          .from(offers)
          .innerJoin(users, eq(users.id, offers.senderUserId))
          .innerJoin(sites, eq(sites.id, offers.receiverSiteId))
          // A notification: only to those who want them (the hold returns either way).
          .where(and(lapsed, eq(users.notificationEmails, true))),
      )
      .onConflictDoNothing(),
    db.update(offers).set({ status: "expired", expiredAt: now, updatedAt: now }).where(lapsed).returning({ id: offers.id }),
  ]);
  return { expiredOffers: expired.length };
}

/**
 * Connects whose year is up leave the balance, each lot with a ledger entry, every five minutes: a lot past its date
 * still counted in the balance, which a proposal's hold (which skips it) could not use.
 */
export async function expireConnectLots(context: AppContext) {
  const { db } = context;
  const now = context.now();
  const due = and(lte(connectLots.expiresAt, now), gt(connectLots.remaining, 0));
  await db.batch([
    db.insert(connectLedger).select(
      db
        .select({
          id: sql<string>`lower(hex(randomblob(16)))`.as("id"),
          userId: connectLots.userId,
          kind: sql<"expire">`'expire'`.as("kind"),
          amount: sql<number>`-${connectLots.remaining}`.as("amount"),
          held: sql<number>`0`.as("held"),
          lotId: connectLots.id,
          offerId: sql<null>`NULL`.as("offer_id"),
          paymentEventId: sql<null>`NULL`.as("payment_event_id"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(connectLots)
        .where(due),
    ),
    db
      .update(users)
      .set({
        connects: sql`${users.connects} - (SELECT coalesce(sum(remaining), 0) FROM connect_lots
          WHERE connect_lots.user_id = ${users.id} AND expires_at <= ${now} AND remaining > 0)`,
      })
      .where(inArray(users.id, db.select({ id: connectLots.userId }).from(connectLots).where(due))),
    db.update(connectLots).set({ remaining: 0 }).where(due),
  ]);
}
