/** Answering an offer (accept, decline, rescind) and moving it to one's own trash. */
import { and, eq, gt, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { offerEntries, offers, sites } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { messages } from "~/domain/messages";
import { newId } from "~/lib/ids";
import { canActOnOffer, type OfferAction, type OfferState } from "~/domain/offer-rules";
import { deliverSoon, emailToUser } from "./email.server";
import { offerEmail, savedOrNull, withDefaultMaterial, type Outcome } from "./offer-changes.server";
import { offerForParticipant } from "./offer-detail.server";
import { refreshReputationLater } from "./reputation.server";
import { hostsOf } from "./trades-read.server";

/** Accept (with the materials requested from the sender), decline, rescind or trash an offer of one's own sites. */
export async function actOnOffer(
  context: AppContext,
  user: { id: string },
  offerId: string,
  action: OfferAction,
  requestedMaterials: string[] = [],
): Promise<Outcome> {
  const { db } = context;
  const found = await offerForParticipant(db, user.id, offerId);
  if (!found) return { ok: false, status: 404, message: messages.offerChangeRefused };
  const { offer, role, own, other } = found;
  const next: OfferState = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescind";
  const materials = action === "accept" ? withDefaultMaterial(requestedMaterials) : [];
  if (!canActOnOffer(action, { status: offer.status, role, trashed: Boolean(own.trashedAt) })) {
    const wrongParty = (action === "rescind" && role !== "sender") || ((action === "accept" || action === "decline") && role !== "receiver");
    if (wrongParty) return { ok: false, status: 403, message: messages.offerChangeRefused };
    // The same answer sent twice (a second click, another tab): done, and the page shows the offer as it is.
    const alreadySo = action === "trash" ? Boolean(own.trashedAt) : offer.status === next && sameAnswer(action, materials, other.provideMaterials);
    if (alreadySo) return { ok: true, offerId };
    if (action === "accept" && offer.status === "expired") return { ok: false, status: 409, message: messages.offerAnswerWindowOver };
    return { ok: false, status: 409, message: messages.offerChangeRefused };
  }
  const now = context.now();

  if (action === "trash") {
    await db
      .update(offerEntries)
      .set({ trashedAt: now, updatedAt: now })
      .where(and(eq(offerEntries.offerId, offerId), eq(offerEntries.userId, user.id), sql`${offerEntries.trashedAt} IS NULL`));
    return { ok: true, offerId };
  }

  const party = action === "rescind" ? offers.senderUserId : offers.receiverUserId;
  // What the rest of the batch may do only if this very request changed the offer: its own mark, since two answers
  // in the same millisecond share answered_at (docs/decisions/0053-writes-that-overlap.md).
  const claim = newId();
  const changedHere = sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND answer_claim = ${claim})`;
  const hosts = await hostsOf(db, offerId);
  const verb = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescinded";
  const to = action === "rescind" ? offer.receiverUserId : offer.senderUserId;
  const about = action === "rescind" ? hosts?.sender : hosts?.receiver;
  const refund =
    action === "rescind" || action === "accept"
      ? ""
      : ` The ${offer.connects} connects it held are back in your balance, apart from any whose year has run out or that a refund of their payment took back.`;
  // Trading needs both sites verified (the specification): an accept is refused while either has lost its
  // verification since the proposal (taken over by another account, or failed its re-checks).
  const bothVerified = and(
    sql`EXISTS (SELECT 1 FROM sites WHERE sites.id = ${offers.receiverSiteId} AND sites.verified = 1)`,
    sql`EXISTS (SELECT 1 FROM sites WHERE sites.id = ${offers.senderSiteId} AND sites.verified = 1)`,
  );
  const [changed] = (await savedOrNull(
    db.batch([
      // The guarded status change; the ledger triggers run only when it really changes the row. An accept must
      // come within the answer window, even before the daily job has expired the offer.
      db
        .update(offers)
        .set({ status: next, answeredAt: now, answerClaim: claim, updatedAt: now })
        .where(
          and(
            eq(offers.id, offerId),
            eq(offers.status, "pending"),
            eq(party, user.id),
            action === "accept" ? and(gt(offers.answerBy, now), bothVerified) : undefined,
          ),
        )
        .returning({ id: offers.id }),
      ...(action === "accept"
        ? [
            db
              .update(offerEntries)
              .set({ provideMaterials: materials, updatedAt: now })
              .where(and(eq(offerEntries.offerId, offerId), eq(offerEntries.role, "sender"), changedHere)),
          ]
        : []),
      emailToUser(
        db,
        offerEmail(
          context,
          offerId,
          verb,
          to,
          // A rescind goes to the receiver, whose offer it never was.
          action === "rescind" ? "An offer you received was rescinded" : `Your offer was ${verb}`,
          `${about ?? "The other site"} ${verb} the offer.${refund}`,
          changedHere,
        ),
        now,
      ),
    ]),
  )) ?? [null];
  if (changed === null) return { ok: false, status: 500, message: messages.offerSaveFailed };
  if (changed.length === 0) return notChanged(context, offerId, { action, next, materials }, now);
  deliverSoon(context);
  // The receiver's answer time is part of its record.
  if (action !== "rescind") refreshReputationLater(context, [offer.receiverSiteId]);
  return { ok: true, offerId };
}

/**
 * Whether an answer already given is this one: the same action, and for an accept the same materials asked for (a
 * second accept that asked for others was not what happened, and is refused).
 */
function sameAnswer(action: OfferAction, materials: string[], saved: string[]) {
  return action !== "accept" || (materials.length === saved.length && materials.every((id) => saved.includes(id)));
}

/** Why an answer changed nothing: the offer as it is now, read after the guarded update found it otherwise. */
async function notChanged(
  context: AppContext,
  offerId: string,
  answer: { action: OfferAction; next: OfferState; materials: string[] },
  now: number,
): Promise<Outcome> {
  const { db } = context;
  const { action } = answer;
  const receiverSite = alias(sites, "receiver_site");
  const senderSite = alias(sites, "sender_site");
  const [current] = await db
    .select({
      status: offers.status,
      answerBy: offers.answerBy,
      receiverVerified: receiverSite.verified,
      senderVerified: senderSite.verified,
      senderHost: senderSite.host,
      askedOfSender: offerEntries.provideMaterials,
    })
    .from(offers)
    .innerJoin(receiverSite, eq(receiverSite.id, offers.receiverSiteId))
    .innerJoin(senderSite, eq(senderSite.id, offers.senderSiteId))
    .innerJoin(offerEntries, and(eq(offerEntries.offerId, offers.id), eq(offerEntries.role, "sender")))
    .where(eq(offers.id, offerId));
  // Answered the same way meanwhile (the same form sent twice at once): done.
  if (current?.status === answer.next && sameAnswer(action, answer.materials, current.askedOfSender)) return { ok: true, offerId };
  if (action === "accept" && current && (current.status === "expired" || (current.status === "pending" && current.answerBy <= now))) {
    return { ok: false, status: 409, message: messages.offerAnswerWindowOver };
  }
  if (action === "accept" && current?.status === "pending") {
    if (!current.receiverVerified) return { ok: false, status: 403, message: messages.verifyYourWebsite, help: "verify" };
    if (!current.senderVerified) return { ok: false, status: 409, message: messages.senderNoLongerVerified(current.senderHost) };
  }
  return { ok: false, status: 409, message: messages.offerChangeRefused };
}
