/** Sending a proposal: an offer from the user's active site for a listing, holding its price at once. */
import { and, eq, exists, gte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { listings, offerEntries, offers, sites } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { databaseErrorSays, isForeignKeyError, isUniqueConstraintError } from "~/lib/db.server";
import { newId } from "~/lib/ids";
import { messages } from "~/domain/messages";
import { ANSWER_WITHIN_MS, type Role } from "~/domain/offer-rules";
import { deliverSoon, emailToUser } from "./email.server";
import { offerEmail, withDefaultMaterial, type Outcome } from "./offer-changes.server";
import { allow, RATE_LIMITS, refund } from "./rate-limit.server";

const senderSite = alias(sites, "sender_site");

export interface PartyTerms {
  contentType: string;
  materials: string[];
}

/** Who proposes: the signed-in user (whose balance pays) and their active site (which sends; none yet is null). */
export interface Proposer {
  user: { id: string; connects: number };
  site: { id: string; host: string; verified: boolean } | null;
}

/**
 * The answer to a proposal whose offer was not made because the post or the sender's site changed between the
 * proposal's read and its batch (the price, the listing taken down, a verification lost).
 */
async function changedMeanwhile(context: AppContext, { user, site }: Proposer, listingId: string, price: number): Promise<Outcome> {
  const { db } = context;
  const [own, listing] = await db.batch([
    db
      .select({ verified: sites.verified })
      .from(sites)
      .where(and(eq(sites.id, site!.id), eq(sites.userId, user.id))),
    db
      .select({ connects: listings.connects })
      .from(listings)
      .innerJoin(sites, eq(sites.id, listings.siteId))
      .where(and(eq(listings.id, listingId), eq(listings.active, true), eq(sites.verified, true))),
  ]);
  // A site deleted meanwhile (from another tab) sends nothing; one that lost its verification is verified again.
  if (!own[0]) return { ok: false, status: 409, message: messages.couldNotSendOffer };
  if (!own[0].verified) return { ok: false, status: 403, message: messages.verifyYourWebsite };
  if (listing[0] && listing[0].connects !== price) return { ok: false, status: 409, message: messages.priceChanged(listing[0].connects) };
  return { ok: false, status: 409, message: messages.couldNotSendOffer };
}

/** How soon the same proposal again is the same sending (a second click of Send before the page changed). */
const RESENT_WITHIN_MS = 60_000;

const sameTerms = (stored: { createContentType: string; provideMaterials: string[] }, terms: PartyTerms) =>
  stored.createContentType === terms.contentType &&
  [...stored.provideMaterials].sort().join() === [...withDefaultMaterial(terms.materials)].sort().join();

/**
 * The pending offer this proposal repeats, when the proposer sent the very same one (same sites, post, price and
 * terms) within the last minute: Send pressed twice without JavaScript posts twice, and the browser shows the second
 * answer. That one is then the first's "Offer sent", not a refusal of an offer the user did send.
 */
async function sameProposalJustSent(
  context: AppContext,
  proposal: { userId: string; senderSiteId: string; listingId: string; price: number; mine: PartyTerms; theirs: PartyTerms },
): Promise<string | null> {
  const entries = await context.db
    .select({
      offerId: offers.id,
      role: offerEntries.role,
      createContentType: offerEntries.createContentType,
      provideMaterials: offerEntries.provideMaterials,
    })
    .from(offers)
    .innerJoin(offerEntries, eq(offerEntries.offerId, offers.id))
    .where(
      and(
        eq(offers.senderSiteId, proposal.senderSiteId),
        eq(offers.senderUserId, proposal.userId),
        eq(offers.listingId, proposal.listingId),
        eq(offers.status, "pending"),
        eq(offers.connects, proposal.price),
        gte(offers.createdAt, context.now() - RESENT_WITHIN_MS),
      ),
    );
  const sender = entries.find((entry) => entry.role === "sender");
  const receiver = entries.find((entry) => entry.role === "receiver");
  return sender && receiver && sameTerms(sender, proposal.mine) && sameTerms(receiver, proposal.theirs) ? sender.offerId : null;
}

function isInsufficientConnects(error: unknown) {
  return databaseErrorSays(error, /insufficient connects/);
}

/**
 * Sends a proposal for a listing from the proposer's site; holds the price at once. `price` is the price the sender was
 * shown: when the owner has changed it since, nothing is sent and the answer names the new one.
 */
export async function propose(
  context: AppContext,
  { user, site: sender }: Proposer,
  input: { listingId: string; price?: number; mine: PartyTerms; theirs: PartyTerms },
): Promise<Outcome> {
  const { db } = context;
  if (!sender) return { ok: false, status: 400, message: messages.couldNotSendOffer };
  if (!sender.verified) return { ok: false, status: 403, message: messages.verifyYourWebsite };

  const listing = await db
    .select({ id: listings.id, connects: listings.connects, userId: listings.userId, siteId: sites.id, host: sites.host })
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(and(eq(listings.id, input.listingId), eq(listings.active, true), eq(sites.verified, true)))
    .get();
  if (!listing || listing.userId === user.id) return { ok: false, status: 404, message: messages.couldNotSendOffer };
  if (input.price !== undefined && input.price !== listing.connects) {
    return { ok: false, status: 409, message: messages.priceChanged(listing.connects) };
  }
  // The same proposal sent a moment ago (Send pressed twice) is this one, sent: its hold may be why the balance is short.
  const sentJustBefore = async (): Promise<Outcome | null> => {
    const offerId = await sameProposalJustSent(context, {
      userId: user.id,
      senderSiteId: sender.id,
      listingId: listing.id,
      price: listing.connects,
      mine: input.mine,
      theirs: input.theirs,
    });
    return offerId ? { ok: true, offerId } : null;
  };
  if (user.connects < listing.connects) return (await sentJustBefore()) ?? { ok: false, status: 402, message: messages.notEnoughConnects };

  const now = context.now();
  if (!(await allow(context, RATE_LIMITS.proposalsPerSender, user.id))) {
    return (await sentJustBefore()) ?? { ok: false, status: 429, message: messages.tooManyProposals };
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
      // Only while what was read above still holds: the post listed at that price on a verified site, and the
      // sender's site theirs and verified. Otherwise no offer, and its entries (which reference it) fail the batch
      // (docs/decisions/0051-writes-recheck-what-they-read.md).
      db.insert(offers).select(
        db
          .select({
            id: sql<string>`${offerId}`.as("id"),
            listingId: listings.id,
            senderUserId: sql<string>`${user.id}`.as("sender_user_id"),
            senderSiteId: sql<string>`${sender.id}`.as("sender_site_id"),
            receiverUserId: listings.userId,
            receiverSiteId: listings.siteId,
            connects: listings.connects,
            status: sql<"pending">`'pending'`.as("status"),
            answerBy: sql<number>`${now + ANSWER_WITHIN_MS}`.as("answer_by"),
            answeredAt: sql<null>`NULL`.as("answered_at"),
            expiredAt: sql<null>`NULL`.as("expired_at"),
            answerClaim: sql<null>`NULL`.as("answer_claim"),
            createdAt: sql<number>`${now}`.as("created_at"),
            updatedAt: sql<number>`${now}`.as("updated_at"),
          })
          .from(listings)
          .innerJoin(sites, eq(sites.id, listings.siteId))
          .where(
            and(
              eq(listings.id, listing.id),
              eq(listings.active, true),
              eq(listings.connects, listing.connects),
              eq(sites.verified, true),
              exists(
                db
                  .select({ one: sql`1` })
                  .from(senderSite)
                  .where(and(eq(senderSite.id, sender.id), eq(senderSite.userId, user.id), eq(senderSite.verified, true))),
              ),
            ),
          ),
      ),
      entry(user.id, sender.id, "sender", input.mine),
      entry(listing.userId, listing.siteId, "receiver", input.theirs),
      emailToUser(
        db,
        offerEmail(
          context,
          offerId,
          "proposed",
          listing.userId,
          `New offer from ${sender.host}`,
          `${sender.host} sent you an offer for ${listing.host}.`,
        ),
        now,
      ),
    ]);
  } catch (error) {
    // Nothing was sent: the attempt does not count against the hourly limit (a refused duplicate or a post changed
    // meanwhile would otherwise bring "20 offers this hour" sooner than 20 offers).
    await refund(db, RATE_LIMITS.proposalsPerSender, user.id, now).catch((failure) => console.error("proposal limit refund", failure));
    if (isInsufficientConnects(error)) return { ok: false, status: 402, message: messages.notEnoughConnects };
    if (isUniqueConstraintError(error)) return (await sentJustBefore()) ?? { ok: false, status: 409, message: messages.duplicateOffer };
    if (isForeignKeyError(error)) return changedMeanwhile(context, { user, site: sender }, listing.id, listing.connects);
    console.error("propose failed", error);
    return { ok: false, status: 500, message: messages.offerSendFailed };
  }
  deliverSoon(context);
  return { ok: true, offerId };
}
