/**
 * Trading: proposals, answers, trade progress. The server decides everything: price, sender and receiver come
 * from the listing and the session, never from the browser. Connects move in database triggers
 * (migrations/0004), atomically with the status change that causes them.
 */
import { and, eq, gt, inArray, lte, sql, type SQL } from "drizzle-orm";
import { connectLedger, connectLots, emailOutbox, listings, offerEntries, offers, sites, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { isUniqueConstraintError } from "~/lib/db.server";
import { messages } from "~/domain/messages";
import { DEFAULT_MATERIAL } from "~/domain/options";
import {
  ANSWER_WITHIN_MS,
  canActOnOffer,
  canMoveEntry,
  entryStatesBefore,
  type EntryStatus,
  type OfferAction,
  type Role,
} from "~/domain/offer-rules";
import type { CurrentAuth } from "./auth.server";
import { deliverSoon, emailToUser, outboxSelection, type UserEmail } from "./email.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import { refreshReputationLater } from "./reputation.server";
import { loadSignedInShell } from "./layout.server";
import { newId } from "~/lib/ids";
import { hostsOf } from "./trades-read.server";
import { inspectDeliveredLink, LINK_WATCH_MS, nextLinkCheck, recordLinkCheck, statusOfLink } from "./delivered-links.server";
import type { FoundLink } from "~/lib/html.server";

export type Outcome = { ok: true; offerId: string } | { ok: false; status: number; message: string };

export interface PartyTerms {
  contentType: string;
  materials: string[];
}

function isInsufficientConnects(error: unknown) {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return text.includes("insufficient connects");
}

/** A batch's results, or null (logged) when the database refused it: nothing of it was written. */
async function savedOrNull<T>(batch: Promise<T>): Promise<T | null> {
  try {
    return await batch;
  } catch (error) {
    console.error("offer change failed", error);
    return null;
  }
}

const withDefaultMaterial = (materials: string[]) => (materials.length > 0 ? materials : [DEFAULT_MATERIAL]);

/** Sends a proposal for a listing from the active site; holds the price at once. */
export async function propose(
  context: AppContext,
  auth: CurrentAuth,
  input: { listingId: string; mine: PartyTerms; theirs: PartyTerms }
): Promise<Outcome> {
  const { db } = context;
  const shell = await loadSignedInShell(context, auth);
  const sender = shell.activeSite;
  if (!sender) return { ok: false, status: 400, message: messages.couldNotSendOffer };
  if (!sender.verified) return { ok: false, status: 403, message: messages.verifyYourWebsite };

  const listing = await db
    .select({ id: listings.id, connects: listings.connects, userId: listings.userId, siteId: sites.id, host: sites.host })
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(and(eq(listings.id, input.listingId), eq(listings.active, true), eq(sites.verified, true)))
    .get();
  if (!listing || listing.userId === auth.user.id) return { ok: false, status: 404, message: messages.couldNotSendOffer };
  if (auth.user.connects < listing.connects) return { ok: false, status: 402, message: messages.notEnoughConnects };

  const now = context.now();
  if (!(await allow(context, RATE_LIMITS.proposalsPerSender, auth.user.id))) {
    return { ok: false, status: 429, message: messages.tooManyProposals };
  }
  const offerId = newId();
  const entry = (userId: string, siteId: string, role: Role, terms: PartyTerms) =>
    db.insert(offerEntries).values({
      offerId,
      userId,
      siteId,
      role,
      createContentType: terms.contentType,
      provideMaterials: withDefaultMaterial(terms.materials),
      updatedAt: now,
    });
  try {
    await db.batch([
      db.insert(offers).values({
        id: offerId,
        listingId: listing.id,
        senderUserId: auth.user.id,
        senderSiteId: sender.id,
        receiverUserId: listing.userId,
        receiverSiteId: listing.siteId,
        connects: listing.connects,
        answerBy: now + ANSWER_WITHIN_MS,
        createdAt: now,
        updatedAt: now,
      }),
      entry(auth.user.id, sender.id, "sender", input.mine),
      entry(listing.userId, listing.siteId, "receiver", input.theirs),
      emailToUser(
        db,
        offerEmail(
          context,
          offerId,
          "proposed",
          listing.userId,
          `New offer from ${sender.host}`,
          `${sender.host} sent you an offer for ${listing.host}.`
        ),
        now
      ),
    ]);
  } catch (error) {
    if (isInsufficientConnects(error)) return { ok: false, status: 402, message: messages.notEnoughConnects };
    if (isUniqueConstraintError(error)) return { ok: false, status: 409, message: messages.duplicateOffer };
    console.error("propose failed", error);
    return { ok: false, status: 500, message: messages.offerSendFailed };
  }
  deliverSoon(context);
  return { ok: true, offerId };
}

function offerLink(context: AppContext, offerId: string) {
  return new URL(`/mysite/offers?offer=${offerId}`, context.env.APP_URL).toString();
}

/** The email an offer's event sends to one participant, once per offer and event. */
function offerEmail(context: AppContext, offerId: string, event: string, userId: string, subject: string, text: string, onlyIf?: SQL): UserEmail {
  return {
    userId,
    subject,
    text: `${text}\n\nSee it here: ${offerLink(context, offerId)}`,
    kind: "offer",
    dedupeKey: `offer:${offerId}:${event}`,
    onlyIf,
  };
}

/** The offer as one participant sees it, or null for anyone else. */
async function loadForParticipant(context: AppContext, userId: string, offerId: string) {
  const offer = await context.db.select().from(offers).where(eq(offers.id, offerId)).get();
  if (!offer || (offer.senderUserId !== userId && offer.receiverUserId !== userId)) return null;
  const entries = await context.db.select().from(offerEntries).where(eq(offerEntries.offerId, offerId)).all();
  const role: Role = offer.senderUserId === userId ? "sender" : "receiver";
  const own = entries.find((entry) => entry.userId === userId);
  const other = entries.find((entry) => entry.userId !== userId);
  return { offer, role, own, other };
}

/** Accept (with the materials requested from the sender), decline, rescind or trash an offer. */
export async function actOnOffer(
  context: AppContext,
  auth: CurrentAuth,
  offerId: string,
  action: OfferAction,
  requestedMaterials: string[] = []
): Promise<Outcome> {
  const { db } = context;
  const found = await loadForParticipant(context, auth.user.id, offerId);
  if (!found) return { ok: false, status: 404, message: messages.offerChangeRefused };
  const { offer, role, own } = found;
  if (!canActOnOffer(action, { status: offer.status, role, trashed: Boolean(own?.trashedAt) })) {
    const wrongParty = (action === "rescind" && role !== "sender") || ((action === "accept" || action === "decline") && role !== "receiver");
    return { ok: false, status: wrongParty ? 403 : 409, message: messages.offerChangeRefused };
  }
  const now = context.now();

  if (action === "trash") {
    await db
      .update(offerEntries)
      .set({ trashedAt: now, updatedAt: now })
      .where(and(eq(offerEntries.offerId, offerId), eq(offerEntries.userId, auth.user.id), sql`${offerEntries.trashedAt} IS NULL`));
    return { ok: true, offerId };
  }

  const next = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescind";
  const party = action === "rescind" ? offers.senderUserId : offers.receiverUserId;
  // What the rest of the batch may do only if this very request changed the offer.
  const changedHere = sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND status = ${next} AND answered_at = ${now})`;
  const hosts = await hostsOf(db, offerId);
  const verb = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescinded";
  const to = action === "rescind" ? offer.receiverUserId : offer.senderUserId;
  const about = action === "rescind" ? hosts?.sender : hosts?.receiver;
  const refund = action === "rescind" || action === "accept" ? "" : ` The ${offer.connects} connects it held are back in your balance.`;
  const [changed] = (await savedOrNull(
    db.batch([
      // The guarded status change; the ledger triggers run only when it really changes the row. An accept must
      // come within the answer window, even before the daily job has expired the offer.
      db
        .update(offers)
        .set({ status: next, answeredAt: now, updatedAt: now })
        .where(
          and(
            eq(offers.id, offerId),
            eq(offers.status, "pending"),
            eq(party, auth.user.id),
            action === "accept" ? gt(offers.answerBy, now) : undefined
          )
        )
        .returning({ id: offers.id }),
      ...(action === "accept"
        ? [
            db
              .update(offerEntries)
              .set({ provideMaterials: withDefaultMaterial(requestedMaterials), updatedAt: now })
              .where(and(eq(offerEntries.offerId, offerId), eq(offerEntries.role, "sender"), changedHere)),
          ]
        : []),
      emailToUser(
        db,
        offerEmail(context, offerId, verb, to, `Your offer was ${verb}`, `${about ?? "The other site"} ${verb} the offer.${refund}`, changedHere),
        now
      ),
    ])
  )) ?? [null];
  if (changed === null) return { ok: false, status: 500, message: messages.offerSaveFailed };
  if (changed.length === 0) {
    const lapsed = action === "accept" && offer.status === "pending" && offer.answerBy <= now;
    return { ok: false, status: 409, message: lapsed ? messages.offerAnswerWindowOver : messages.offerChangeRefused };
  }
  deliverSoon(context);
  // The receiver's answer time is part of its record.
  if (action !== "rescind") refreshReputationLater(context, [offer.receiverSiteId]);
  return { ok: true, offerId };
}

/** Moves one's own side of an accepted trade; completing needs the content url. */
export async function moveTradeEntry(
  context: AppContext,
  auth: CurrentAuth,
  offerId: string,
  to: EntryStatus,
  contentUrl: string | null
): Promise<Outcome> {
  const found = await loadForParticipant(context, auth.user.id, offerId);
  if (!found || !found.own) return { ok: false, status: 404, message: messages.offerChangeRefused };
  if (found.offer.status !== "accepted" || !canMoveEntry(found.own.status, to)) {
    return { ok: false, status: 409, message: messages.offerChangeRefused };
  }
  if (to === "completed" && !contentUrl) return { ok: false, status: 400, message: messages.enterContentUrl };
  const now = context.now();
  const { db } = context;
  const userId = auth.user.id;
  const tellPartner = to === "completed" && found.other;
  const hosts = to === "completed" ? await hostsOf(db, offerId) : null;
  const mine = (found.role === "sender" ? hosts?.sender : hosts?.receiver) ?? "Your partner";
  // Completing means delivering: the page must link to the other party's site (docs/decisions/0015-trade-progress-and-delivery.md).
  let delivered: { link: FoundLink; targetHost: string } | null = null;
  if (to === "completed" && contentUrl) {
    const targetHost = (found.role === "sender" ? hosts?.receiver : hosts?.sender) ?? "";
    const ownHost = (found.role === "sender" ? hosts?.sender : hosts?.receiver) ?? "";
    if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, userId))) return { ok: false, status: 429, message: messages.tooManyLinkChecks };
    const inspection = await inspectDeliveredLink(context, contentUrl, targetHost, ownHost);
    if (!inspection.ok) return { ok: false, status: 422, message: inspection.message };
    delivered = { link: inspection.link, targetHost };
  }
  const [moved] = (await savedOrNull(
    db.batch([
      db
        .update(offerEntries)
        .set({
        status: to,
        updatedAt: now,
        ...(to === "completed" && delivered
          ? {
              contentUrl,
              // Watched from now on: checked daily for a year.
              linkStatus: statusOfLink(delivered.link),
              linkCheckedAt: now,
              linkDueAt: nextLinkCheck(offerId, userId, now),
              linkWatchUntil: now + LINK_WATCH_MS,
            }
          : {}),
      })
        .where(
          and(
            eq(offerEntries.offerId, offerId),
            eq(offerEntries.userId, userId),
            inArray(offerEntries.status, entryStatesBefore(to)),
            sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND status = 'accepted')`
          )
        )
        .returning({ offerId: offerEntries.offerId }),
      ...(tellPartner && found.other
        ? [
            emailToUser(
              db,
              offerEmail(
                context,
                offerId,
                `completed:${userId}`,
                found.other.userId,
                `${mine} completed their side`,
                `${mine} delivered: ${contentUrl}`,
                sql`EXISTS (SELECT 1 FROM offer_entries WHERE offer_id = ${offerId} AND user_id = ${userId} AND status = 'completed' AND updated_at = ${now})`
              ),
              now
            ),
          ]
        : []),
    ])
  )) ?? [null];
  if (moved === null) return { ok: false, status: 500, message: messages.offerSaveFailed };
  if (moved.length === 0) return { ok: false, status: 409, message: messages.offerChangeRefused };
  if (delivered && contentUrl) {
    await recordLinkCheck(db, { offerId, userId, contentUrl, targetHost: delivered.targetHost, link: delivered.link, error: null }, now).catch(
      (error) => console.error("recording a delivered link", error)
    );
  }
  deliverSoon(context);
  refreshReputationLater(context, [found.own.siteId]);
  return { ok: true, offerId };
}

/**
 * The daily job: pending offers unanswered after 14 days return their hold (NORES to the sender), then lots past
 * their date expire. Both are single statements over all rows, so a run that overlaps another does no harm.
 */
export async function expireOffersAndConnects(context: AppContext) {
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
                textBody: sql`${sites.host} || ' did not answer your offer in 14 days. The ' || ${offers.connects} || ' connects it held are back in your balance.' || char(10) || char(10) || 'See it here: ' || ${link} || ${offers.id}`,
                kind: sql`'offer'`,
                dedupeKey: sql`'offer:' || ${offers.id} || ':expired'`,
              },
              now
            )
          )
          .from(offers)
          .innerJoin(users, eq(users.id, offers.senderUserId))
          .innerJoin(sites, eq(sites.id, offers.receiverSiteId))
          // A notification: only to those who want them (the hold returns either way).
          .where(and(lapsed, eq(users.notificationEmails, true)))
      )
      .onConflictDoNothing(),
    db.update(offers).set({ status: "expired", expiredAt: now, updatedAt: now }).where(lapsed).returning({ id: offers.id }),
  ]);
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
        .where(due)
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
  return { expiredOffers: expired.length };
}
