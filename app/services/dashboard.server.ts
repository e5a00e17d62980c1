/** The owner's dashboard: counters, the offers and trades lists, and suggestions of sites to trade with. */
import { and, eq, ne, sql } from "drizzle-orm";
import { listings, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { countOffers } from "~/domain/offer-status";
import { ftsPhrase, tagToken } from "~/domain/search";
import { offerSidesOf, offersAndTrades } from "./trades-read.server";
import { SUGGESTIONS_PER_SECTION, tagOfTheDay, TOO_FEW_TAG_MATCHES } from "~/domain/suggestions";
import { shownScore } from "./sites.server";

const suggestionColumns = {
  id: sites.id,
  url: sites.url,
  description: sites.description,
  category: sites.category,
  icon: sites.icon,
  score: shownScore,
  listingId: listings.id,
  connects: listings.connects,
};

/** Five random tradable sites, optionally only those with a tag (through the search index). */
function randomSites(db: Database, userId: string, tag: string | null) {
  const base = and(eq(sites.verified, true), ne(sites.userId, userId));
  const withTag = tag ? sql`${sites.searchRowid} IN (SELECT rowid FROM site_search WHERE site_search MATCH ${ftsPhrase(tagToken(tag))})` : undefined;
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
export async function suggestionsFor(db: Database, userId: string, siteTags: string[], now: number, timeZone: string) {
  const tag = tagOfTheDay(siteTags, now, timeZone);
  const [tagged, something] = await Promise.all([tag ? randomSites(db, userId, tag) : Promise.resolve([]), randomSites(db, userId, null)]);
  const enough = tagged.length > TOO_FEW_TAG_MATCHES;
  return {
    tag: enough ? tag : null,
    matched: enough ? tagged : await randomSites(db, userId, null),
    somethingNew: something,
  };
}

/** The counters (over every offer of the site) and the two lists (the same rows as the Offers page). */
export async function dashboardFor(db: Database, userId: string, siteId: string) {
  const [{ offers: open, trades }, sides] = await Promise.all([offersAndTrades(db, userId, siteId), offerSidesOf(db, siteId)]);
  return { counts: countOffers(sides, siteId), trades, offers: open };
}
