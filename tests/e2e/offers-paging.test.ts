import { describe, expect, it } from "vitest";
import { OFFER_PAGE_SIZE } from "~/services/offer-lists.server";
import { logIn, modes, openPage, sharedChromium, sql, twoVerifiedTraders, unexpected } from "./browser";

const chromium = sharedChromium();

/** More offers than a page holds, sent by the buyer's site to the seller's a minute apart (made in the database). */
function seedOffers(buyerHost: string, sellerHost: string) {
  const prefix = `pg-${crypto.randomUUID().slice(0, 8)}`;
  const count = OFFER_PAGE_SIZE + 2;
  const start = Date.now() - 30 * 24 * 60 * 60_000;
  sql(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, created_at, updated_at)
     SELECT '${prefix}-' || printf('%03d', i), b.user_id, b.id, s.user_id, s.id, 0, 'declined', ${start} + i * 60000 + 1, ${start} + i * 60000, ${start} + i * 60000
     FROM n, sites b, sites s WHERE b.host = '${buyerHost}' AND s.host = '${sellerHost}';
     INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, provide_materials, updated_at)
     SELECT id, sender_user_id, sender_site_id, 'sender', 'blog-post', '["logo"]', created_at FROM offers WHERE id LIKE '${prefix}-%';
     INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, provide_materials, updated_at)
     SELECT id, receiver_user_id, receiver_site_id, 'receiver', 'feature', '["logo"]', created_at FROM offers WHERE id LIKE '${prefix}-%';`,
  );
  return Array.from({ length: count }, (_, i) => `${prefix}-${String(i + 1).padStart(3, "0")}`);
}

describe.each(modes)("the Offers list's pages $name", ({ js }) => {
  it("goes to the next page and back to the first, oldest first, keeping the page while an offer is open", async () => {
    const { buyer, seller } = await twoVerifiedTraders("paging");
    const oldestFirst = seedOffers(buyer.host, seller.host);
    const side = await openPage(chromium(), js);
    const { page } = side;
    await logIn(page, buyer.email);
    const shownIds = async () =>
      (await page.locator("#offers-title + .offer-list a").evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""))).map((href) =>
        new URLSearchParams(href.split("?")[1]).get("offer"),
      );
    const pages = page.getByRole("navigation", { name: "Pages of offers" });

    await page.goto("/mysite/offers");
    expect(await shownIds()).toEqual(oldestFirst.slice(0, OFFER_PAGE_SIZE));
    // With JavaScript the link is followed without reloading the page: the marker survives.
    await page.evaluate(() => Object.assign(window, { pagingMarker: true }));
    await pages.getByRole("link", { name: "Next page" }).click();
    await page.waitForURL(/offersAfter=/);
    await expect.poll(shownIds).toEqual(oldestFirst.slice(OFFER_PAGE_SIZE));
    expect(await page.evaluate(() => "pagingMarker" in window)).toBe(js);
    expect(await pages.getByRole("link", { name: "Next page" }).count()).toBe(0);

    await page.locator("#offers-title + .offer-list a").first().click();
    await page.getByRole("dialog").getByText("You sent this offer").waitFor();
    await page.getByRole("dialog").getByRole("link", { name: "Close", exact: true }).click();
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    expect(page.url()).toMatch(/offersAfter=/);
    expect(await shownIds()).toEqual(oldestFirst.slice(OFFER_PAGE_SIZE));

    await pages.getByRole("link", { name: "First page" }).click();
    await page.waitForURL((url) => url.pathname === "/mysite/offers" && !url.search.includes("offersAfter"));
    await expect.poll(shownIds).toEqual(oldestFirst.slice(0, OFFER_PAGE_SIZE));
    expect(unexpected(side.errors)).toEqual([]);
    await side.close();
  });
});
