import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { act, listSite, propose, read, get, trader, uniqueHost } from "./helpers";
import { html, mockWeb, redirectTo } from "./web-mock";

/** A trade in progress on A's side: A (the sender) must deliver a page linking to B's listed site. */
async function tradeInProgress() {
  const a = await trader();
  const b = await trader();
  const partner = uniqueHost("partner");
  const { listingId } = await listSite(b.userId, { host: partner, connects: 3 });
  expect((await propose(a.cookie, listingId)).status).toBe(302);
  const offer = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).first<{ id: string }>())!;
  expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
  expect(
    (
      await act(a.cookie, offer.id, [
        ["intent", "move"],
        ["to", "in_progress"],
      ])
    ).status
  ).toBe(302);
  const complete = (contentUrl: string) =>
    act(a.cookie, offer.id, [
      ["intent", "move"],
      ["to", "completed"],
      ["contentUrl", contentUrl],
    ]);
  const entry = () =>
    env.DB.prepare("SELECT status, content_url FROM offer_entries WHERE offer_id = ? AND user_id = ?").bind(offer.id, a.userId).first();
  const check = () =>
    env.DB.prepare("SELECT state, rel, anchor_text, href, hidden, target_host FROM link_checks WHERE offer_id = ? ORDER BY checked_at DESC")
      .bind(offer.id)
      .first();
  return { a, b, partner, offerId: offer.id, complete, entry, check };
}

describe("completing a side needs a page that links to the other party's site", () => {
  it("a followed link completes, and the link, its anchor text and rel are recorded and shown to both", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/guide`;
    mockWeb({
      [url]: html(`<article><p>Thanks to <a href="https://www.${trade.partner}/seeds?ref=1" rel="noopener">  the seed   people </a>.</p></article>`),
    });
    expect((await trade.complete(url)).status).toBe(302);
    expect(await trade.entry()).toEqual({ status: "completed", content_url: url });
    expect(await trade.check()).toEqual({
      state: "found",
      rel: "follow",
      anchor_text: "the seed people",
      href: `https://www.${trade.partner}/seeds?ref=1`,
      hidden: 0,
      target_host: trade.partner,
    });
    for (const party of [trade.a, trade.b]) {
      const page = await read(await get(`/mysite/offers?offer=${trade.offerId}`, { cookie: party.cookie }));
      expect(page).toContain(`Link to ${trade.partner}: followed (“the seed people”)`);
    }
  });

  it("a page without the link cannot complete, says so, and can be fixed and tried again", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/draft`;
    let body = `<p>No link yet. <a href="https://elsewhere.example/${trade.partner}">a lookalike</a> <a href="/local">local</a></p>`;
    mockWeb({ [url]: () => new Response(body, { headers: { "Content-Type": "text/html" } }) });
    const refused = await trade.complete(url);
    expect(refused.status).toBe(422);
    const page = await read(refused);
    expect(page).toContain(`We could not find a link to ${trade.partner} on that page.`);
    // What was typed stays in the field.
    expect(page).toContain(`value="${url}"`);
    expect(await trade.entry()).toEqual({ status: "in_progress", content_url: null });
    body = `<p>Now with <a href=//${trade.partner}>the link</a>.</p>`;
    expect((await trade.complete(url)).status).toBe(302);
    expect(await trade.entry()).toEqual({ status: "completed", content_url: url });
  });

  it.each([
    ["nofollow", `<a rel="nofollow" href="https://PARTNER/">x</a>`, { rel: "nofollow", hidden: 0 }],
    ["sponsored", `<a rel="sponsored nofollow" href="https://PARTNER/">x</a>`, { rel: "sponsored", hidden: 0 }],
    ["ugc", `<a rel="ugc" href="https://PARTNER/">x</a>`, { rel: "ugc", hidden: 0 }],
    ["hidden by its parent", `<div style="display: none"><a href="https://PARTNER/">x</a></div><p>visible</p>`, { rel: "follow", hidden: 1 }],
    ["hidden itself", `<a hidden href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 1 }],
    ["zero size", `<span style="font-size:0"><a href="https://PARTNER/">x</a></span>`, { rel: "follow", hidden: 1 }],
    ["the best of several", `<a rel="nofollow" href="https://PARTNER/a">a</a><a href="https://PARTNER/b">b</a>`, { rel: "follow", hidden: 0 }],
  ])("a %s link is recorded as such", async (_name, markup, expected) => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/post`;
    mockWeb({ [url]: html(`<html><body>${markup.replaceAll("PARTNER", trade.partner)}</body></html>`) });
    expect((await trade.complete(url)).status).toBe(302);
    expect(await trade.check()).toMatchObject({ state: "found", ...expected });
  });

  it("follows the content page's redirects (each checked), and says why a page cannot be read", async () => {
    const trade = await tradeInProgress();
    const moved = `https://${trade.a.url}/old-post`;
    const final = `https://${trade.a.url}/new-post`;
    const gone = `https://${trade.a.url}/gone`;
    mockWeb({
      [moved]: redirectTo(final),
      [final]: html(`<a href="https://${trade.partner}/">partner</a>`),
      [gone]: html("Not here", { status: 404 }),
    });
    const missing = await trade.complete(gone);
    expect(missing.status).toBe(422);
    expect(await read(missing)).toContain("The site answered with an error (HTTP 404).");
    const privateAddress = await trade.complete("http://169.254.169.254/latest");
    expect(privateAddress.status).toBeGreaterThanOrEqual(400);
    expect(await trade.entry()).toEqual({ status: "in_progress", content_url: null });
    expect((await trade.complete(moved)).status).toBe(302);
    expect(await trade.check()).toMatchObject({ state: "found", href: `https://${trade.partner}/` });
  });
});
