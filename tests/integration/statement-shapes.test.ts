import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { database } from "~/lib/db.server";
import { sessionIdOf } from "~/services/sessions.server";
import { dashboardQueries, dashboardStatements } from "~/services/dashboard.server";
import { marketPageOf, marketPageQuery, marketPageStatements, marketPostQuery, marketPostStatements } from "~/services/market.server";
import { FIRST_PAGES, offerListsQueries, offerListsStatements } from "~/services/offer-lists.server";
import { scoreHistoryQuery, scorePageStatements, scoreRunsQuery } from "~/services/audit.server";
import { listSite, propose, SESSION_COOKIE, trader, uniqueHost } from "./helpers";

/** The statements a signed-in page reads in the session's round trip, built once, against the same built each time. */
describe("statements built once (statement shapes)", () => {
  async function tradersWithAnOffer() {
    const one = await trader();
    const other = await trader();
    // The other's listing is of their own (active) site, so the offer is on both users' dashboards.
    const listing = { listingId: crypto.randomUUID() };
    await env.DB.prepare(
      "INSERT INTO listings (id, site_id, user_id, connects, content_types, materials) VALUES (?, ?, ?, 10, '[\"blog-post\"]', '[\"logo\"]')",
    )
      .bind(listing.listingId, other.siteId, other.userId)
      .run();
    for (let i = 0; i < 30; i += 1) await listSite((await trader()).userId, { host: uniqueHost("market"), tags: ["seo", "ai"] });
    expect((await propose(one.cookie, listing.listingId)).status).toBe(302);
    const session = (cookie: string) => sessionIdOf(cookie.slice(`${SESSION_COOKIE}=`.length));
    return { one: { ...one, sessionId: session(one.cookie) }, other: { ...other, sessionId: session(other.cookie), listing } };
  }

  it("read what the query builders read, for each user in turn, never rows filled in for another", async () => {
    const db = database(env.DB);
    const { one, other } = await tradersWithAnOffer();
    const now = Date.now();
    // One, the other and one again: a shape filled for one user must not answer the next.
    for (const user of [one, other, one]) {
      const viewer = { sessionId: user.sessionId, siteId: null };
      const ids = { userId: user.userId, siteId: user.siteId };
      const random = () => 0.4;

      const shaped = await db.batch(dashboardStatements(db, viewer, now, "Pacific/Auckland", random));
      const built = await db.batch(dashboardQueries(db, ids, now, "Pacific/Auckland", random));
      expect(shaped).toEqual(built);
      const [offerRows, tradeRows, sides, , tagged, any] = shaped;
      // The offer between the two is on both dashboards, and neither is suggested its own site.
      expect([...offerRows, ...tradeRows]).toHaveLength(1);
      expect(sides).toHaveLength(1);
      expect([...tagged, ...any].length).toBeGreaterThan(0);
      expect([...tagged, ...any].every((row) => row.siteId !== user.siteId)).toBe(true);

      expect(await db.batch(offerListsStatements(db, viewer, FIRST_PAGES))).toEqual(
        await db.batch(offerListsQueries(db, ids.userId, ids.siteId, FIRST_PAGES)),
      );
      expect(await db.batch(scorePageStatements(db, viewer, 10, 60))).toEqual(
        await db.batch([scoreRunsQuery(db, ids.siteId, 10), scoreHistoryQuery(db, ids.siteId, 60)]),
      );
    }
  });

  it("read the lists of the site the request already knows, after an action, and otherwise of the session's active site", async () => {
    const db = database(env.DB);
    const { one } = await tradersWithAnOffer();
    const second = await listSite(one.userId, { host: uniqueHost("second") });
    const listsOf = async (siteId: string | null) => {
      const [offerRows, tradeRows] = await db.batch(offerListsStatements(db, { sessionId: one.sessionId, siteId }, FIRST_PAGES));
      return [...offerRows, ...tradeRows].length;
    };
    // The session's active site is the first one, which sent the offer.
    expect(await listsOf(null)).toBe(1);
    expect(await listsOf(one.siteId)).toBe(1);
    expect(await listsOf(second.siteId)).toBe(0);
  });

  it("page the market as the query builder does, and open a post only for someone else's listing", async () => {
    const db = database(env.DB);
    const { one, other } = await tradersWithAnOffer();
    const viewer = { sessionId: one.sessionId, siteId: null };
    const [firstShaped] = await db.batch(marketPageStatements(db, viewer, null));
    const [firstBuilt] = await db.batch([marketPageQuery(db, one.userId, null)]);
    expect(firstShaped).toEqual(firstBuilt);
    expect(firstShaped.every((post) => post.siteId !== one.siteId)).toBe(true);
    // A full page and one row more: the next page starts with that row.
    expect(firstShaped).toHaveLength(25);
    const { posts } = marketPageOf(firstShaped);
    const cursor = { at: posts.at(-1)!.createdAt, id: posts.at(-1)!.id };
    const [nextShaped] = await db.batch(marketPageStatements(db, viewer, cursor));
    expect(nextShaped).toEqual((await db.batch([marketPageQuery(db, one.userId, cursor)]))[0]);
    expect(nextShaped[0]?.id).toBe(firstShaped[24]?.id);

    const [[post]] = await db.batch(marketPostStatements(db, viewer, other.listing.listingId));
    expect(post).toEqual((await db.batch([marketPostQuery(db, one.userId, other.listing.listingId)]))[0][0]);
    expect(post?.id).toBe(other.listing.listingId);
    const [ownPost] = await db.batch(marketPostStatements(db, { sessionId: other.sessionId, siteId: null }, other.listing.listingId));
    expect(ownPost).toEqual([]);
  });
});
