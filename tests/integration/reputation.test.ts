import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker, { createContext } from "~/worker";
import { refreshDueReputations, refreshReputation } from "~/services/reputation.server";
import { get, listSite, post, propose, read, trader, uniqueHost } from "./helpers";
import { html, mockWeb } from "./web-mock";

afterEach(() => vi.restoreAllMocks());

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

function db() {
  return createContext(env as never, createExecutionContext()).db;
}

function record(siteId: string) {
  return env.DB.prepare(
    "SELECT rep_completed, rep_settled, rep_answered, rep_answer_ms, rep_links_30, rep_live_30, rep_links_90, rep_live_90, rep_sort FROM sites WHERE id = ?",
  )
    .bind(siteId)
    .first<Record<string, number | null>>();
}

/** An accepted (or declined) offer from `from` to `to`, answered after `answerMs`, with `to`'s side in `side`. */
async function trade(
  from: { userId: string; siteId: string },
  to: { userId: string; siteId: string },
  options: { createdAt: number; answerMs: number; status?: "accepted" | "declined"; side?: string; completedAt?: number },
) {
  const id = crypto.randomUUID();
  const status = options.status ?? "accepted";
  const statements = [
    env.DB.prepare(
      "INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, answered_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)",
    ).bind(
      id,
      from.userId,
      from.siteId,
      to.userId,
      to.siteId,
      status,
      options.createdAt + 14 * DAY,
      options.createdAt + options.answerMs,
      options.createdAt,
      options.createdAt,
    ),
  ];
  if (status === "accepted") {
    const completed = options.side === "completed";
    statements.push(
      env.DB.prepare(
        "INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, status, content_url, link_status, link_watch_until, updated_at) VALUES (?, ?, ?, 'receiver', 'blog-post', ?, ?, ?, ?, 0)",
      ).bind(
        id,
        to.userId,
        to.siteId,
        options.side ?? "in_progress",
        completed ? "https://x/post" : null,
        completed ? "live" : null,
        completed ? options.completedAt! + YEAR : null,
      ),
      env.DB.prepare(
        "INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, status, updated_at) VALUES (?, ?, ?, 'sender', 'blog-post', 'in_progress', 0)",
      ).bind(id, from.userId, from.siteId),
    );
  }
  await env.DB.batch(statements);
  return id;
}

/** A check of the link `user` delivered on `offerId`. */
async function check(offerId: string, userId: string, at: number, state: "found" | "missing" | "error", rel = "follow") {
  await env.DB.prepare(
    "INSERT INTO link_checks (id, offer_id, user_id, content_url, target_host, state, rel, hidden, checked_at) VALUES (?, ?, ?, 'https://x/post', 'y.com', ?, ?, 0, ?)",
  )
    .bind(crypto.randomUUID(), offerId, userId, state, state === "found" ? rel : null, at)
    .run();
}

async function listed(word: string, prefix: string) {
  const owner = await trader();
  const { siteId, listingId } = await listSite(owner.userId, {
    host: uniqueHost(prefix),
    description: `${word} ${prefix} site with a record to show`,
  });
  return { ...owner, siteId, listingId };
}

describe("a site's record", () => {
  it("is counted from a known history, shown on the profile, the market panel and search cards, and sorts the results", async () => {
    const now = Date.now();
    const word = `zebrafinch${crypto.randomUUID().slice(0, 6)}`;
    const partner = await trader();
    // S: seven answered offers (six accepted, one declined), a mixed record whose links mostly died by 90 days.
    const s = await listed(word, "steady");
    const answers = [1, 2, 3, 4, 5, 6].map((hours) => hours * HOUR);
    const completedAt = now - 100 * DAY;
    const sides = ["completed", "completed", "completed", "stopped", "in_progress", "in_progress"];
    const offerIds: string[] = [];
    for (const [i, answerMs] of answers.entries()) {
      // The fifth was accepted 40 days ago and is still open (overdue); the sixth 5 days ago (not due yet).
      const createdAt = i === 5 ? now - 5 * DAY : now - 110 * DAY + i * HOUR;
      offerIds.push(await trade(partner, s, { createdAt, answerMs, side: sides[i], completedAt: i < 3 ? completedAt : undefined }));
    }
    await env.DB.prepare("UPDATE offers SET answered_at = ? WHERE id = ?")
      .bind(now - 40 * DAY, offerIds[4])
      .run();
    await env.DB.prepare("UPDATE offers SET created_at = ? WHERE id = ?")
      .bind(now - 40 * DAY - 4 * HOUR, offerIds[4])
      .run();
    await trade(partner, s, { createdAt: now - 3 * DAY, answerMs: 7 * HOUR, status: "declined" });
    // Link 1 live at 30 and 90 days; link 2 live at 30, gone at 90; link 3: unreadable on day 30, gone the day after.
    await check(offerIds[0]!, s.userId, completedAt + 30 * DAY + HOUR, "found");
    await check(offerIds[0]!, s.userId, completedAt + 90 * DAY + HOUR, "found");
    await check(offerIds[1]!, s.userId, completedAt + 30 * DAY + HOUR, "found");
    await check(offerIds[1]!, s.userId, completedAt + 90 * DAY + HOUR, "missing");
    await check(offerIds[2]!, s.userId, completedAt + 30 * DAY + HOUR, "error");
    await check(offerIds[2]!, s.userId, completedAt + 31 * DAY, "missing");
    await check(offerIds[2]!, s.userId, completedAt + 90 * DAY + HOUR, "missing");

    // G: one trade, completed, its link live at 30 days. N: new, nothing yet.
    const g = await listed(word, "good");
    const gOffer = await trade(partner, g, { createdAt: now - 50 * DAY, answerMs: 30 * 60_000, side: "completed", completedAt: now - 45 * DAY });
    await check(gOffer, g.userId, now - 15 * DAY + HOUR, "found");
    const n = await listed(word, "new");

    await refreshReputation(db(), [s.siteId, g.siteId, n.siteId], now);
    expect(await record(s.siteId)).toEqual({
      rep_completed: 3,
      rep_settled: 5, // 3 completed, 1 stopped, 1 open for 40 days; the one accepted 5 days ago is not due
      rep_answered: 7,
      rep_answer_ms: 4 * HOUR, // median of 1, 2, 3, 4, 5, 6 and 7 hours
      rep_links_30: 3,
      rep_live_30: 2,
      rep_links_90: 3,
      rep_live_90: 1,
      rep_sort: 0, // poor: 2 of 3 links gone within 90 days
    });
    expect(await record(g.siteId)).toMatchObject({
      rep_completed: 1,
      rep_settled: 1,
      rep_answered: 1,
      rep_links_30: 1,
      rep_live_30: 1,
      rep_links_90: 0,
    });
    expect((await record(g.siteId))!.rep_sort).toBeGreaterThan(1);
    expect((await record(n.siteId))!.rep_sort).toBe(1);

    // Search cards carry the record; sorted by record: G, then N, then S (poor records last).
    const viewer = await trader();
    const byRecord = await read(await get(`/search?term=${word}&sort=record`, { cookie: viewer.cookie }));
    const order = (page: string) => [s, g, n].map((site) => ({ site, at: page.indexOf(`post=${site.listingId}`) })).sort((a, b) => a.at - b.at);
    expect(order(byRecord).map((entry) => entry.site)).toEqual([g, n, s]);
    expect(byRecord).toContain("<strong>Poor record: </strong>3 trades completed · 60% completion · 67% links live at 30 days");
    expect(byRecord).toContain("1 trade completed · 100% completion · 100% links live at 30 days");
    expect(byRecord).toContain("No trades yet");
    expect(byRecord).toContain('<option value="record" selected="">Best record</option>');
    const newest = await read(await get(`/search?term=${word}`, { cookie: viewer.cookie }));
    expect(order(newest).map((entry) => entry.site)).toEqual([n, g, s]);

    // The market sorts the same way (page after page), and its panel explains the record.
    const seen: string[] = [];
    let path: string | null = "/market?sort=record";
    while (path && !(seen.includes(g.listingId) && seen.includes(s.listingId))) {
      const page = await read(await get(path, { cookie: viewer.cookie }));
      for (const match of page.matchAll(
        /data-testid="post-card"[^>]*href="[^"]*post=([\w-]+)"|href="[^"]*post=([\w-]+)"[^>]*data-testid="post-card"/g,
      ))
        seen.push(match[1] ?? match[2]!);
      const next = /href="(\/market\?sort=record&amp;after=[^"]+)"/.exec(page)?.[1];
      path = next ? next.replaceAll("&amp;", "&") : null;
    }
    expect(seen.indexOf(g.listingId)).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf(g.listingId)).toBeLessThan(seen.indexOf(s.listingId));
    const panel = await read(await get(`/market?post=${s.listingId}`, { cookie: viewer.cookie }));
    expect(panel).toContain("Poor record:</strong> 2 of 3 links gone within 90 days.");
    for (const text of ["Completion rate", "60% of 5", "in 4 hours (median of 7)", "67% of 3", "33% of 3", "How is this measured?"])
      expect(panel).toContain(text);

    // The trade's profile view shows the other site's record.
    expect((await propose(viewer.cookie, g.listingId)).status).toBe(302);
    const offer = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ? AND sender_user_id = ?")
      .bind(g.listingId, viewer.userId)
      .first<{ id: string }>())!;
    const profile = await read(await get(`/mysite/offers?offer=${offer.id}&view=profile`, { cookie: viewer.cookie }));
    expect(profile).toContain("Links live after 30 days");
    expect(profile).toContain("100% of 1");
    expect(profile).toContain("within an hour (median of 1)");
  });

  it("two refreshes that overlap keep the later count: one that read before a completion cannot write over one that read after", async () => {
    const other = await trader();
    const site = await trader();
    const now = Date.now();
    await trade(other, site, { createdAt: now - 2 * DAY, answerMs: HOUR, side: "completed", completedAt: now - DAY });
    // The first refresh reads (one completed side), then waits before its write...
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading = () => {};
    const read = new Promise<void>((resolve) => (reading = resolve));
    const base = db();
    const slow = Object.assign(Object.create(base), {
      run: async (...args: Parameters<typeof base.run>) => {
        reading();
        await held;
        return base.run(...args);
      },
    });
    const first = refreshReputation(slow, [site.siteId], now);
    await read;
    // ...while a second side is completed and a refresh made after it writes (two completed).
    await new Promise((resolve) => setTimeout(resolve, 5));
    await trade(other, site, { createdAt: now - 2 * DAY, answerMs: HOUR, side: "completed", completedAt: now - DAY });
    await refreshReputation(db(), [site.siteId], now);
    expect((await record(site.siteId))!.rep_completed).toBe(2);
    release();
    await first;
    expect((await record(site.siteId))!.rep_completed).toBe(2);
  });

  it("is counted again when the site answers an offer, and daily for trades that have been open 30 days", async () => {
    const sender = await trader();
    const owner = await trader();
    const { siteId, listingId } = await listSite(owner.userId, { host: uniqueHost("answers") });
    await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(siteId, owner.userId).run();
    expect((await propose(sender.cookie, listingId)).status).toBe(302);
    const offer = (await env.DB.prepare("SELECT id, created_at FROM offers WHERE listing_id = ?")
      .bind(listingId)
      .first<{ id: string; created_at: number }>())!;
    const answeredAt = offer.created_at + 3 * HOUR;
    // Held at a time, so the refresh after the response is over when the request returns.
    expect((await post(`/mysite/offers?offer=${offer.id}`, { intent: "accept" }, { cookie: owner.cookie, at: answeredAt })).status).toBe(302);
    expect(await record(siteId)).toMatchObject({ rep_answered: 1, rep_answer_ms: 3 * HOUR, rep_settled: 0, rep_sort: 1 });
    // The owner sees the record on the dashboard as others see it.
    const dashboard = await read(await get("/mysite", { cookie: owner.cookie }));
    expect(dashboard).toContain("Your record, as other sites see it");
    expect(dashboard).toContain("in 3 hours (median of 1)");

    // Thirty days on, the daily job counts the open side as not completed; an offer the site left unanswered
    // counts as the whole 14-day window.
    const later = answeredAt + 30 * DAY + HOUR;
    const other = await trader();
    await env.DB.prepare(
      "INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, expired_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, 'expired', ?, ?, ?, ?)",
    )
      .bind(crypto.randomUUID(), other.userId, other.siteId, owner.userId, siteId, later - DAY, later - HOUR, later - 15 * DAY, later)
      .run();
    const ctx = createExecutionContext();
    const context = { ...createContext(env as never, ctx), now: () => later };
    expect(await refreshDueReputations(context)).toBeGreaterThanOrEqual(2);
    expect(await record(siteId)).toMatchObject({ rep_completed: 0, rep_settled: 1, rep_answered: 2, rep_answer_ms: (3 * HOUR + 14 * DAY) / 2 });
  });

  it("is counted again when the five-minute job makes a delivered link's 30-day check", async () => {
    const partner = await trader();
    const owner = await trader();
    const host = (await env.DB.prepare("SELECT host FROM sites WHERE id = ?").bind(owner.siteId).first<{ host: string }>())!.host;
    const partnerHost = (await env.DB.prepare("SELECT host FROM sites WHERE id = ?").bind(partner.siteId).first<{ host: string }>())!.host;
    const now = Date.now();
    const page = `https://${host}/thanks`;
    const offerId = await trade(partner, owner, { createdAt: now - 40 * DAY, answerMs: HOUR, side: "completed", completedAt: now - 30 * DAY - HOUR });
    await env.DB.prepare("UPDATE offer_entries SET content_url = ?, link_due_at = ? WHERE offer_id = ? AND user_id = ?")
      .bind(page, now - 1, offerId, owner.userId)
      .run();
    await env.DB.prepare("UPDATE sites SET audit_due_at = ?")
      .bind(now + DAY)
      .run();
    expect((await record(owner.siteId))!.rep_links_30).toBe(0);
    mockWeb({ [page]: html(`<p>Thanks to <a href="https://${partnerHost}/">our partner</a>.</p>`) });
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime: now, cron: "*/5 * * * *" }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(await record(owner.siteId)).toMatchObject({ rep_completed: 1, rep_links_30: 1, rep_live_30: 1 });
  });
});
