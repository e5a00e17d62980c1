import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker, { createContext } from "~/worker";
import { database } from "~/lib/db.server";
import { propose as proposeOffer } from "~/services/offer-proposal.server";
import { actOnOffer } from "~/services/offer-answers.server";
import { formatAnswerBy } from "~/domain/offer-view";
import { messages } from "~/domain/messages";
import { act, get, listSite, move, post, propose, read, signUp, trader, uniqueHost, windowStart } from "./helpers";
import { html, mockWeb } from "./web-mock";

const DAY = 24 * 60 * 60 * 1000;

async function balances(userId: string) {
  return env.DB.prepare("SELECT connects, connects_held AS held FROM users WHERE id = ?").bind(userId).first<{ connects: number; held: number }>();
}

/** Every change of a balance is a ledger entry: the sums must equal the balances. */
async function expectLedgerMatches(userId: string) {
  const sums = await env.DB.prepare(
    "SELECT coalesce(sum(amount), 0) AS connects, coalesce(sum(held), 0) AS held FROM connect_ledger WHERE user_id = ?",
  )
    .bind(userId)
    .first();
  expect(sums).toEqual(await balances(userId));
  const lots = await env.DB.prepare("SELECT coalesce(sum(remaining), 0) AS n FROM connect_lots WHERE user_id = ?")
    .bind(userId)
    .first<{ n: number }>();
  expect(lots!.n).toBe((await balances(userId))!.connects);
}

async function latestOfferOf(senderId: string) {
  return env.DB.prepare("SELECT id, status, connects FROM offers WHERE sender_user_id = ? ORDER BY created_at DESC LIMIT 1")
    .bind(senderId)
    .first<{ id: string; status: string; connects: number }>();
}

async function mailsTo(email: string) {
  const rows = await env.DB.prepare("SELECT subject FROM email_outbox WHERE to_address = ? AND kind = 'offer' ORDER BY created_at")
    .bind(email)
    .all<{ subject: string }>();
  return rows.results.map((row) => row.subject);
}

describe("a trade from proposal to two completed deliveries", () => {
  it("holds, spends and records everything on the way", async () => {
    const a = await trader();
    const b = await trader();
    const partnerHost = uniqueHost("partner");
    const { listingId } = await listSite(b.userId, { host: partnerHost, connects: 7 });

    // The browser cannot set the price: a connects field is ignored.
    const sent = await propose(a.cookie, listingId, [["connects", "1"]]);
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/market?notice=offer-sent");
    const offer = (await latestOfferOf(a.userId))!;
    expect(offer).toMatchObject({ status: "pending", connects: 7 });
    expect(await balances(a.userId)).toEqual({ connects: 13, held: 7 });
    await expectLedgerMatches(a.userId);
    const entries = await env.DB.prepare(
      "SELECT role, create_content_type, provide_materials, status FROM offer_entries WHERE offer_id = ? ORDER BY role DESC",
    )
      .bind(offer.id)
      .all();
    expect(entries.results).toEqual([
      { role: "sender", create_content_type: "blog-post", provide_materials: '["logo"]', status: "not_started" },
      { role: "receiver", create_content_type: "feature", provide_materials: '["short-description"]', status: "not_started" },
    ]);

    const accepted = await act(b.cookie, offer.id, [
      ["intent", "accept"],
      ["materials", "blog-content"],
      ["materials", "logo"],
    ]);
    expect(accepted.status).toBe(302);
    expect((await latestOfferOf(a.userId))!.status).toBe("accepted");
    const senderEntry = await env.DB.prepare("SELECT provide_materials FROM offer_entries WHERE offer_id = ? AND role = 'sender'")
      .bind(offer.id)
      .first();
    expect(senderEntry).toEqual({ provide_materials: '["blog-content","logo"]' });
    expect(await balances(a.userId)).toEqual({ connects: 13, held: 0 });
    await expectLedgerMatches(a.userId);

    // Each side's content page links to the other side's site.
    mockWeb({
      [`https://${a.url}/the-post`]: html(`<p>Read <a href="https://${partnerHost}/">our partner</a>.</p>`),
      [`https://${partnerHost}/the-post`]: html(`<p>Read <a href="https://www.${a.url}/about">our partner</a>.</p>`),
    });
    for (const party of [a, b]) {
      expect((await move(party.cookie, offer.id, "in_progress")).status).toBe(302);
      const noUrl = await move(party.cookie, offer.id, "completed");
      expect(noUrl.status).toBe(400);
      expect(await read(noUrl)).toContain(messages.enterContentUrl);
      if (party === a) {
        // A half-typed address: completing is refused with the message and what was typed; stopping is not held up.
        const typo = await move(a.cookie, offer.id, "completed", "https://the-post");
        expect(typo.status).toBe(400);
        const typoPage = await read(typo);
        expect(typoPage).toContain(messages.enterContentUrl);
        expect(typoPage).toContain('value="https://the-post"');
        expect((await move(a.cookie, offer.id, "stopped", "https://the-post")).status).toBe(302);
        expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(302);
        // However long what was typed: completing says the address is too long, stopping goes.
        const long = `https://${a.url}/${"x".repeat(3000)}`;
        const tooLong = await move(a.cookie, offer.id, "completed", long);
        expect(tooLong.status).toBe(400);
        expect(await read(tooLong)).toContain(messages.contentUrlTooLong);
        expect((await move(a.cookie, offer.id, "stopped", long)).status).toBe(302);
        expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(302);
      }
      // Each side delivers on the site it trades with: A on its own site, B on its listed one, typed without https://.
      const own = party === a ? a.url : partnerHost;
      const done = await move(party.cookie, offer.id, "completed", party === a ? `https://${own}/the-post` : `${own}/the-post`);
      expect(done.status).toBe(302);
    }
    const final = await env.DB.prepare("SELECT user_id, status, content_url FROM offer_entries WHERE offer_id = ?").bind(offer.id).all();
    expect(final.results).toContainEqual({ user_id: a.userId, status: "completed", content_url: `https://${a.url}/the-post` });
    expect(final.results).toContainEqual({ user_id: b.userId, status: "completed", content_url: `https://${partnerHost}/the-post` });

    const aView = await read(await fetchPage(a.cookie, `/mysite/offers?offer=${offer.id}`));
    expect(aView).toContain(">Completed<");
    const profile = await read(await fetchPage(a.cookie, `/mysite/offers?offer=${offer.id}&view=profile`));
    expect(profile).toContain(`>${partnerHost}</h2>`);
    expect(profile).toContain("Back to the offer");
    const strangerView = await read(await fetchPage((await trader()).cookie, `/mysite/offers?offer=${offer.id}`));
    expect(strangerView).toContain("This offer is not available.");
    expect(strangerView).not.toContain(partnerHost);
    expect(await mailsTo(b.email)).toEqual(["New offer from " + a.url, `${a.url} completed their side`]);
    expect(await mailsTo(a.email)).toEqual(["Your offer was accepted", `${partnerHost} completed their side`]);
  });
});

function fetchPage(cookie: string, path: string) {
  return get(path, { cookie });
}

describe("the offer panel", () => {
  it("names the viewer's own site of the offer and, while it waits, the day and time it can be answered until", async () => {
    const a = await trader();
    const b = await trader();
    const bHost = uniqueHost("panel");
    const { listingId, siteId } = await listSite(b.userId, { host: bHost, connects: 3 });
    await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(siteId, b.userId).run();
    expect((await propose(a.cookie, listingId)).status).toBe(302);
    const offer = (await env.DB.prepare("SELECT id, answer_by FROM offers WHERE listing_id = ?")
      .bind(listingId)
      .first<{ id: string; answer_by: number }>())!;
    // 14 days to the minute: the day alone would read as the whole of it.
    const day = formatAnswerBy(offer.answer_by, Date.now(), "UTC");
    expect(day).toMatch(/^\d+\/\d+(\/\d+)?, \d+:\d\d [AP]M$/);
    const panelOf = async (cookie: string) => (await read(await get(`/mysite/offers?offer=${offer.id}`, { cookie }))).replaceAll("<!-- -->", "");
    expect(await panelOf(b.cookie)).toContain(`You received this offer at <span class="user-text">${bHost}</span> for 3 connects. Answer by ${day}.`);
    expect(await panelOf(a.cookie)).toContain(
      `You sent this offer from <span class="user-text">${a.url}</span> for 3 connects. It can be answered until ${day}.`,
    );
    expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
    expect(await panelOf(b.cookie)).not.toContain("Answer by");
  });
});

describe("two answers at once", () => {
  it("two accepts of one offer in the same millisecond: one accepts, and the materials asked for are the ones it asked", async () => {
    const sender = await trader();
    const owner = await trader();
    const { listingId } = await listSite(owner.userId, { host: uniqueHost("twice") });
    expect((await propose(sender.cookie, listingId)).status).toBe(302);
    const offer = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).first<{ id: string }>())!;
    const at = Date.now();
    const context = () => ({ ...createContext(env as never, createExecutionContext()), now: () => at });
    const asked = [["blog-content"], ["short-description"]];
    const outcomes = await Promise.all(asked.map((materials) => actOnOffer(context(), { id: owner.userId }, offer.id, "accept", materials)));
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    const winner = asked[outcomes.findIndex((outcome) => outcome.ok)]!;
    const entry = await env.DB.prepare("SELECT provide_materials FROM offer_entries WHERE offer_id = ? AND role = 'sender'").bind(offer.id).first();
    expect(entry).toEqual({ provide_materials: JSON.stringify(winner) });
  });
});

describe("the other site's profile", () => {
  it("links to the site's home page however its address was typed, a host beginning with 'http' too", async () => {
    const sender = await trader();
    const owner = await trader();
    const host = uniqueHost("httpie");
    const { siteId, listingId } = await listSite(owner.userId, { host });
    // Stored as the owner typed it: without a scheme.
    await env.DB.prepare("UPDATE sites SET url = ? WHERE id = ?").bind(host, siteId).run();
    expect((await propose(sender.cookie, listingId)).status).toBe(302);
    const offer = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).first<{ id: string }>())!;
    const profile = await read(await get(`/mysite/offers?offer=${offer.id}&view=profile`, { cookie: sender.cookie }));
    expect(profile).toMatch(new RegExp(`<a href="https://${host.replaceAll(".", "\\.")}"[^>]*>Visit site`));
  });
});

describe("proposals are checked on the server", () => {
  it("needs both content types, a verified site and enough connects", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("terms"), connects: 25 });
    const noType = await post(`/market?post=${listingId}`, { intent: "propose", listingId, myContentType: "blog-post" }, { cookie: a.cookie });
    expect(noType.status).toBe(400);
    expect(await read(noType)).toContain(messages.selectContentType);

    const poor = await propose(a.cookie, listingId);
    expect(poor.status).toBe(402);
    const poorPage = await read(poor);
    expect(poorPage).toContain(messages.notEnoughConnects);
    expect(poorPage).toContain('href="/mysite/connects">Get connects');

    const unverified = await signUp();
    const { listingId: cheap } = await listSite(b.userId, { host: uniqueHost("cheap"), connects: 3 });
    const refused = await propose(unverified.cookie, cheap);
    expect(refused.status).toBe(403);
    expect(await read(refused)).toContain(messages.verifyYourWebsite);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM offers WHERE sender_user_id IN (?, ?)").bind(a.userId, unverified.userId).first()).toEqual(
      { n: 0 },
    );
  });

  it("refuses a proposal to one's own listing and a second pending one for the same post", async () => {
    const a = await trader();
    const own = await listSite(a.userId, { host: uniqueHost("own"), connects: 2 });
    expect((await propose(a.cookie, own.listingId)).status).toBe(404);
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("twice"), connects: 2 });
    expect((await propose(a.cookie, listingId)).status).toBe(302);
    const again = await propose(a.cookie, listingId, [["myMaterials", "blog-content"]]);
    expect(again.status).toBe(409);
    expect(await read(again)).toContain(messages.duplicateOffer);
    expect(await balances(a.userId)).toEqual({ connects: 18, held: 2 });
    await expectLedgerMatches(a.userId);
  });

  it("answers the same proposal sent twice at once (Send pressed twice without JavaScript) as sent, holding its price once", async () => {
    const a = await trader();
    const b = await trader();
    // The whole balance: the second sending finds it held by the first.
    const { listingId } = await listSite(b.userId, { host: uniqueHost("twice-clicked"), connects: 20 });
    const answers = [await propose(a.cookie, listingId), await propose(a.cookie, listingId)];
    for (const answer of answers) {
      expect(answer.status).toBe(302);
      expect(answer.headers.get("Location")).toBe("/market?notice=offer-sent");
    }
    const sent = await env.DB.prepare("SELECT id FROM offers WHERE sender_user_id = ? AND listing_id = ?").bind(a.userId, listingId).all();
    expect(sent.results).toHaveLength(1);
    expect(await balances(a.userId)).toEqual({ connects: 0, held: 20 });
    await expectLedgerMatches(a.userId);

    // A minute later, the same proposal is not a second click: the offer pending for the post is said.
    const c = await trader();
    const { listingId: later } = await listSite(b.userId, { host: uniqueHost("later"), connects: 2 });
    const context = (at: number) => ({ ...createContext(env as never, createExecutionContext()), now: () => at });
    const proposer = { user: { id: c.userId, connects: 20 }, site: { id: c.siteId, host: "c.example", verified: true } };
    const terms = { listingId: later, mine: { contentType: "blog-post", materials: ["logo"] }, theirs: { contentType: "feature", materials: [] } };
    const first = Date.now();
    expect(await proposeOffer(context(first), proposer, terms)).toMatchObject({ ok: true });
    expect(await proposeOffer(context(first + 30_000), proposer, terms)).toMatchObject({ ok: true });
    expect(await proposeOffer(context(first + 61_000), proposer, terms)).toEqual({ ok: false, status: 409, message: messages.duplicateOffer });
  });

  it("holds the price the sender was shown: a price changed since is refused and named, with the choices kept", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("repriced"), connects: 4 });
    const panel = await read(await get(`/market?post=${listingId}`, { cookie: a.cookie }));
    expect(panel).toContain('name="price" value="4"');
    // The owner raises the price while the panel is open.
    await env.DB.prepare("UPDATE listings SET connects = 9 WHERE id = ?").bind(listingId).run();
    const stale = await propose(a.cookie, listingId, [["price", "4"]]);
    expect(stale.status).toBe(409);
    const stalePage = await read(stale);
    expect(stalePage).toContain(messages.priceChanged(9));
    expect(stalePage).toContain('name="price" value="9"');
    expect(stalePage).toMatch(/value="blog-post"[^>]*checked|checked[^>]*value="blog-post"/);
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    expect((await propose(a.cookie, listingId, [["price", "9"]])).status).toBe(302);
    expect(await balances(a.userId)).toEqual({ connects: 11, held: 9 });
    await expectLedgerMatches(a.userId);
  });

  it("sends the user back to the list's order and page, and to nothing else the address carried", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("place"), connects: 2 });
    const sent = await propose(a.cookie, listingId, [], `/market?sort=record&after=r5_10&post=${listingId}&feedback=true&to=//elsewhere.example`);
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/market?sort=record&after=r5_10&notice=offer-sent");
  });
});

describe("only the right party can act", () => {
  it("refuses every wrong action with a 4xx and changes nothing; the same move sent twice is done", async () => {
    const a = await trader();
    const b = await trader();
    const stranger = await trader();
    const rulesHost = uniqueHost("rules");
    const { listingId } = await listSite(b.userId, { host: rulesHost, connects: 4 });
    await propose(a.cookie, listingId);
    const offer = (await latestOfferOf(a.userId))!;

    expect((await act(a.cookie, offer.id, [["intent", "accept"]])).status).toBe(403);
    expect((await act(a.cookie, offer.id, [["intent", "decline"]])).status).toBe(403);
    expect((await act(b.cookie, offer.id, [["intent", "rescind"]])).status).toBe(403);
    expect((await act(a.cookie, offer.id, [["intent", "trash"]])).status).toBe(409);
    expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(409);
    for (const intent of ["accept", "decline", "rescind", "trash"]) {
      expect((await act(stranger.cookie, offer.id, [["intent", intent]])).status).toBe(404);
    }
    expect((await act(b.cookie, offer.id, [["intent", "dance"]])).status).toBe(400);
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");

    expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
    expect((await act(b.cookie, offer.id, [["intent", "decline"]])).status).toBe(409);
    expect((await act(a.cookie, offer.id, [["intent", "rescind"]])).status).toBe(409);
    expect((await move(stranger.cookie, offer.id, "in_progress")).status).toBe(404);
    // Not started cannot jump to completed; completed is final.
    expect((await move(a.cookie, offer.id, "completed", "https://a.example/x")).status).toBe(409);
    expect((await move(a.cookie, offer.id, "stopped")).status).toBe(409);
    await move(a.cookie, offer.id, "in_progress");
    // The same move sent twice (a second click without JavaScript, another tab) is done, as for answers.
    expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(302);
    expect((await move(a.cookie, offer.id, "stopped")).status).toBe(302);
    expect((await move(a.cookie, offer.id, "stopped")).status).toBe(302);
    // Stopped work is resumed: its button says so.
    const stopped = await read(await get(`/mysite/offers?offer=${offer.id}`, { cookie: a.cookie }));
    expect(stopped).toContain(">Resume</button>");
    expect(stopped).not.toContain(">Start</button>");
    expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(302);
    mockWeb({ [`https://${a.url}/x`]: html(`<a href="https://${rulesHost}/">partner</a>`) });
    expect((await move(a.cookie, offer.id, "completed", `https://${a.url}/x`)).status).toBe(302);
    // Completed again with the same page, in another form of its address: done, without reading the page again (it
    // has lost its link since); with another page: refused.
    mockWeb({ [`https://${a.url}/x`]: html("<p>No link any more.</p>") });
    expect((await move(a.cookie, offer.id, "completed", `http://${a.url}/x/`)).status).toBe(302);
    expect((await move(a.cookie, offer.id, "completed", `https://${a.url}/y`)).status).toBe(409);
    expect((await move(a.cookie, offer.id, "stopped")).status).toBe(409);
    expect((await move(a.cookie, offer.id, "in_progress")).status).toBe(409);
    // A move that does not complete ignores the address field; completing with a script address is refused.
    expect((await move(b.cookie, offer.id, "in_progress", "javascript:alert(1)")).status).toBe(302);
    const bad = await move(b.cookie, offer.id, "completed", "javascript:alert(1)");
    expect(bad.status).toBe(400);
    expect(await read(bad)).toContain(messages.enterContentUrl);
    const entry = await env.DB.prepare("SELECT status, content_url FROM offer_entries WHERE offer_id = ? AND user_id = ?")
      .bind(offer.id, b.userId)
      .first();
    expect(entry).toEqual({ status: "in_progress", content_url: null });
  });
});

describe("declined, rescinded and trashed offers", () => {
  it("returns the hold on decline and on rescind, and trash hides an offer for one side only", async () => {
    const a = await trader();
    const b = await trader();
    const first = await listSite(b.userId, { host: uniqueHost("decline"), connects: 5 });
    const second = await listSite(b.userId, { host: uniqueHost("rescind"), connects: 6 });
    await propose(a.cookie, first.listingId);
    const declined = (await latestOfferOf(a.userId))!;
    await propose(a.cookie, second.listingId);
    const rescinded = (await latestOfferOf(a.userId))!;
    expect(await balances(a.userId)).toEqual({ connects: 9, held: 11 });

    expect((await act(b.cookie, declined.id, [["intent", "decline"]])).status).toBe(302);
    expect((await act(a.cookie, rescinded.id, [["intent", "rescind"]])).status).toBe(302);
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    await expectLedgerMatches(a.userId);
    const returned = await env.DB.prepare("SELECT COUNT(*) AS n FROM connect_lots WHERE user_id = ? AND source = 'return'").bind(a.userId).first();
    expect(returned).toEqual({ n: 2 });
    expect(await mailsTo(a.email)).toContain("Your offer was declined");
    expect(await mailsTo(b.email)).toContain("An offer you received was rescinded");

    expect((await act(a.cookie, declined.id, [["intent", "trash"]])).status).toBe(302);
    // Trashed already (a second click): done.
    expect((await act(a.cookie, declined.id, [["intent", "trash"]])).status).toBe(302);
    // B's panel lists the offers of B's active site: the site that received them.
    await post("/sites/active", { siteId: first.siteId }, { cookie: b.cookie });
    const aPage = await read(await fetchPage(a.cookie, "/mysite/offers"));
    const bPage = await read(await fetchPage(b.cookie, "/mysite/offers"));
    expect(aPage).not.toContain(`offer=${declined.id}`);
    expect(aPage).toContain(`offer=${rescinded.id}`);
    expect(bPage).toContain(`offer=${declined.id}`);
  });
});

describe("concurrency", () => {
  it("50 proposals at once from an account that can afford 10: exactly 10 offers and a zero balance", async () => {
    const a = await trader();
    const b = await trader();
    const listings = await Promise.all(Array.from({ length: 50 }, (_, i) => listSite(b.userId, { host: uniqueHost(`burst${i}`), connects: 2 })));
    const responses = await Promise.all(listings.map(({ listingId }) => propose(a.cookie, listingId)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 302)).toHaveLength(10);
    // The rest are refused for want of connects, or by the 20-an-hour proposal limit when they count first.
    expect(statuses.filter((status) => status === 402 || status === 429)).toHaveLength(40);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM offers WHERE sender_user_id = ?").bind(a.userId).first()).toEqual({ n: 10 });
    expect(await balances(a.userId)).toEqual({ connects: 0, held: 20 });
    await expectLedgerMatches(a.userId);
  });
});

describe("the daily job with a controlled clock", () => {
  async function runJob(cron: string, at: number) {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron, scheduledTime: at }), env as never, ctx);
    await waitOnExecutionContext(ctx);
  }
  const runDailyJob = (at: number) => runJob("17 3 * * *", at);

  it("returns the hold of an offer unanswered for 14 days within five minutes, shown as Incomplete", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("silent"), connects: 8 });
    await propose(a.cookie, listingId);
    const offer = (await latestOfferOf(a.userId))!;
    await runDailyJob(Date.now() + 13 * DAY);
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");
    // The five-minute job, not only the daily one: the hold does not wait up to a day, nor does a new proposal.
    const answerBy = (await env.DB.prepare("SELECT answer_by FROM offers WHERE id = ?").bind(offer.id).first<{ answer_by: number }>())!.answer_by;
    await runJob("*/5 * * * *", answerBy - 1000);
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");
    await runJob("*/5 * * * *", answerBy + 60_000);
    expect((await latestOfferOf(a.userId))!.status).toBe("expired");
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    await expectLedgerMatches(a.userId);
    const page = await read(await fetchPage(a.cookie, "/mysite/offers"));
    expect(page).toContain(">Incomplete<");
    expect(await mailsTo(a.email)).toContain("Your offer got no answer");
    const late = await act(b.cookie, offer.id, [["intent", "accept"]]);
    expect(late.status).toBe(409);
    // The job expired it first: the receiver is told why, not that the change is impossible.
    expect(await read(late)).toContain(messages.offerAnswerWindowOver);
    expect((await act(a.cookie, offer.id, [["intent", "trash"]])).status).toBe(302);
  });

  it("expires lots past their date, taking holds from the lots that expire first", async () => {
    const a = await trader();
    const b = await trader();
    const soon = Date.now() + 2 * DAY;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at) VALUES (?, ?, 'purchase', 30, 30, ?)").bind(
        `soon-${a.userId}`,
        a.userId,
        soon,
      ),
      env.DB.prepare("INSERT INTO connect_ledger (id, user_id, kind, amount, lot_id) VALUES (?, ?, 'purchase', 30, ?)").bind(
        crypto.randomUUID(),
        a.userId,
        `soon-${a.userId}`,
      ),
      env.DB.prepare("UPDATE users SET connects = connects + 30 WHERE id = ?").bind(a.userId),
    ]);
    const { listingId } = await listSite(b.userId, { host: uniqueHost("soon"), connects: 10 });
    await propose(a.cookie, listingId);
    const parts = await env.DB.prepare(
      "SELECT lot_id, amount FROM connect_hold_parts p JOIN offers o ON o.id = p.offer_id WHERE o.sender_user_id = ?",
    )
      .bind(a.userId)
      .all();
    expect(parts.results).toEqual([{ lot_id: `soon-${a.userId}`, amount: 10 }]);
    expect(await balances(a.userId)).toEqual({ connects: 40, held: 10 });

    // Not yet due: the five-minute job leaves the lot. Due, its next run takes it (not the next daily run).
    await runJob("*/5 * * * *", soon - 1000);
    expect(await balances(a.userId)).toEqual({ connects: 40, held: 10 });
    await runJob("*/5 * * * *", soon + 1000);
    // The 20 left in the expiring lot are gone; the starter grant's 20 remain; the hold stays held.
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 10 });
    await expectLedgerMatches(a.userId);
    const expiredEntry = await env.DB.prepare("SELECT amount FROM connect_ledger WHERE user_id = ? AND kind = 'expire'").bind(a.userId).first();
    expect(expiredEntry).toEqual({ amount: -20 });
  });
});

describe("connects page", () => {
  it("does not count connects whose year is up before the five-minute job takes them", async () => {
    const a = await trader();
    const b = await trader();
    await env.DB.batch([
      env.DB.prepare("INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at) VALUES (?, ?, 'purchase', 30, 30, ?)").bind(
        `gone-${a.userId}`,
        a.userId,
        Date.now() - 60_000,
      ),
      env.DB.prepare("INSERT INTO connect_ledger (id, user_id, kind, amount, lot_id) VALUES (?, ?, 'purchase', 30, ?)").bind(
        crypto.randomUUID(),
        a.userId,
        `gone-${a.userId}`,
      ),
      env.DB.prepare("UPDATE users SET connects = connects + 30 WHERE id = ?").bind(a.userId),
    ]);
    // The account row still says 50 (the job has not run); the pages say what a proposal can hold: the starter 20.
    expect(await balances(a.userId)).toEqual({ connects: 50, held: 0 });
    const page = await read(await fetchPage(a.cookie, "/mysite/connects"));
    expect(page).toMatch(/data-testid="available-connects">20</);
    const { listingId } = await listSite(b.userId, { host: uniqueHost("due"), connects: 25 });
    const dashboard = await read(await fetchPage(a.cookie, "/mysite"));
    expect(dashboard).toMatch(/href="\/mysite\/connects"[^>]*>\s*<strong>20</);
    expect((await propose(a.cookie, listingId)).status).toBe(402);
  });

  it("shows available and held connects, the lots with their expiry and the history", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("page"), connects: 3 });
    await propose(a.cookie, listingId);
    const page = await read(await fetchPage(a.cookie, "/mysite/connects"));
    expect(page).toMatch(/data-testid="available-connects">17</);
    expect(page).toMatch(/data-testid="held-connects">3</);
    expect(page).toContain("17 of 20");
    expect(page).toContain("Held for a proposal");
    expect(page).toContain("Starter grant");
  });
});

describe("email written with the change it reports", () => {
  /** Makes the outbox refuse email to one address, as a failing write would. */
  async function breakOutboxFor(email: string) {
    const name = `fail_${crypto.randomUUID().replaceAll("-", "")}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${name} BEFORE INSERT ON email_outbox WHEN NEW.to_address = '${email}' BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
    ).run();
    return () => env.DB.prepare(`DROP TRIGGER ${name}`).run();
  }

  it("a proposal whose email cannot be written saves nothing and holds nothing", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("mailless"), connects: 6 });
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const repair = await breakOutboxFor(b.email);
    const response = await propose(a.cookie, listingId);
    await repair();
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
    expect(response.status).toBe(500);
    expect(await read(response)).toContain(messages.offerSendFailed);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM offers WHERE sender_user_id = ?").bind(a.userId).first()).toEqual({ n: 0 });
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    await expectLedgerMatches(a.userId);
  });

  it("an accept whose email cannot be written changes nothing; with the outbox back, it goes through with one email", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("mailless"), connects: 6 });
    await propose(a.cookie, listingId);
    const offer = (await latestOfferOf(a.userId))!;
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const repair = await breakOutboxFor(a.email);
    const refused = await act(b.cookie, offer.id, [["intent", "accept"]]);
    expect(refused.status).toBe(500);
    expect(await read(refused)).toContain(messages.offerSaveFailed);
    await repair();
    logged.mockRestore();
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");
    expect(await balances(a.userId)).toEqual({ connects: 14, held: 6 });
    expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
    // Sent again: done, and no second email.
    expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
    expect((await mailsTo(a.email)).filter((subject) => subject === "Your offer was accepted")).toHaveLength(1);
  });

  it("refuses an accept after the 14-day window even before the daily job has run", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("late"), connects: 5 });
    await propose(a.cookie, listingId);
    const offer = (await latestOfferOf(a.userId))!;
    await env.DB.prepare("UPDATE offers SET answer_by = ? WHERE id = ?")
      .bind(Date.now() - 1_000, offer.id)
      .run();
    const late = await act(b.cookie, offer.id, [
      ["intent", "accept"],
      ["materials", "blog-content"],
      ["materials", "long-description"],
    ]);
    expect(late.status).toBe(409);
    const page = await read(late);
    expect(page).toContain(messages.offerAnswerWindowOver);
    // The page that says so (without JavaScript) keeps the materials chosen (the sender offered a logo).
    const checked = [...page.matchAll(/<input type="checkbox" name="materials"[^>]*>/g)].filter(([input]) => input.includes('checked=""'));
    expect(checked.map(([input]) => input.match(/value="([a-z-]+)"/)?.[1])).toEqual(["blog-content", "long-description"]);
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");
    expect(await balances(a.userId)).toEqual({ connects: 15, held: 5 });
  });

  it("expires any number of offers in a few statements, each sender told once", async () => {
    // Not a Sunday (UTC): on Sundays the daily job also merges the search indexes, which is not what is counted here.
    const notSunday = (time: number) => (new Date(time).getUTCDay() === 0 ? time + DAY : time);
    const dailyJob = async (scheduledTime: number, jobEnv: object) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime }), jobEnv as never, ctx);
      await waitOnExecutionContext(ctx);
    };
    // What this file's other tests left pending expires first, in a run of its own, and is more than three days
    // old at the counted run (whose records count the last three days' expiries): only these 12 offers are counted.
    const flushed = notSunday(Date.now() + 15 * DAY);
    await dailyJob(flushed, env);
    const a = await trader();
    const b = await trader();
    const listings = await Promise.all(Array.from({ length: 12 }, (_, i) => listSite(b.userId, { host: uniqueHost(`many${i}`), connects: 1 })));
    for (const { listingId } of listings) expect((await propose(a.cookie, listingId)).status).toBe(302);
    let statements = 0;
    const counted = new Proxy(env.DB, {
      get(target, property, receiver) {
        if (property === "prepare") return (query: string) => ((statements += 1), target.prepare(query));
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await dailyJob(notSunday(flushed + 4 * DAY), { ...env, DB: counted });
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM offers WHERE sender_user_id = ? AND status = 'expired'").bind(a.userId).first()).toEqual({
      n: 12,
    });
    expect((await mailsTo(a.email)).filter((subject) => subject === "Your offer got no answer")).toHaveLength(12);
    const text = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND subject = 'Your offer got no answer' LIMIT 1")
      .bind(a.email)
      .first<{ text_body: string }>();
    expect(text!.text_body).toMatch(
      /^many\d+-[0-9a-f]{8}\.com did not answer your offer in 14 days\. The 1 connects it held are back in your balance, apart from any whose year has run out or that a refund of their payment took back\.\n\nSee it here: https:\/\/market\.test\/mysite\/offers\?offer=/,
    );
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    // The whole daily job, every part of it, for 12 offers: a fixed number of statements, not three per offer.
    expect(statements).toBeLessThan(25);
  });

  it("limits proposals per sender per hour, so a propose-and-rescind loop cannot flood a listing owner", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("looped"), connects: 1 });
    // All in one hour's window (a loop crossing the hour would count in two).
    const at = windowStart(60 * 60_000);
    const from = `/market?post=${listingId}`;
    for (let i = 0; i < 20; i += 1) {
      expect((await propose(a.cookie, listingId, [], from, at)).status).toBe(302);
      // Refused as a duplicate (other terms while one is pending): nothing sent, so it does not count.
      if (i === 0) expect((await propose(a.cookie, listingId, [["myMaterials", "short-description"]], from, at)).status).toBe(409);
      // Send pressed twice on the last proposal the hour allows: the second is that one, sent, not "too many".
      if (i === 19) expect((await propose(a.cookie, listingId, [], from, at)).headers.get("Location")).toBe("/market?notice=offer-sent");
      const offer = await env.DB.prepare("SELECT id FROM offers WHERE sender_user_id = ? AND status = 'pending'")
        .bind(a.userId)
        .first<{ id: string }>();
      expect((await act(a.cookie, offer!.id, [["intent", "rescind"]], at)).status).toBe(302);
    }
    const refused = await propose(a.cookie, listingId, [], from, at);
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyProposals);
    expect((await mailsTo(b.email)).filter((subject) => subject.startsWith("New offer"))).toHaveLength(20);
  });
});

describe("answers", () => {
  it("refuses an accept while either site has lost its verification since the proposal, and keeps the hold", async () => {
    const a = await trader();
    const b = await trader();
    const listed = await listSite(b.userId, { host: uniqueHost("lost"), connects: 5 });
    await propose(a.cookie, listed.listingId);
    const offer = (await latestOfferOf(a.userId))!;
    const senderHost = (await env.DB.prepare("SELECT host FROM sites WHERE id = ?").bind(a.siteId).first<{ host: string }>())!.host;
    const setVerified = (siteId: string, verified: boolean) =>
      env.DB.prepare("UPDATE sites SET verified = ? WHERE id = ?")
        .bind(verified ? 1 : 0, siteId)
        .run();

    // Another account took the receiving site's verification over: its owner is asked to verify it again.
    await setVerified(listed.siteId, false);
    const receiverLost = await act(b.cookie, offer.id, [["intent", "accept"]]);
    expect(receiverLost.status).toBe(403);
    const refusal = /<p[^>]*id="offer-error"[^>]*>(.*?)<\/p>/s.exec(await read(receiverLost))?.[1] ?? "";
    // With the way forward, as the proposal form gives it.
    expect(refusal).toContain(messages.verifyYourWebsite);
    expect(refusal).toMatch(/<a [^>]*href="\/mysite\/verify"[^>]*>Get verified<\/a>/);
    // The sending site failed its re-checks: the receiver is told whose verification is missing.
    await setVerified(listed.siteId, true);
    await setVerified(a.siteId, false);
    const senderLost = await act(b.cookie, offer.id, [["intent", "accept"]]);
    expect(senderLost.status).toBe(409);
    expect(await read(senderLost)).toContain(messages.senderNoLongerVerified(senderHost));
    expect((await latestOfferOf(a.userId))!.status).toBe("pending");
    expect(await balances(a.userId)).toEqual({ connects: 15, held: 5 });
    expect(await mailsTo(a.email)).not.toContain("Your offer was accepted");

    await setVerified(a.siteId, true);
    expect((await act(b.cookie, offer.id, [["intent", "accept"]])).status).toBe(302);
    expect(await balances(a.userId)).toEqual({ connects: 15, held: 0 });
  });

  it("answers the same answer sent twice (a second click, another tab) as done, and sends its email once", async () => {
    const a = await trader();
    const b = await trader();
    const first = await listSite(b.userId, { host: uniqueHost("twice-accept"), connects: 2 });
    const second = await listSite(b.userId, { host: uniqueHost("twice-decline"), connects: 3 });
    const third = await listSite(b.userId, { host: uniqueHost("twice-rescind"), connects: 4 });
    await propose(a.cookie, first.listingId);
    const accepted = (await latestOfferOf(a.userId))!;
    await propose(a.cookie, second.listingId);
    const declined = (await latestOfferOf(a.userId))!;
    await propose(a.cookie, third.listingId);
    const rescinded = (await latestOfferOf(a.userId))!;

    // At once, and again after.
    const both = await Promise.all([act(b.cookie, accepted.id, [["intent", "accept"]]), act(b.cookie, accepted.id, [["intent", "accept"]])]);
    expect(both.map((answer) => answer.status)).toEqual([302, 302]);
    expect(both[1]!.headers.get("Location")).toContain(`offer=${accepted.id}`);
    expect((await act(b.cookie, accepted.id, [["intent", "accept"]])).status).toBe(302);
    for (let i = 0; i < 2; i += 1) {
      expect((await act(b.cookie, declined.id, [["intent", "decline"]])).status).toBe(302);
      expect((await act(a.cookie, rescinded.id, [["intent", "rescind"]])).status).toBe(302);
    }
    // Another answer than the one given is still refused.
    expect((await act(b.cookie, declined.id, [["intent", "accept"]])).status).toBe(409);
    expect(await balances(a.userId)).toEqual({ connects: 18, held: 0 });
    await expectLedgerMatches(a.userId);
    const senderMails = await mailsTo(a.email);
    expect(senderMails.filter((subject) => subject === "Your offer was accepted")).toHaveLength(1);
    expect(senderMails.filter((subject) => subject === "Your offer was declined")).toHaveLength(1);
    // The receiver is told of the rescind in words that fit the receiver (it was never the receiver's offer).
    expect((await mailsTo(b.email)).filter((subject) => subject === "An offer you received was rescinded")).toHaveLength(1);
  });
});

describe("races", () => {
  it("an accept racing a rescind: exactly one wins, and the connects follow it", async () => {
    for (let round = 0; round < 6; round += 1) {
      const a = await trader();
      const b = await trader();
      const { listingId } = await listSite(b.userId, { host: uniqueHost("race"), connects: 7 });
      await propose(a.cookie, listingId);
      const offer = (await latestOfferOf(a.userId))!;
      const [accept, rescind] = await Promise.all([
        act(b.cookie, offer.id, [["intent", "accept"]]),
        act(a.cookie, offer.id, [["intent", "rescind"]]),
      ]);
      expect([accept.status, rescind.status].sort()).toEqual([302, 409]);
      const status = (await latestOfferOf(a.userId))!.status;
      expect(status).toBe(accept.status === 302 ? "accepted" : "rescind");
      expect(await balances(a.userId)).toEqual(status === "accepted" ? { connects: 13, held: 0 } : { connects: 20, held: 0 });
      await expectLedgerMatches(a.userId);
      const mails = await mailsTo(status === "accepted" ? a.email : b.email);
      expect(
        mails.filter((subject) => subject === (status === "accepted" ? "Your offer was accepted" : "An offer you received was rescinded")),
      ).toHaveLength(1);
    }
  });

  it("a proposal whose post or site changes between its read and its write makes no offer and says what changed", async () => {
    const a = await trader();
    const b = await trader();
    const { listingId } = await listSite(b.userId, { host: uniqueHost("moving"), connects: 7 });
    const db = database(env.DB);
    // Another request changes the database right before the proposal's batch.
    const proposeWhile = async (change: string, value: unknown) => {
      const meanwhile: typeof db = Object.assign(Object.create(db), {
        batch: async (statements: Parameters<typeof db.batch>[0]) => {
          await env.DB.prepare(change).bind(value).run();
          return db.batch(statements);
        },
      });
      const context = { ...createContext(env as never, createExecutionContext()), db: meanwhile, deliversAtEnd: true };
      const terms = { contentType: "blog-post", materials: ["logo"] };
      return proposeOffer(
        context,
        { user: { id: a.userId, connects: 20 }, site: { id: a.siteId, host: "a.example", verified: true } },
        { listingId, price: 7, mine: terms, theirs: terms },
      );
    };

    expect(await proposeWhile("UPDATE listings SET connects = 12 WHERE id = ?", listingId)).toEqual({
      ok: false,
      status: 409,
      message: messages.priceChanged(12),
    });
    await env.DB.prepare("UPDATE listings SET connects = 7 WHERE id = ?").bind(listingId).run();
    expect(await proposeWhile("UPDATE listings SET active = 0 WHERE id = ?", listingId)).toEqual({
      ok: false,
      status: 409,
      message: messages.couldNotSendOffer,
    });
    await env.DB.prepare("UPDATE listings SET active = 1 WHERE id = ?").bind(listingId).run();
    expect(await proposeWhile("UPDATE sites SET verified = 0 WHERE id = ?", a.siteId)).toEqual({
      ok: false,
      status: 403,
      message: messages.verifyYourWebsite,
    });
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE id = ?").bind(a.siteId).run();
    // The post's site lost its verification: the post is out of the market.
    expect(await proposeWhile("UPDATE sites SET verified = 0 WHERE id = (SELECT site_id FROM listings WHERE id = ?)", listingId)).toEqual({
      ok: false,
      status: 409,
      message: messages.couldNotSendOffer,
    });
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE id = (SELECT site_id FROM listings WHERE id = ?)").bind(listingId).run();
    // The sender's site deleted from another tab: nothing to send from.
    expect(await proposeWhile("DELETE FROM sites WHERE id = ?", a.siteId)).toEqual({ ok: false, status: 409, message: messages.couldNotSendOffer });
    expect(await latestOfferOf(a.userId)).toBeNull();
    expect(await balances(a.userId)).toEqual({ connects: 20, held: 0 });
    expect(await mailsTo(b.email)).toEqual([]);
  });
});
