/** Answering an offer (accept, decline, rescind) and moving it to one's own trash. */
import { and, eq, gt, sql } from "drizzle-orm";
import { offerEntries, offers } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { messages } from "~/domain/messages";
import { newId } from "~/lib/ids";
import { canActOnOffer, type OfferAction } from "~/domain/offer-rules";
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
  const { offer, role, own } = found;
  if (!canActOnOffer(action, { status: offer.status, role, trashed: Boolean(own.trashedAt) })) {
    const wrongParty = (action === "rescind" && role !== "sender") || ((action === "accept" || action === "decline") && role !== "receiver");
    return { ok: false, status: wrongParty ? 403 : 409, message: messages.offerChangeRefused };
  }
  const now = context.now();

  if (action === "trash") {
    await db
      .update(offerEntries)
      .set({ trashedAt: now, updatedAt: now })
      .where(and(eq(offerEntries.offerId, offerId), eq(offerEntries.userId, user.id), sql`${offerEntries.trashedAt} IS NULL`));
    return { ok: true, offerId };
  }

  const next = action === "accept" ? "accepted" : action === "decline" ? "declined" : "rescind";
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
  const [changed] = (await savedOrNull(
    db.batch([
      // The guarded status change; the ledger triggers run only when it really changes the row. An accept must
      // come within the answer window, even before the daily job has expired the offer.
      db
        .update(offers)
        .set({ status: next, answeredAt: now, answerClaim: claim, updatedAt: now })
        .where(
          and(eq(offers.id, offerId), eq(offers.status, "pending"), eq(party, user.id), action === "accept" ? gt(offers.answerBy, now) : undefined),
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
        now,
      ),
    ]),
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
