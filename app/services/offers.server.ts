/**
 * Trading: proposals, answers, trade progress. The server decides everything: price, sender and receiver come
 * from the listing and the session, never from the browser. Connects move in database triggers
 * (migrations/0004), atomically with the status change that causes them.
 */
import { and, eq, gt, inArray, lte, sql } from "drizzle-orm";
import { connectLedger, connectLots, listings, offerEntries, offers, sites, users } from "#drizzle/schema";
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
import { sendEmail } from "./email.server";
import { loadSignedInShell } from "./layout.server";
import { newId } from "~/lib/ids";
import { hostsOf } from "./trades-read.server";

export type Outcome = { ok: true; offerId: string } | { ok: false; status: number; message: string };

export interface PartyTerms {
  contentType: string;
  materials: string[];
}

function isInsufficientConnects(error: unknown) {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return text.includes("insufficient connects");
}

const withDefaultMaterial = (materials: string[]) => (materials.length > 0 ? materials : [DEFAULT_MATERIAL]);

/** Sends a proposal for a listing from the active site; holds the price at once. */
export async function propose(
  context: AppContext,
  auth: CurrentAuth,
  input: { listingId: string; mine: PartyTerms; theirs: PartyTerms },
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
    ]);
  } catch (error) {
    if (isInsufficientConnects(error)) return { ok: false, status: 402, message: messages.notEnoughConnects };
    if (isUniqueConstraintError(error)) return { ok: false, status: 409, message: messages.duplicateOffer };
    console.error("propose failed", error);
    return { ok: false, status: 500, message: messages.offerSendFailed };
  }
  await notify(context, listing.userId, `New offer from ${sender.host}`, `${sender.host} sent you an offer for ${listing.host}.`, offerId);
  return { ok: true, offerId };
}

async function notify(context: AppContext, userId: string, subject: string, text: string, offerId: string) {
  const user = await context.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!user) return;
  const link = new URL(`/mysite/offers?offer=${offerId}`, context.env.APP_URL).toString();
  await sendEmail(context, { to: user.email, kind: "offer", subject, text: `${text}\n\nSee it here: ${link}` });
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
  requestedMaterials: string[] = [],
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
  // The guarded status change; the ledger triggers run only when it really changes the row.
  const changeStatus = db
    .update(offers)
    .set({ status: next, answeredAt: now, updatedAt: now })
    .where(and(eq(offers.id, offerId), eq(offers.status, "pending"), eq(party, auth.user.id)))
    .returning({ id: offers.id });
  let changed: { id: string }[];
  if (action === "accept") {
    const [rows] = await db.batch([
      changeStatus,
      // Stored on the sender's entry only if this very request accepted the offer.
      db
        .update(offerEntries)
        .set({ provideMaterials: withDefaultMaterial(requestedMaterials), updatedAt: now })
        .where(
          and(
            eq(offerEntries.offerId, offerId),
            eq(offerEntries.role, "sender"),
            sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND status = 'accepted' AND answered_at = ${now})`,
          ),
        ),
    ]);
    changed = rows;
  } else {
    changed = await changeStatus;
  }
  if (changed.length === 0) return { ok: false, status: 409, message: messages.offerChangeRefused };

  const hosts = await hostsOf(context.db, offerId);
  const verb = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescinded";
  const to = action === "rescind" ? offer.receiverUserId : offer.senderUserId;
  const about = action === "rescind" ? hosts?.sender : hosts?.receiver;
  const refund = action === "accept" ? "" : ` The ${offer.connects} connects it held are back in your balance.`;
  await notify(context, to, `Your offer was ${verb}`, `${about ?? "The other site"} ${verb} the offer.${action === "rescind" ? "" : refund}`, offerId);
  return { ok: true, offerId };
}

/** Moves one's own side of an accepted trade; completing needs the content url. */
export async function moveTradeEntry(
  context: AppContext,
  auth: CurrentAuth,
  offerId: string,
  to: EntryStatus,
  contentUrl: string | null,
): Promise<Outcome> {
  const found = await loadForParticipant(context, auth.user.id, offerId);
  if (!found || !found.own) return { ok: false, status: 404, message: messages.offerChangeRefused };
  if (found.offer.status !== "accepted" || !canMoveEntry(found.own.status, to)) {
    return { ok: false, status: 409, message: messages.offerChangeRefused };
  }
  if (to === "completed" && !contentUrl) return { ok: false, status: 400, message: messages.enterContentUrl };
  const now = context.now();
  const moved = await context.db
    .update(offerEntries)
    .set({ status: to, updatedAt: now, ...(to === "completed" ? { contentUrl } : {}) })
    .where(
      and(
        eq(offerEntries.offerId, offerId),
        eq(offerEntries.userId, auth.user.id),
        inArray(offerEntries.status, entryStatesBefore(to)),
        sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND status = 'accepted')`,
      ),
    )
    .returning({ offerId: offerEntries.offerId });
  if (moved.length === 0) return { ok: false, status: 409, message: messages.offerChangeRefused };
  if (to === "completed" && found.other) {
    const hosts = await hostsOf(context.db, offerId);
    const mine = found.role === "sender" ? hosts?.sender : hosts?.receiver;
    await notify(context, found.other.userId, `${mine ?? "Your partner"} completed their side`, `${mine ?? "Your partner"} delivered: ${contentUrl}`, offerId);
  }
  return { ok: true, offerId };
}

/**
 * The daily job: pending offers unanswered after 14 days return their hold (NORES to the sender), then lots past
 * their date expire. Both are single statements over all rows, so a run that overlaps another does no harm.
 */
export async function expireOffersAndConnects(context: AppContext) {
  const { db } = context;
  const now = context.now();
  const expired = await db
    .update(offers)
    .set({ status: "expired", expiredAt: now, updatedAt: now })
    .where(and(eq(offers.status, "pending"), lte(offers.answerBy, now)))
    .returning({ id: offers.id, senderUserId: offers.senderUserId, connects: offers.connects });
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
  for (const offer of expired) {
    const hosts = await hostsOf(context.db, offer.id);
    await notify(
      context,
      offer.senderUserId,
      "Your offer got no answer",
      `${hosts?.receiver ?? "The other site"} did not answer your offer in 14 days. The ${offer.connects} connects it held are back in your balance.`,
      offer.id,
    );
  }
  return { expiredOffers: expired.length };
}
