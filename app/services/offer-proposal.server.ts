/** Sending a proposal: an offer from the user's active site for a listing, holding its price at once. */
import { and, eq } from "drizzle-orm";
import { listings, offerEntries, offers, sites } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { isUniqueConstraintError } from "~/lib/db.server";
import { newId } from "~/lib/ids";
import { messages } from "~/domain/messages";
import { ANSWER_WITHIN_MS, type Role } from "~/domain/offer-rules";
import { deliverSoon, emailToUser } from "./email.server";
import { offerEmail, withDefaultMaterial, type Outcome } from "./offer-changes.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";

export interface PartyTerms {
  contentType: string;
  materials: string[];
}

/** Who proposes: the signed-in user (whose balance pays) and their active site (which sends; none yet is null). */
export interface Proposer {
  user: { id: string; connects: number };
  site: { id: string; host: string; verified: boolean } | null;
}

function isInsufficientConnects(error: unknown) {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return text.includes("insufficient connects");
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
  if (user.connects < listing.connects) return { ok: false, status: 402, message: messages.notEnoughConnects };

  const now = context.now();
  if (!(await allow(context, RATE_LIMITS.proposalsPerSender, user.id))) {
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
        senderUserId: user.id,
        senderSiteId: sender.id,
        receiverUserId: listing.userId,
        receiverSiteId: listing.siteId,
        connects: listing.connects,
        answerBy: now + ANSWER_WITHIN_MS,
        createdAt: now,
        updatedAt: now,
      }),
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
    if (isInsufficientConnects(error)) return { ok: false, status: 402, message: messages.notEnoughConnects };
    if (isUniqueConstraintError(error)) return { ok: false, status: 409, message: messages.duplicateOffer };
    console.error("propose failed", error);
    return { ok: false, status: 500, message: messages.offerSendFailed };
  }
  deliverSoon(context);
  return { ok: true, offerId };
}
