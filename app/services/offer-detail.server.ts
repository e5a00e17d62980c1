/** One offer as one of its participants sees it: the single way an offer is read for a user. */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import { offerEntries, offers, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { offerStatusCode, type EntryStatus, type Role } from "~/domain/offer-rules";
import type { OfferDetail, OfferSide } from "~/domain/offer-view";
import { recordColumns } from "./reputation.server";
import { shownScore } from "./sites.server";
import { linkHistoryOf } from "./delivered-links.server";

/**
 * The offer, the user's role in it and both sides' entries, in one round trip; null for anyone but its two
 * participants (the users who sent and received it), and for an offer that does not exist.
 */
export async function offerForParticipant(db: Database, userId: string, offerId: string) {
  const [[offer], entries] = await db.batch([
    db
      .select()
      .from(offers)
      .where(and(eq(offers.id, offerId), or(eq(offers.senderUserId, userId), eq(offers.receiverUserId, userId))))
      .limit(1),
    db.select().from(offerEntries).where(eq(offerEntries.offerId, offerId)),
  ]);
  if (!offer) return null;
  const own = entries.find((entry) => entry.userId === userId);
  const other = entries.find((entry) => entry.userId !== userId);
  if (!own || !other) return null;
  const role: Role = offer.senderUserId === userId ? "sender" : "receiver";
  return { offer, role, own, other };
}

export type ParticipantOffer = NonNullable<Awaited<ReturnType<typeof offerForParticipant>>>;

const profileColumns = {
  id: sites.id,
  url: sites.url,
  host: sites.host,
  icon: sites.icon,
  score: shownScore,
  description: sites.description,
  tags: sites.tags,
  contentTypes: sites.contentTypes,
  materials: sites.materials,
  verified: sites.verified,
  record: recordColumns,
};

/** What the offer panel shows of an offer its participant has loaded: both sides, both sites and the link checks. */
async function detailOf(db: Database, { offer, role, own, other }: ParticipantOffer): Promise<OfferDetail | null> {
  const [siteRows, history] = await Promise.all([
    db
      .select(profileColumns)
      .from(sites)
      .where(inArray(sites.id, [offer.senderSiteId, offer.receiverSiteId]))
      .all(),
    offer.status === "accepted" ? linkHistoryOf(db, offer.id, [own.userId, other.userId]) : [],
  ]);
  const ownSite = siteRows.find((site) => site.id === (role === "sender" ? offer.senderSiteId : offer.receiverSiteId));
  const otherSite = siteRows.find((site) => site.id === (role === "sender" ? offer.receiverSiteId : offer.senderSiteId));
  if (!ownSite || !otherSite) return null;
  const side = (entry: typeof own): OfferSide => {
    // The history is newest first: each side's first row is its latest check.
    const check = history.find((row) => row.userId === entry.userId);
    return {
      contentType: entry.createContentType,
      materials: entry.provideMaterials,
      status: entry.status as EntryStatus,
      contentUrl: entry.contentUrl,
      linkStatus: entry.linkStatus,
      link: check
        ? {
            state: check.state,
            rel: check.rel,
            hidden: check.hidden,
            anchorText: check.anchorText,
            targetHost: check.targetHost,
            checkedAt: check.checkedAt,
          }
        : null,
    };
  };
  return {
    id: offer.id,
    status: offer.status,
    connects: offer.connects,
    createdAt: offer.createdAt,
    answerBy: offer.answerBy,
    role,
    trashed: Boolean(own.trashedAt),
    code: offerStatusCode({ status: offer.status, trashed: Boolean(own.trashedAt), entries: [own.status, other.status] }),
    own: side(own),
    other: side(other),
    linkHistory: history.map((check) => ({ ...check, mine: check.userId === own.userId })),
    ownSite,
    otherSite,
  };
}

/** The offer panel's offer for this user, or null when it is not one of theirs. */
export async function offerDetail(db: Database, userId: string, offerId: string): Promise<OfferDetail | null> {
  const found = await offerForParticipant(db, userId, offerId);
  return found ? detailOf(db, found) : null;
}

/** The user's own site in an offer they take part in; null for anyone else, and for an offer that does not exist. */
export async function ownSiteOfOffer(db: Database, userId: string, offerId: string): Promise<string | null> {
  const row = await db
    .select({ siteId: sql<string>`CASE WHEN ${offers.senderUserId} = ${userId} THEN ${offers.senderSiteId} ELSE ${offers.receiverSiteId} END` })
    .from(offers)
    .where(and(eq(offers.id, offerId), or(eq(offers.senderUserId, userId), eq(offers.receiverUserId, userId))))
    .get();
  return row?.siteId ?? null;
}
