/** Listings ("posts"): a site's offer in the market, one per site (docs/decisions/0010-listings.md). */
import { and, eq } from "drizzle-orm";
import { listings, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { isUniqueConstraintError } from "~/lib/db.server";
import { messages } from "~/domain/messages";
import { isOtherBlog } from "~/domain/site-address";
import { newId } from "~/lib/ids";
import { listingUpsert, prepareSite, sameHostRefusal, type NewSite } from "./sites.server";

/**
 * The site-add form with source market: the site and its listing, created together. A site the user already has is
 * listed (or listed again) at this price, with the category and description of the form (`existing` then). `verified`:
 * whether others see it in the market now.
 */
export async function addSiteWithListing(
  db: Database,
  site: NewSite,
  connects: number,
  now: number,
): Promise<{ ok: true; siteId: string; existing: boolean; verified: boolean } | { ok: false; message: string }> {
  const prepared = prepareSite(db, site, now);
  const own = await db
    .select({ id: sites.id, url: sites.url })
    .from(sites)
    .where(and(eq(sites.userId, site.userId), eq(sites.host, prepared.host)))
    .get();
  // Another blog on the same platform (medium.com/@someone-else) is not the site the user has.
  if (own && isOtherBlog(prepared.host, own.url, site.url)) {
    return { ok: false, message: messages.siteOnHostAlready(prepared.host) };
  }
  try {
    if (own) {
      // Whether it is verified as the batch leaves it (a re-check may have changed it since the read above).
      const [updated] = await db.batch([
        db
          .update(sites)
          .set({ category: site.category, description: site.description.trim() })
          .where(and(eq(sites.id, own.id), eq(sites.userId, site.userId)))
          .returning({ verified: sites.verified }),
        listingUpsert(db, site.userId, own.id, connects, now),
      ]);
      // Deleted from another tab in between: nothing was listed.
      if (!updated[0]) return { ok: false, message: messages.addWebsiteFailed };
      return { ok: true, siteId: own.id, existing: true, verified: updated[0].verified };
    }
    await db.batch([
      prepared.statement,
      db.insert(listings).values({ id: newId(), siteId: prepared.id, userId: site.userId, connects, createdAt: now }),
    ]);
    return { ok: true, siteId: prepared.id, existing: false, verified: false };
  } catch (error) {
    // A site on the same host added at the same moment from another tab: that site, or another blog on medium.com.
    if (isUniqueConstraintError(error)) return { ok: false, message: await sameHostRefusal(db, site) };
    console.error("addSiteWithListing failed", error);
    return { ok: false, message: messages.addWebsiteFailed };
  }
}
