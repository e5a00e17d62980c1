import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { OFFER_PAGE_SIZE } from "~/services/offer-lists.server";
import { act, get, listSite, post, read, trader, uniqueHost } from "./helpers";

const MINUTE = 60_000;

type Trader = Awaited<ReturnType<typeof trader>>;

interface SeededOffer {
  id: string;
  createdAt: number;
  status: "pending" | "declined" | "rescind" | "expired" | "accepted";
}

/**
 * Offers between two traders written straight into the database (no price, so nothing is held), both entries with
 * them. Ids are random, so rows sent in the same millisecond are ordered by id.
 */
async function seedOffers(from: Trader, to: Trader, offers: Omit<SeededOffer, "id">[]): Promise<SeededOffer[]> {
  const seeded = offers.map((offer) => ({ ...offer, id: crypto.randomUUID() }));
  const statements = seeded.flatMap((offer, i) => {
    // Every other offer goes the other way: the lists show offers sent and received.
    const [sender, receiver] = i % 2 === 0 ? [from, to] : [to, from];
    return [
      env.DB.prepare(
        `INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
      ).bind(
        offer.id,
        sender.userId,
        sender.siteId,
        receiver.userId,
        receiver.siteId,
        offer.status,
        offer.createdAt + 14 * 24 * 60 * MINUTE,
        offer.createdAt,
        offer.createdAt,
      ),
      ...[
        [sender, "sender"],
        [receiver, "receiver"],
      ].map(([party, role]) =>
        env.DB.prepare(
          "INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, provide_materials, updated_at) VALUES (?, ?, ?, ?, 'blog-post', '[\"logo\"]', ?)",
        ).bind(offer.id, (party as Trader).userId, (party as Trader).siteId, role, offer.createdAt),
      ),
    ];
  });
  await env.DB.batch(statements);
  return seeded;
}

const byOldest = (a: SeededOffer, b: SeededOffer) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** One list of the Offers page (Offers or Trades) as it is shown: the offers in order and its page links. */
function panel(html: string, title: "Offers" | "Trades") {
  const start = html.indexOf(`id="${title.toLowerCase()}-title"`);
  expect(start, `${title} panel`).toBeGreaterThan(-1);
  const section = html.slice(start, html.indexOf("</section>", start));
  const link = (label: string) => section.match(new RegExp(`href="([^"]+)"[^>]*>${label}<`))?.[1]?.replaceAll("&amp;", "&") ?? null;
  return {
    ids: [...section.matchAll(/href="\/mysite\/offers\?(?:[^"]*&amp;)?offer=([\w-]+)"/g)].map((match) => match[1]),
    rowLinks: [...section.matchAll(/href="(\/mysite\/offers\?[^"]*offer=[\w-]+)"/g)].map((match) => match[1]!.replaceAll("&amp;", "&")),
    next: link("Next page"),
    first: link("First page"),
  };
}

async function page(cookie: string, path: string) {
  const response = await get(path, { cookie });
  return { status: response.status, html: await read(response) };
}

describe("the Offers page's lists", () => {
  it("lists every open offer oldest first, a page at a time, with nothing repeated or skipped", async () => {
    const owner = await trader();
    const partner = await trader();
    const start = Date.now() - 30 * 24 * 60 * MINUTE;
    const statuses = ["pending", "declined", "rescind", "expired"] as const;
    // More than a page, written newest first; three share one millisecond.
    const open = await seedOffers(
      owner,
      partner,
      Array.from({ length: OFFER_PAGE_SIZE + 3 }, (_, i) => ({
        createdAt: start + (i < 3 ? 0 : (OFFER_PAGE_SIZE + 3 - i) * MINUTE),
        status: statuses[i % statuses.length]!,
      })),
    );
    const trades = await seedOffers(
      owner,
      partner,
      Array.from({ length: OFFER_PAGE_SIZE + 2 }, (_, i) => ({ createdAt: start + i * 7 * MINUTE, status: "accepted" as const })),
    );
    // Trashed by the owner: gone from the owner's list only.
    const [trashed] = await seedOffers(owner, partner, [{ createdAt: start - MINUTE, status: "declined" }]);
    await env.DB.prepare("UPDATE offer_entries SET trashed_at = ? WHERE offer_id = ? AND user_id = ?")
      .bind(Date.now(), trashed!.id, owner.userId)
      .run();

    const expected = [...open].sort(byOldest).map((offer) => offer.id);
    const first = await page(owner.cookie, "/mysite/offers");
    expect(first.status).toBe(200);
    const firstOffers = panel(first.html, "Offers");
    expect(firstOffers.ids).toEqual(expected.slice(0, OFFER_PAGE_SIZE));
    expect(firstOffers.first).toBeNull();
    expect(firstOffers.next).toMatch(/^\/mysite\/offers\?offersAfter=\d+_[\w-]+$/);

    const second = await page(owner.cookie, firstOffers.next!);
    expect(second.status).toBe(200);
    const secondOffers = panel(second.html, "Offers");
    expect(secondOffers.ids).toEqual(expected.slice(OFFER_PAGE_SIZE));
    expect([...firstOffers.ids, ...secondOffers.ids]).toEqual(expected);
    expect(secondOffers.next).toBeNull();
    expect(secondOffers.first).toBe("/mysite/offers");
    expect(second.html).not.toContain(trashed!.id);
    // The partner did not trash it.
    expect(panel((await page(partner.cookie, "/mysite/offers")).html, "Offers").ids[0]).toBe(trashed!.id);

    // Trades newest first, paged on their own: the Offers list stays on its page.
    const newestTrades = [...trades]
      .sort(byOldest)
      .reverse()
      .map((offer) => offer.id);
    const tradesFirst = panel(second.html, "Trades");
    expect(tradesFirst.ids).toEqual(newestTrades.slice(0, OFFER_PAGE_SIZE));
    expect(tradesFirst.next).toContain(firstOffers.next!.split("?")[1]);
    const both = await page(owner.cookie, tradesFirst.next!);
    expect(panel(both.html, "Trades").ids).toEqual(newestTrades.slice(OFFER_PAGE_SIZE));
    expect(panel(both.html, "Offers").ids).toEqual(expected.slice(OFFER_PAGE_SIZE));

    // Opening an offer keeps the lists where they were, and so does answering it.
    const row = secondOffers.rowLinks[0]!;
    expect(row).toContain(firstOffers.next!.split("?")[1]);
    const opened = await page(owner.cookie, row);
    expect(opened.html).toContain('class="slide-out"');
    expect(opened.html.match(/aria-label="Close"[^>]*href="([^"]+)"/)?.[1]).toBe(firstOffers.next);
    expect(panel(opened.html, "Offers").ids).toEqual(expected.slice(OFFER_PAGE_SIZE));
    // The fifth offer written is pending, sent by the owner, and among the newest three: on the second page.
    const pending = open[4]!;
    expect(pending.status).toBe("pending");
    expect(secondOffers.ids).toContain(pending.id);
    const rescinded = await post(`${firstOffers.next}&offer=${pending.id}`, { intent: "rescind" }, { cookie: owner.cookie });
    expect(rescinded.status).toBe(302);
    expect(rescinded.headers.get("Location")).toBe(`${firstOffers.next}&offer=${pending.id}`);

    // The dashboard shows the first page of each list and links to the next.
    const dashboard = await read(await get("/mysite", { cookie: owner.cookie }));
    expect(dashboard).toContain(`href="${firstOffers.next}"`);
    expect(dashboard).toMatch(/href="\/mysite\/offers\?tradesAfter=\d+_[\w-]+"[^>]*>More trades</);
  });

  it("puts the oldest offer first however many newer ones there are", async () => {
    const owner = await trader();
    const partner = await trader();
    const start = Date.now() - 60 * 24 * 60 * MINUTE;
    const [oldest] = await seedOffers(owner, partner, [{ createdAt: start, status: "declined" }]);
    // 250 newer ones in one statement: more than the 200 newest the page used to read.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250)
       INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, created_at, updated_at)
       SELECT lower(hex(randomblob(16))), ?, ?, ?, ?, 0, 'declined', ?, ? + i * 1000, ? + i * 1000 FROM n`,
    )
      .bind(partner.userId, partner.siteId, owner.userId, owner.siteId, start, start, start)
      .run();
    const shown = panel((await page(owner.cookie, "/mysite/offers")).html, "Offers");
    expect(shown.ids).toHaveLength(OFFER_PAGE_SIZE);
    expect(shown.ids[0]).toBe(oldest!.id);
  });

  it("shows only the viewer's own site's offers, whatever cursor is in the address", async () => {
    const owner = await trader();
    const partner = await trader();
    const stranger = await trader();
    const start = Date.now() - 10 * 24 * 60 * MINUTE;
    const offers = await seedOffers(
      owner,
      partner,
      Array.from({ length: OFFER_PAGE_SIZE + 2 }, (_, i) => ({ createdAt: start + i * MINUTE, status: "pending" as const })),
    );
    const next = panel((await page(owner.cookie, "/mysite/offers")).html, "Offers").next!;
    const cursor = next.split("offersAfter=")[1]!;

    const strangers = await page(stranger.cookie, next);
    expect(strangers.status).toBe(200);
    expect(panel(strangers.html, "Offers").ids).toEqual([]);
    // A later page with nothing on it does not say the list is empty (the first page may have rows), and links there.
    expect(strangers.html).toContain("No more offers here.");
    expect(strangers.html).not.toContain(messages.noOffers);
    expect(panel(strangers.html, "Offers").first).toBe("/mysite/offers");
    expect((await page(stranger.cookie, "/mysite/offers")).html).toContain(messages.noOffers);
    // A cursor from before every offer, and the owner's cursor in the other list: still nothing of the owner's.
    const fromTheStart = await page(stranger.cookie, `/mysite/offers?offersAfter=0_0&tradesAfter=${cursor}`);
    expect(panel(fromTheStart.html, "Offers").ids).toEqual([]);
    expect(panel(fromTheStart.html, "Trades").ids).toEqual([]);
    expect(fromTheStart.html).not.toContain(partner.url);
    const opened = await page(stranger.cookie, `/mysite/offers?offersAfter=${cursor}&offer=${offers.at(-1)!.id}`);
    expect(opened.html).toContain(messages.offerUnavailable);
    expect(opened.html).not.toContain(partner.url);
    // Another site's id in the address changes nothing: the lists are the active site's.
    const withSite = await page(stranger.cookie, `/mysite/offers?offersAfter=0_0&siteId=${owner.siteId}&site=${owner.siteId}`);
    expect(panel(withSite.html, "Offers").ids).toEqual([]);
  });

  it("opens an offer of the user's other site (an email's link) over that site's lists, which becomes the active site", async () => {
    const owner = await trader();
    const partner = await trader();
    const other = await listSite(owner.userId, { host: uniqueHost("other") });
    const [offer] = await seedOffers(partner, { ...owner, siteId: other.siteId }, [{ createdAt: Date.now() - MINUTE, status: "pending" }]);
    const activeSite = () => env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(owner.userId).first<{ id: string }>();
    expect((await activeSite())!.id).toBe(owner.siteId);

    const opened = await get(`/mysite/offers?offersAfter=1700000000000_a1&offer=${offer!.id}&view=profile`, { cookie: owner.cookie });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("Location")).toBe(`/mysite/offers?offer=${offer!.id}&view=profile`);
    expect((await activeSite())!.id).toBe(other.siteId);
    const shown = await page(owner.cookie, opened.headers.get("Location")!);
    expect(shown.status).toBe(200);
    expect(panel(shown.html, "Offers").ids).toEqual([offer!.id]);
    // Another tab switches back; an answer refused without JavaScript still renders its page (no redirect), with the
    // offer's site active again, as the page it was sent from showed.
    expect((await post("/sites/active", { siteId: owner.siteId }, { cookie: owner.cookie })).status).toBe(302);
    const refused = await act(owner.cookie, offer!.id, [
      ["intent", "move"],
      ["to", "completed"],
    ]);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect((await activeSite())!.id).toBe(other.siteId);
    expect(panel(await read(refused), "Offers").ids).toEqual([offer!.id]);
    // The other participant's active site is the offer's: no switch, no redirect.
    expect((await get(`/mysite/offers?offer=${offer!.id}`, { cookie: partner.cookie })).status).toBe(200);
  });

  it("starts a list with a malformed cursor at its first page and says so, never a 500", async () => {
    const owner = await trader();
    const partner = await trader();
    const start = Date.now() - 10 * 24 * 60 * MINUTE;
    const offers = await seedOffers(
      owner,
      partner,
      Array.from({ length: OFFER_PAGE_SIZE + 1 }, (_, i) => ({ createdAt: start + i * MINUTE, status: "declined" as const })),
    );
    const oldest = offers[0]!.id;
    for (const bad of [
      "garbage",
      "1_",
      "_abc",
      "-1_abc",
      "1.5_abc",
      "12345678901234567_abc",
      "1_a'b",
      "1_%00",
      "1_%E0%A4%A",
      `1_${"x".repeat(500)}`,
      "r1_abc",
    ]) {
      for (const name of ["offersAfter", "tradesAfter"]) {
        const response = await page(owner.cookie, `/mysite/offers?${name}=${bad}`);
        expect(response.status, `${name}=${bad}`).toBe(400);
        expect(response.html).toContain(messages.pageLinkInvalid);
        expect(panel(response.html, "Offers").ids[0]).toBe(oldest);
      }
      const data = await get(`/mysite/offers.data?offersAfter=${bad}`, { cookie: owner.cookie });
      expect(data.status, `.data offersAfter=${bad}`).toBeLessThan(500);
      await data.arrayBuffer();
    }

    // A good cursor of one list survives a bad one of the other.
    const next = panel((await page(owner.cookie, "/mysite/offers")).html, "Offers").next!;
    const mixed = await page(owner.cookie, `${next}&tradesAfter=nonsense`);
    expect(mixed.status).toBe(400);
    expect(panel(mixed.html, "Offers").ids).toEqual([offers.at(-1)!.id]);
    expect(panel(mixed.html, "Trades").first).toBeNull();

    // An empty cursor is the first page, nothing to say.
    const empty = await page(owner.cookie, "/mysite/offers?offersAfter=&tradesAfter=");
    expect(empty.status).toBe(200);
    expect(empty.html).not.toContain(messages.pageLinkInvalid);

    // A form posted with a malformed cursor in its address still works, and leaves it out of the redirect.
    const posted = await post(`/mysite/offers?offersAfter=zzz&offer=${oldest}`, { intent: "trash" }, { cookie: owner.cookie });
    expect(posted.status).toBe(302);
    expect(posted.headers.get("Location")).toBe("/mysite/offers");
  });
});
