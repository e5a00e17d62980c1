/** Listings ("posts"): a site's offer in the market, one per site (docs/decisions/0010-listings.md). */
import { listings } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { isUniqueConstraintError } from "~/lib/db.server";
import { messages } from "~/domain/messages";
import { newId } from "~/lib/ids";
import { prepareSite, type AddSiteResult, type NewSite } from "./sites.server";

/** The site-add form with source market: the site and its listing, created together. */
export async function addSiteWithListing(db: Database, site: NewSite, connects: number, now: number): Promise<AddSiteResult> {
  const prepared = prepareSite(db, site, now);
  try {
    await db.batch([
      prepared.statement,
      db.insert(listings).values({ id: newId(), siteId: prepared.id, userId: site.userId, connects, createdAt: now }),
    ]);
    return { ok: true, siteId: prepared.id };
  } catch (error) {
    if (isUniqueConstraintError(error)) return { ok: false, message: messages.websiteAlreadyAdded };
    console.error("addSiteWithListing failed", error);
    return { ok: false, message: messages.addWebsiteFailed };
  }
}
