/** The owner's dashboard: counters, the offers and trades lists, and suggestions of sites to trade with. */
import { and, desc, eq, isNull, ne, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { listings, offerEntries, offers, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { countOffers } from "~/domain/offer-status";
import { ftsPhrase, tagToken } from "~/domain/search";
import { SUGGESTIONS_PER_SECTION, tagOfTheDay, TOO_FEW_TAG_MATCHES } from "~/domain/suggestions";

const senderSite = alias(sites, "sender_site");
const receiverSite = alias(sites, "receiver_site");

/** Offers involving the site that this user has not trashed, newest first. */
export async function listSiteOffers(db: Database, userId: string, siteId: string) {
  const rows = await db
    .select({
      id: offers.id,
      status: offers.status,
      connects: offers.connects,
      createdAt: offers.createdAt,
      expiredAt: offers.expiredAt,
      senderSiteId: offers.senderSiteId,
      receiverSiteId: offers.receiverSiteId,
      senderHost: senderSite.host,
      receiverHost: receiverSite.host,
    })
    .from(offers)
    .innerJoin(senderSite, eq(senderSite.id, offers.senderSiteId))
    .innerJoin(receiverSite, eq(receiverSite.id, offers.receiverSiteId))
    .leftJoin(offerEntries, and(eq(offerEntries.offerId, offers.id), eq(offerEntries.userId, userId)))
    .where(and(or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId)), isNull(offerEntries.trashedAt)))
    .orderBy(desc(offers.createdAt))
    .limit(200)
    .all();
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    connects: row.connects,
    createdAt: row.createdAt,
    sent: row.senderSiteId === siteId,
    otherHost: row.senderSiteId === siteId ? row.receiverHost : row.senderHost,
    senderSiteId: row.senderSiteId,
    receiverSiteId: row.receiverSiteId,
  }));
}

const suggestionColumns = {
  id: sites.id,
  url: sites.url,
  description: sites.description,
  category: sites.category,
  icon: sites.icon,
  score: sites.score,
  listingId: listings.id,
  connects: listings.connects,
};

/** Five random tradable sites, optionally only those with a tag (through the search index). */
function randomSites(db: Database, userId: string, tag: string | null) {
  const base = and(eq(sites.verified, true), ne(sites.userId, userId));
  const withTag = tag
    ? sql`${sites.searchRowid} IN (SELECT rowid FROM site_search WHERE site_search MATCH ${ftsPhrase(tagToken(tag))})`
    : undefined;
  return db
    .select(suggestionColumns)
    .from(sites)
    .innerJoin(listings, and(eq(listings.siteId, sites.id), eq(listings.active, true)))
    .where(and(base, withTag))
    .orderBy(sql`random()`)
    .limit(SUGGESTIONS_PER_SECTION)
    .all();
}

/** 'Try these sites about {tag}' with the day's tag, or 'Try these sites' when it matches too few; and 'Try something new'. */
export async function suggestionsFor(db: Database, userId: string, siteTags: string[], now: number) {
  const tag = tagOfTheDay(siteTags, now);
  const [tagged, something] = await Promise.all([tag ? randomSites(db, userId, tag) : Promise.resolve([]), randomSites(db, userId, null)]);
  const enough = tagged.length > TOO_FEW_TAG_MATCHES;
  return {
    tag: enough ? tag : null,
    matched: enough ? tagged : await randomSites(db, userId, null),
    somethingNew: something,
  };
}

export async function dashboardFor(db: Database, userId: string, siteId: string) {
  const siteOffers = await listSiteOffers(db, userId, siteId);
  return {
    counts: countOffers(siteOffers, siteId),
    trades: siteOffers.filter((offer) => offer.status === "accepted"),
    offers: siteOffers.filter((offer) => offer.status !== "accepted").reverse(),
  };
}

