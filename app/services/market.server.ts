/** The market: listings of verified sites other than the viewer's own, newest first. */
import { and, desc, eq, lt, ne, or } from "drizzle-orm";
import { listings, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { shownScore } from "./sites.server";

export const MARKET_PAGE_SIZE = 24;

const postColumns = {
  id: listings.id,
  connects: listings.connects,
  contentTypes: listings.contentTypes,
  materials: listings.materials,
  createdAt: listings.createdAt,
  siteId: sites.id,
  url: sites.url,
  host: sites.host,
  description: sites.description,
  category: sites.category,
  icon: sites.icon,
  score: shownScore,
  tags: sites.tags,
};

const tradable = (viewerUserId: string) => and(eq(listings.active, true), eq(sites.verified, true), ne(listings.userId, viewerUserId));

export async function listMarket(db: Database, viewerUserId: string, before?: { createdAt: number; id: string }) {
  const rows = await db
    .select(postColumns)
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(
      and(
        tradable(viewerUserId),
        before ? or(lt(listings.createdAt, before.createdAt), and(eq(listings.createdAt, before.createdAt), lt(listings.id, before.id))) : undefined
      )
    )
    .orderBy(desc(listings.createdAt), desc(listings.id))
    .limit(MARKET_PAGE_SIZE + 1)
    .all();
  const page = rows.slice(0, MARKET_PAGE_SIZE);
  const last = page.at(-1);
  return { posts: page, next: rows.length > MARKET_PAGE_SIZE && last ? `${last.createdAt}_${last.id}` : null };
}

/** One post for the trade terms panel; only a post the viewer could trade with. */
export function getMarketPost(db: Database, viewerUserId: string, listingId: string) {
  return db
    .select(postColumns)
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(and(eq(listings.id, listingId), tradable(viewerUserId)))
    .get();
}

export type MarketPost = NonNullable<Awaited<ReturnType<typeof getMarketPost>>>;

export function parseCursor(value: string | null): { createdAt: number; id: string } | undefined {
  const match = value?.match(/^(\d{1,15})_([\w-]{1,64})$/);
  return match ? { createdAt: Number(match[1]), id: match[2] as string } : undefined;
}
