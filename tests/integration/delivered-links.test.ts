import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "~/worker";
import { messages } from "~/domain/messages";
import { describe, expect, it } from "vitest";
import { act, listSite, move, propose, read, get, trader, uniqueHost } from "./helpers";
import { html, mockWeb, redirectTo } from "./web-mock";

/** A trade in progress on A's side: A (the sender) must deliver a page linking to B's listed site. */
async function tradeInProgress() {
  const a = await trader();
  const b = await trader();
  const partner = uniqueHost("partner");
  const { listingId, siteId: partnerSiteId } = await listSite(b.userId, { host: partner, connects: 3 });
  // B works on the listed site (its dashboard shows that site's trades).
  await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(partnerSiteId, b.userId).run();
  expect((await propose(a.cookie, listingId)).status).toBe(302);
  const offer = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).first<{ id: string }>())!;
  expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
  expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(302);
  const complete = (contentUrl: string) => move(a.cookie, offer.id, "completed", contentUrl);
  const entry = () =>
    env.DB.prepare("SELECT status, content_url FROM offer_entries WHERE offer_id = ? AND user_id = ?").bind(offer.id, a.userId).first();
  const check = () =>
    env.DB.prepare("SELECT state, rel, anchor_text, href, hidden, target_host FROM link_checks WHERE offer_id = ? ORDER BY checked_at DESC")
      .bind(offer.id)
      .first();
  return { a, b, partner, listingId, offerId: offer.id, complete, entry, check };
}

/** A second trade between the same two sites, in progress on A's side as the first. */
async function anotherTradeInProgress(trade: Awaited<ReturnType<typeof tradeInProgress>>) {
  expect((await propose(trade.a.cookie, trade.listingId)).status).toBe(302);
  const second = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ? AND status = 'pending'")
    .bind(trade.listingId)
    .first<{ id: string }>())!;
  expect((await act(trade.b.cookie, second.id, [["intent", "accept"]])).status).toBe(302);
  expect((await move(trade.a.cookie, second.id, "in_progress")).status).toBe(302);
  return second;
}

describe("completing a side needs a page that links to the other party's site", () => {
  it("a followed link completes, and the link, its anchor text and rel are recorded and shown to both", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/guide`;
    mockWeb({
      // A self-closed SVG link after it has no end tag: it must not stop the scan.
      [url]: html(
        `<article><p>Thanks to <a href="https://www.${trade.partner}/seeds?ref=1" rel="noopener">  the seed   people </a>.</p></article><svg><a href="https://${trade.partner}/logo"/></svg>`,
      ),
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

  it("each side's latest check stays on the panel however many checks the other side has had since", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/guide`;
    mockWeb({ [url]: html(`<p>Thanks to <a href="https://${trade.partner}/">the seed people</a>.</p>`) });
    expect((await trade.complete(url)).status).toBe(302);
    // B's side, checked daily for 70 days after A's last check (A's year of checks over).
    const later = Date.now() + 60_000;
    await env.DB.batch(
      Array.from({ length: 70 }, (_, day) =>
        env.DB.prepare(
          "INSERT INTO link_checks (id, offer_id, user_id, content_url, target_host, state, rel, hidden, checked_at) VALUES (?, ?, ?, ?, ?, 'found', 'follow', 0, ?)",
        ).bind(crypto.randomUUID(), trade.offerId, trade.b.userId, `https://${trade.partner}/post`, trade.a.url, later + day * 86_400_000),
      ),
    );
    const page = await read(await get(`/mysite/offers?offer=${trade.offerId}`, { cookie: trade.a.cookie }));
    expect(page).toContain(`Link to ${trade.partner}: followed (“the seed people”)`);
  });

  it("one page delivers one trade with a partner: a second trade with the same partner needs a page of its own", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/guide`;
    const other = `https://${trade.a.url}/another-guide`;
    const linking = html(`<p>Thanks to <a href="https://${trade.partner}/">the seed people</a>.</p>`);
    mockWeb({ [url]: linking, [other]: linking });
    expect((await trade.complete(url)).status).toBe(302);

    const second = await anotherTradeInProgress(trade);
    // The same page however it is typed: another scheme, www., a fragment, an empty query, a slash at the end.
    for (const typed of [`http://www.${trade.a.url}/guide#thanks`, `https://${trade.a.url}/guide?`, `${trade.a.url}/guide/`]) {
      const again = await move(trade.a.cookie, second.id, "completed", typed);
      expect(again.status, typed).toBe(409);
      expect(await read(again)).toContain(messages.pageAlreadyDelivered.replace("{site}", trade.partner));
    }
    const secondEntry = () =>
      env.DB.prepare("SELECT status, content_url FROM offer_entries WHERE offer_id = ? AND user_id = ?").bind(second.id, trade.a.userId).first();
    expect(await secondEntry()).toEqual({ status: "in_progress", content_url: null });
    expect((await move(trade.a.cookie, second.id, "completed", other)).status).toBe(302);
    expect(await secondEntry()).toEqual({ status: "completed", content_url: other });
  });

  it("a page under another address (a short link that redirects to it, a query string its canonical link drops) is the page delivered", async () => {
    const trade = await tradeInProgress();
    const page = `https://${trade.a.url}/guide`;
    const other = `https://${trade.a.url}/another-guide`;
    const linking = (canonical: string) =>
      html(`<head><link rel="canonical" href="${canonical}"></head><p>Thanks to <a href="https://${trade.partner}/">the seed people</a>.</p>`);
    mockWeb({
      [`https://${trade.a.url}/?p=123`]: redirectTo(page),
      [page]: linking("/guide"),
      [`${page}?utm=2`]: linking(page),
      // A site that names its home page as every page's canonical address (a common mistake): each article is its own.
      [other]: linking("/"),
      [`https://${trade.a.url}/third-guide`]: linking("/"),
    });
    // Delivered through its short link: the page itself is kept beside the address typed.
    expect((await trade.complete(`https://${trade.a.url}/?p=123`)).status).toBe(302);
    const stored = await env.DB.prepare("SELECT content_url, page_url FROM offer_entries WHERE offer_id = ? AND user_id = ?")
      .bind(trade.offerId, trade.a.userId)
      .first();
    expect(stored).toEqual({ content_url: `https://${trade.a.url}/?p=123`, page_url: page });

    const second = await anotherTradeInProgress(trade);
    for (const typed of [page, `${page}?utm=2`]) {
      const again = await move(trade.a.cookie, second.id, "completed", typed);
      expect(again.status, typed).toBe(409);
      expect(await read(again)).toContain(messages.pageAlreadyDelivered.replace("{site}", trade.partner));
    }
    expect((await move(trade.a.cookie, second.id, "completed", other)).status).toBe(302);
    const third = await anotherTradeInProgress(trade);
    expect((await move(trade.a.cookie, third.id, "completed", `https://${trade.a.url}/third-guide`)).status).toBe(302);
  });

  it("two trades with the same partner completed at the same moment with one page: only one completes", async () => {
    const trade = await tradeInProgress();
    const second = await anotherTradeInProgress(trade);
    const url = `https://${trade.a.url}/guide`;
    // The page answers slowly, so both checks made before the fetch pass before either update.
    mockWeb({
      [url]: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return new Response(`<p>Thanks to <a href="https://${trade.partner}/">the seed people</a>.</p>`, {
          headers: { "Content-Type": "text/html" },
        });
      },
    });
    const answers = await Promise.all([trade.complete(url), move(trade.a.cookie, second.id, "completed", url)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([302, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(await read(refused)).toContain(messages.pageAlreadyDelivered.replace("{site}", trade.partner));
    const completed = await env.DB.prepare("SELECT count(*) AS n FROM offer_entries WHERE user_id = ? AND status = 'completed'")
      .bind(trade.a.userId)
      .first<{ n: number }>();
    expect(completed).toEqual({ n: 1 });
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
    ["template", `<template><a href="https://PARTNER/">x</a></template>`, { rel: "follow", hidden: 1 }],
    ["after a hidden paragraph left open", `<p style="display:none">x<p><a href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 0 }],
    ["!important", `<span style="opacity: 0 !important"><a href="https://PARTNER/">x</a></span>`, { rel: "follow", hidden: 1 }],
    [
      "in a list nested in a hidden item",
      `<ul><li style="display:none"><ul><li><a href="https://PARTNER/">x</a></li></ul></li></ul>`,
      { rel: "follow", hidden: 1 },
    ],
    [
      "in a table nested in a hidden cell",
      `<table><tr><td style="display:none"><table><tr><td><a href="https://PARTNER/">x</a></td></tr></table></td></tr></table>`,
      { rel: "follow", hidden: 1 },
    ],
    ["after a hidden item left open", `<ul><li hidden>x<li><a href="https://PARTNER/">x</a></ul>`, { rel: "follow", hidden: 0 }],
    ["after a hidden list", `<ul hidden><li>x</li></ul><p><a href="https://PARTNER/">x</a></p>`, { rel: "follow", hidden: 0 }],
    ["hidden behind a CSS comment", `<div style="display:/**/none"><a href="https://PARTNER/">x</a></div>`, { rel: "follow", hidden: 1 }],
    ["a comment inside a property's name", `<div style="dis/**/play:none"><a href="https://PARTNER/">x</a></div>`, { rel: "follow", hidden: 0 }],
    [
      "after a thousand hidden elements left open and many more tags",
      `${"<div hidden>".repeat(1_000)}${"<i></i>".repeat(100_000)}<a href="https://PARTNER/">x</a>`,
      { rel: "follow", hidden: 1 },
    ],
    ["in a dialog not open", `<dialog><a href="https://PARTNER/">x</a></dialog>`, { rel: "follow", hidden: 1 }],
    ["in an open dialog", `<dialog open><a href="https://PARTNER/">x</a></dialog>`, { rel: "follow", hidden: 0 }],
    ["after 60,000 hidden elements, each closed", `${"<b hidden></b>".repeat(60_000)}<a href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 0 }],
    [
      "after more hidden elements left open than any page has",
      `${"<div hidden>".repeat(1_500)}<a href="https://PARTNER/">x</a>`,
      { rel: "follow", hidden: 1 },
    ],
    ["zero width that overflows", `<div style="width:0"><a href="https://PARTNER/">x</a></div>`, { rel: "follow", hidden: 0 }],
    ["robots meta nofollow", `<meta name="robots" content="noindex, NoFollow"><a href="https://PARTNER/">x</a>`, { rel: "nofollow", hidden: 0 }],
    [
      "robots meta nofollow parted by spaces",
      `<meta name="ROBOTS" content="noindex  nofollow"><a href="https://PARTNER/">x</a>`,
      { rel: "nofollow", hidden: 0 },
    ],
    ["googlebot meta none", `<meta name="googlebot" content="none"><a href="https://PARTNER/">x</a>`, { rel: "nofollow", hidden: 0 }],
    ["another crawler's nofollow", `<meta name="otherbot" content="nofollow"><a href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 0 }],
    ["X-Robots-Tag nofollow", `<a href="https://PARTNER/">x</a>`, { rel: "nofollow", hidden: 0 }, "noindex, nofollow"],
    ["X-Robots-Tag googlebot none", `<a href="https://PARTNER/">x</a>`, { rel: "nofollow", hidden: 0 }, "otherbot: noarchive, googlebot: none"],
    ["X-Robots-Tag for another crawler", `<a href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 0 }, "otherbot: noindex, nofollow"],
    ["X-Robots-Tag with a dated directive", `<a href="https://PARTNER/">x</a>`, { rel: "follow", hidden: 0 }, "unavailable_after: 2030-01-01"],
  ])("a %s link is recorded as such", async (_name, markup, expected, robotsHeader?: string) => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/post`;
    const headers: Record<string, string> = robotsHeader ? { "X-Robots-Tag": robotsHeader } : {};
    mockWeb({ [url]: html(`<html><body>${markup.replaceAll("PARTNER", trade.partner)}</body></html>`, { headers }) });
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
      [`https://${trade.a.url}/gone-away`]: redirectTo(`https://${trade.partner}/`),
      [`https://${trade.partner}/`]: html(`<a href="https://${trade.partner}/about">about</a>`),
    });
    const missing = await trade.complete(gone);
    expect(missing.status).toBe(422);
    expect(await read(missing)).toContain("The site answered with an error (HTTP 404).");
    // A page elsewhere (even the partner's own home page, which links to itself) delivers nothing.
    for (const elsewhere of ["http://169.254.169.254/latest", `https://${trade.partner}/`, `https://${trade.a.url}/gone-away`]) {
      const refused = await trade.complete(elsewhere);
      expect(refused.status).toBe(422);
      expect(await read(refused)).toContain(`The content page must be on your own site, ${trade.a.url}.`);
    }
    expect(await trade.entry()).toEqual({ status: "in_progress", content_url: null });
    expect((await trade.complete(moved)).status).toBe(302);
    expect(await trade.check()).toMatchObject({ state: "found", href: `https://${trade.partner}/` });
  });
});

describe("delivered links are watched", () => {
  /** Runs the five-minute job as the cron does, at `at`. */
  async function runFiveMinuteJob(at: number) {
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: at, cron: "*/5 * * * *" }), env as never, ctx);
    await waitOnExecutionContext(ctx);
  }

  const linkEmails = (email: string) =>
    env.DB.prepare("SELECT subject FROM email_outbox WHERE to_address = ? AND kind = 'link-check' ORDER BY created_at")
      .bind(email)
      .all<{ subject: string }>()
      .then((rows) => rows.results.map((row) => row.subject));

  it("two runs of the job at once check a due link once", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/checked-once`;
    const web = mockWeb({ [url]: html(`<p>Thanks to <a href="https://${trade.partner}/">Seed friends</a>.</p>`) });
    expect((await trade.complete(url)).status).toBe(302);
    const { due } = (await env.DB.prepare("SELECT link_due_at AS due FROM offer_entries WHERE offer_id = ? AND user_id = ?")
      .bind(trade.offerId, trade.a.userId)
      .first<{ due: number }>())!;
    await Promise.all([runFiveMinuteJob(due), runFiveMinuteJob(due)]);
    expect(web.urls().filter((fetched) => fetched === url)).toHaveLength(2); // the completion's read and one check
    expect(await env.DB.prepare("SELECT count(*) AS n FROM link_checks WHERE offer_id = ?").bind(trade.offerId).first()).toEqual({ n: 2 });
  });

  it("the job re-checks a delivered link when due, flags a removed link on both dashboards and the trade, and emails the partner once", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/watched`;
    let body = `<p>Thanks to <a href="https://${trade.partner}/">Seed friends</a>.</p>`;
    mockWeb({ [url]: () => new Response(body, { headers: { "Content-Type": "text/html" } }) });
    expect((await trade.complete(url)).status).toBe(302);
    const watch = () =>
      env.DB.prepare(
        "SELECT link_status AS status, link_due_at AS due, link_watch_until AS until FROM offer_entries WHERE offer_id = ? AND user_id = ?",
      )
        .bind(trade.offerId, trade.a.userId)
        .first<{ status: string; due: number; until: number }>();
    const first = (await watch())!;
    expect(first.status).toBe("live");
    expect(first.due - Date.now()).toBeGreaterThan(12 * 3600_000);
    expect(first.until - Date.now()).toBeGreaterThan(364 * 24 * 3600_000);

    // Not due yet: nothing is fetched or changed.
    body = "<p>The link was removed.</p>";
    await runFiveMinuteJob(first.due - 60_000);
    expect((await watch())!.status).toBe("live");

    await runFiveMinuteJob(first.due);
    const lost = (await watch())!;
    expect(lost.status).toBe("lost");
    expect(lost.due).toBeGreaterThan(first.due + 12 * 3600_000);
    expect(await trade.check()).toMatchObject({ state: "missing" });
    expect(await linkEmails(trade.b.email)).toEqual([`Your link on ${trade.a.url} is gone from the page`]);
    expect(await linkEmails(trade.a.email)).toEqual([]);
    for (const party of [trade.a, trade.b]) {
      const dashboard = await read(await get("/mysite", { cookie: party.cookie }));
      expect(dashboard).toContain("Delivered links to look at");
      expect(dashboard).toContain(`${trade.a.url}: the link is gone from the page`);
    }
    const detail = await read(await get(`/mysite/offers?offer=${trade.offerId}`, { cookie: trade.b.cookie }));
    expect(detail).toContain("Flag: the link is gone from the page.");
    expect(detail).toContain("Link checks (2)");

    // Still gone the next day: no second email. Then back as nofollow: one email for that change.
    await runFiveMinuteJob(lost.due);
    expect(await linkEmails(trade.b.email)).toHaveLength(1);
    body = `<p><a rel="nofollow" href="https://${trade.partner}/">Seed friends</a></p>`;
    await runFiveMinuteJob((await watch())!.due);
    expect((await watch())!.status).toBe("nofollow");
    expect(await linkEmails(trade.b.email)).toEqual([
      `Your link on ${trade.a.url} is gone from the page`,
      `Your link on ${trade.a.url} is now nofollow (or sponsored or ugc)`,
    ]);
    // The same words on the dashboard and on the trade's flag.
    expect(await read(await get("/mysite", { cookie: trade.b.cookie }))).toContain(`${trade.a.url}: the link is nofollow (or sponsored or ugc)`);
    expect(await read(await get(`/mysite/offers?offer=${trade.offerId}`, { cookie: trade.b.cookie }))).toContain(
      "Flag: the link is nofollow (or sponsored or ugc).",
    );
    // Fixed: the flag clears everywhere, with one email saying so.
    body = `<p><a href="https://${trade.partner}/">Seed friends</a></p>`;
    await runFiveMinuteJob((await watch())!.due);
    expect((await watch())!.status).toBe("live");
    expect((await linkEmails(trade.b.email)).at(-1)).toBe(`Your link on ${trade.a.url} is back`);
    expect(await read(await get("/mysite", { cookie: trade.b.cookie }))).not.toContain("Delivered links to look at");
  });

  it("tells a link that now points elsewhere from one that is gone, keeps a flag through a page that cannot be reached, and stops after a year", async () => {
    const trade = await tradeInProgress();
    const url = `https://${trade.a.url}/moving`;
    let answer: () => Response = () =>
      new Response(`<a href="https://${trade.partner}/">Best seeds</a>`, { headers: { "Content-Type": "text/html" } });
    mockWeb({ [url]: () => answer() });
    expect((await trade.complete(url)).status).toBe(302);
    const status = async () =>
      (await env.DB.prepare("SELECT link_status AS status, link_due_at AS due FROM offer_entries WHERE offer_id = ? AND user_id = ?")
        .bind(trade.offerId, trade.a.userId)
        .first<{ status: string; due: number }>())!;
    answer = () => new Response(`<a href="https://competitor-seeds.com/">Best seeds</a>`, { headers: { "Content-Type": "text/html" } });
    await runFiveMinuteJob((await status()).due);
    expect((await status()).status).toBe("moved");
    answer = () => new Response("busy", { status: 503 });
    await runFiveMinuteJob((await status()).due);
    expect((await status()).status).toBe("moved");
    expect(await trade.check()).toMatchObject({ state: "error" });
    // Unreadable three days in a row: lost.
    await runFiveMinuteJob((await status()).due);
    await runFiveMinuteJob((await status()).due);
    expect((await status()).status).toBe("lost");
    // The check that found it gone is a missing link, not a passing error (the site's record counts it).
    expect(await trade.check()).toMatchObject({ state: "missing" });
    await env.DB.prepare("UPDATE offer_entries SET link_watch_until = ? WHERE offer_id = ?")
      .bind(Date.now() - 1, trade.offerId)
      .run();
    const before = await env.DB.prepare("SELECT count(*) AS n FROM link_checks WHERE offer_id = ?").bind(trade.offerId).first<{ n: number }>();
    await runFiveMinuteJob((await status()).due + 1);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM link_checks WHERE offer_id = ?").bind(trade.offerId).first()).toEqual(before);
    // It has left the queue.
    expect(
      await env.DB.prepare("SELECT link_due_at AS due FROM offer_entries WHERE offer_id = ? AND user_id = ?")
        .bind(trade.offerId, trade.a.userId)
        .first(),
    ).toEqual({
      due: null,
    });
  });
});
