import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "~/worker";
import { messages } from "~/domain/messages";
import { TAG_RENEWED_MEANWHILE } from "~/services/verification.server";
import { typedHost } from "~/domain/site-address";
import { envWithFailingTable, get, listSite, PASSWORD, post, read, sessionCookieOf, signUp, windowStart } from "./helpers";
import { endlessBytes, hangingBody, html, mockWeb, redirectTo, unreachable } from "./web-mock";

afterEach(() => vi.restoreAllMocks());

interface SiteRow {
  id: string;
  verified: number;
  verified_at: number | null;
  verification_token: string;
  verification_error: string | null;
  verification_failures: number;
  verification_due_at: number | null;
}

async function siteOf(userId: string) {
  return (await env.DB.prepare("SELECT * FROM sites WHERE user_id = ? ORDER BY created_at LIMIT 1").bind(userId).first<SiteRow>())!;
}

const tagOf = (token: string) => `<meta name="backlink-verification" content="${token}">`;
const homeWith = (head: string, body = "<h1>Welcome</h1>") =>
  html(`<!doctype html><html lang="en"><head><title>Home</title>${head}</head><body>${body}</body></html>`);

function check(cookie: string, at?: number) {
  return post("/mysite/verify", { intent: "check" }, { cookie, at });
}

/** A new user whose home page (https://{host}/) answers with `page(token)`; returns the check's answer. */
async function signUpAndCheck(page: (token: string) => Parameters<typeof mockWeb>[0][string], host?: string) {
  const user = await signUp(undefined, host);
  const site = await siteOf(user.userId);
  const web = mockWeb({ [`https://${typedHost(user.url)}/`]: page(site.verification_token) });
  const response = await check(user.cookie);
  return { user, site, web, response, after: await siteOf(user.userId) };
}

describe("the Verify Site page", () => {
  it("shows the site's tag, where it goes and a Check button; the tag stays the same until a new one is asked for", async () => {
    const user = await signUp();
    const site = await siteOf(user.userId);
    const page = await read(await get("/mysite/verify", { cookie: user.cookie }));
    expect(page).toMatch(/<input(?=[^>]*id="verification-tag")(?=[^>]*readonly="")[^>]*>/);
    expect(page).toContain(`value="&lt;meta name=&quot;backlink-verification&quot; content=&quot;${site.verification_token}&quot;&gt;"`);
    expect(page).toContain("&lt;head&gt;");
    expect(page).toMatch(/<button[^>]*value="check"[^>]*>\s*Check<\/button>/);
    expect(page).toContain("Not verified");
    const again = await read(await get("/mysite/verify", { cookie: user.cookie }));
    expect(again).toContain(site.verification_token);

    const renewed = await post("/mysite/verify", { intent: "new-tag" }, { cookie: user.cookie });
    expect(renewed.headers.get("Location")).toBe("/mysite/verify?notice=new-tag");
    const after = await siteOf(user.userId);
    expect(after.verification_token).not.toBe(site.verification_token);
    expect(await read(await get("/mysite/verify", { cookie: user.cookie }))).toContain(after.verification_token);
  });

  it("verifies a site whose home page head carries the tag: stored, shown, banners gone, listing in the market, proposals allowed", async () => {
    const { user, response, after } = await signUpAndCheck((token) => homeWith(tagOf(token)));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/mysite/verify?notice=verified");
    expect(after).toMatchObject({ verified: 1, verification_error: null, verification_failures: 0 });
    expect(after.verified_at).toBeGreaterThan(Date.now() - 60_000);
    expect(after.verification_due_at).toBeGreaterThan(Date.now() + 26 * 24 * 3600_000);

    const shown = await read(await get("/mysite/verify?notice=verified", { cookie: user.cookie }));
    expect(shown).toContain(messages.siteVerified);
    expect(shown).toMatch(/class="verified"[^>]*>Verified</);
    const dashboard = await read(await get("/mysite", { cookie: user.cookie }));
    expect(dashboard).not.toContain(messages.verifyBanner);
    expect(dashboard).toContain(">Verified<");

    // Listed at a price, the verified site is in other users' market; and it can send proposals.
    await post(
      "/mysite/settings",
      { description: "A site about small-space gardening and balcony vegetables.", listed: "on", connects: "4", contentTypes: "blog-post" },
      { cookie: user.cookie },
    );
    const other = await signUp();
    expect(await read(await get(`/search?term=${user.url}`, { cookie: other.cookie }))).toContain(user.url);
    const owner = await signUp();
    const { listingId } = await listSite(owner.userId, { host: `listed-${crypto.randomUUID().slice(0, 6)}.com`, connects: 3 });
    const proposal = await post(
      `/market?post=${listingId}`,
      { intent: "propose", listingId, myContentType: "blog-post", theirContentType: "feature" },
      { cookie: user.cookie },
    );
    expect(proposal.status).toBe(302);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM offers WHERE sender_user_id = ?").bind(user.userId).first()).toEqual({ n: 1 });
  });

  it.each([
    ["the tag is missing", (_: string) => homeWith('<meta name="description" content="Gardening">')],
    ["the tag is in the body only", (token: string) => homeWith("", `<p>${tagOf(token)}</p>`)],
    ["the tag has another token", (_: string) => homeWith(tagOf("someoneelsestoken"))],
    [
      "the tag comes after the head has ended",
      (token: string) => html(`<html><head><title>x</title></head><body><div>hi</div>${tagOf(token)}</body></html>`),
    ],
  ])("does not verify when %s: 'Could not find your tag' and 'Check again'", async (_, page) => {
    const { user, response, after } = await signUpAndCheck(page);
    expect(response.headers.get("Location")).toBe("/mysite/verify");
    expect(after).toMatchObject({ verified: 0, verification_error: messages.tagNotFound });
    const shown = await read(await get("/mysite/verify", { cookie: user.cookie }));
    expect(shown).toContain(messages.tagNotFound);
    expect(shown).toMatch(/<button[^>]*value="check"[^>]*>\s*Check again<\/button>/);
  });

  it("does not verify with the tag of another site of the marketplace", async () => {
    const first = await signUp();
    const firstSite = await siteOf(first.userId);
    const { after } = await signUpAndCheck(() => homeWith(tagOf(firstSite.verification_token)));
    expect(after.verified).toBe(0);
  });

  it("reads malformed HTML the way browsers do", async () => {
    const noHeadTag = await signUpAndCheck((token) => html(`<!DOCTYPE html><META NAME="Backlink-Verification" CONTENT="${token}"><p>Hello`));
    expect(noHeadTag.after.verified).toBe(1);
    const brokenTitle = await signUpAndCheck((token) =>
      html(`<html><head><meta name=backlink-verification content=${token}><title>Oops</titl><body><p>never closed`),
    );
    expect(brokenTitle.after.verified).toBe(1);
    const unclosedAttribute = await signUpAndCheck((token) =>
      html(`<html><head><meta name="keywords" content="a><title>x</title>${tagOf(token)}</head></html>`),
    );
    expect(unclosedAttribute.after.verified).toBe(0);
  });

  it("stops reading once the head has the tag, even when the head never closes and the page never ends", async () => {
    const { after, response } = await signUpAndCheck((token) => () => {
      const body = hangingBody(`<html><head><title>x</title>${tagOf(token)}<link rel="stylesheet" href="/a.css">`);
      return new Response(body.stream, { headers: { "Content-Type": "text/html" } });
    });
    expect(response.status).toBe(302);
    expect(after.verified).toBe(1);
  });

  it("reads only the head of a huge page, and calls a head over 2 MB too large", async () => {
    const bodies: ReturnType<typeof endlessBytes>[] = [];
    const huge = await signUpAndCheck((token) => () => {
      const body = endlessBytes(50 * 1024 * 1024, `<html><head>${tagOf(token)}</head><body><p>`);
      bodies.push(body);
      return new Response(body.stream, { headers: { "Content-Type": "text/html" } });
    });
    expect(huge.after.verified).toBe(1);
    expect(bodies[0]!.state.pulled).toBeLessThan(512 * 1024);

    const endlessHead = await signUpAndCheck(
      () => () => new Response(endlessBytes(50 * 1024 * 1024, "<html><head><title>").stream, { headers: { "Content-Type": "text/html" } }),
    );
    expect(endlessHead.after).toMatchObject({ verified: 0, verification_error: messages.fetchTooLarge });
    expect(await read(await get("/mysite/verify", { cookie: endlessHead.user.cookie }))).toContain(messages.fetchTooLarge);
  });

  it("reads a page in a charset the reader does not know, and a big page that declares its size", async () => {
    const latin = await signUpAndCheck((token) =>
      html(`<html><head>${tagOf(token)}</head></html>`, { headers: { "Content-Type": "text/html; charset=x-unknown-charset" } }),
    );
    expect(latin.response.status).toBe(302);
    expect(latin.after.verified).toBe(1);
    const utf16 = await signUpAndCheck((token) =>
      html(`<html><head>${tagOf(token)}</head></html>`, { headers: { "Content-Type": "text/html; charset=utf-16" } }),
    );
    expect(utf16.response.status).toBe(302);
    expect(utf16.after.verified).toBe(1);
    const declared = await signUpAndCheck((token) => () => {
      const body = endlessBytes(20 * 1024 * 1024, `<html><head>${tagOf(token)}</head><body>`);
      return new Response(body.stream, { headers: { "Content-Type": "text/html", "Content-Length": String(20 * 1024 * 1024) } });
    });
    expect(declared.after.verified).toBe(1);
  });

  it("verifies a site under an internationalised domain", async () => {
    const { after } = await signUpAndCheck((token) => homeWith(tagOf(token)), `https://пример-${crypto.randomUUID().slice(0, 4)}.рф/`);
    expect(after.verified).toBe(1);
  });

  it("follows redirects within the site, up to three", async () => {
    const user = await signUp();
    const site = await siteOf(user.userId);
    mockWeb({
      [`https://${user.url}/`]: redirectTo(`https://www.${user.url}/`),
      [`https://www.${user.url}/`]: redirectTo(`https://www.${user.url}/en/`, 302),
      [`https://www.${user.url}/en/`]: homeWith(tagOf(site.verification_token)),
    });
    await check(user.cookie);
    expect((await siteOf(user.userId)).verified).toBe(1);
  });

  it("refuses more than three redirects, and a tag on another site the home page sends visitors to", async () => {
    const looping = await signUp();
    mockWeb({
      [`https://${looping.url}/`]: redirectTo(`https://${looping.url}/1`),
      [`https://${looping.url}/1`]: redirectTo(`https://${looping.url}/2`),
      [`https://${looping.url}/2`]: redirectTo(`https://${looping.url}/3`),
      [`https://${looping.url}/3`]: redirectTo(`https://${looping.url}/4`),
    });
    await check(looping.cookie);
    expect(await siteOf(looping.userId)).toMatchObject({ verified: 0, verification_error: messages.fetchTooManyRedirects });

    const elsewhere = await signUp();
    const token = (await siteOf(elsewhere.userId)).verification_token;
    vi.restoreAllMocks();
    mockWeb({
      [`https://${elsewhere.url}/`]: redirectTo("https://attacker-controlled.com/"),
      "https://attacker-controlled.com/": homeWith(tagOf(token)),
    });
    await check(elsewhere.cookie);
    expect(await siteOf(elsewhere.userId)).toMatchObject({ verified: 0, verification_error: messages.redirectedElsewhere });

    // Through another site and back: every hop must stay on the site, not only the last.
    const roundTrip = await signUp();
    const roundToken = (await siteOf(roundTrip.userId)).verification_token;
    vi.restoreAllMocks();
    mockWeb({
      [`https://${roundTrip.url}/`]: redirectTo(`https://hop-around.com/?to=${roundTrip.url}`),
      [`https://hop-around.com/?to=${roundTrip.url}`]: redirectTo(`https://${roundTrip.url}/home`),
      [`https://${roundTrip.url}/home`]: homeWith(tagOf(roundToken)),
    });
    await check(roundTrip.cookie);
    expect(await siteOf(roundTrip.userId)).toMatchObject({ verified: 0, verification_error: messages.redirectedElsewhere });
  });

  it("tries http when the https certificate or connection fails at Cloudflare's edge (52x)", async () => {
    const user = await signUp();
    const site = await siteOf(user.userId);
    mockWeb({
      [`https://${user.url}/`]: () => new Response("error code: 526", { status: 526 }),
      [`http://${user.url}/`]: homeWith(tagOf(site.verification_token)),
    });
    await check(user.cookie);
    expect((await siteOf(user.userId)).verified).toBe(1);
  });

  it("tries http when https cannot be reached, and says why when neither answers", async () => {
    const user = await signUp();
    const site = await siteOf(user.userId);
    const web = mockWeb({ [`https://${user.url}/`]: unreachable, [`http://${user.url}/`]: homeWith(tagOf(site.verification_token)) });
    await check(user.cookie);
    expect(web.urls()).toEqual([`https://${user.url}/`, `http://${user.url}/`]);
    expect((await siteOf(user.userId)).verified).toBe(1);

    const gone = await signUp();
    vi.restoreAllMocks();
    mockWeb({});
    await check(gone.cookie);
    expect(await siteOf(gone.userId)).toMatchObject({ verified: 0, verification_error: messages.fetchNameNotFound });
    const page = await read(await get("/mysite/verify", { cookie: gone.cookie }));
    expect(page).toContain(messages.fetchNameNotFound);
    expect(page).not.toContain(messages.tagNotFound);
  });

  it("says when the home page answers with an error", async () => {
    const { after } = await signUpAndCheck(() => html("Server error", { status: 500 }));
    expect(after).toMatchObject({ verified: 0, verification_error: `${messages.fetchHttpError} (HTTP 500).` });
  });

  it("cuts a home page that never finishes at 10 seconds and says the site took too long", async () => {
    const started = Date.now();
    const { after, response } = await signUpAndCheck(
      () => () => new Response(hangingBody("<html><head><title>").stream, { headers: { "Content-Type": "text/html" } }),
    );
    const took = Date.now() - started;
    expect(response.status).toBe(302);
    expect(after).toMatchObject({ verified: 0, verification_error: messages.fetchTimeout });
    expect(took).toBeGreaterThanOrEqual(9_900);
    expect(took).toBeLessThan(15_000);
  });

  it("keeps the day a site was first verified when its owner checks it again", async () => {
    const { user, after } = await signUpAndCheck((token) => homeWith(tagOf(token)));
    expect(after.verified).toBe(1);
    const january = Date.UTC(2026, 0, 15);
    await env.DB.prepare("UPDATE sites SET verified_at = ? WHERE user_id = ?").bind(january, user.userId).run();
    expect((await check(user.cookie)).status).toBe(302);
    expect((await siteOf(user.userId)).verified_at).toBe(january);
    expect(await read(await get("/mysite/verify", { cookie: user.cookie }))).toContain("is verified since 1/15");
  });

  it("says which limit a refused check met: this site's checks, or the fetches of all the account's sites", async () => {
    const at = windowStart(60 * 60_000);
    const user = await signUp();
    mockWeb({ [`https://${user.url}/`]: homeWith("") });
    // The account's fetches an hour (icon look-ups, audits, link checks) are used up elsewhere.
    await env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, 40)")
      .bind(`site-fetch:user:${user.userId}`, at)
      .run();
    const refused = await check(user.cookie, at);
    expect(refused.status).toBe(429);
    const page = await read(refused);
    expect(page).toContain(messages.tooManySiteFetches);
    expect(page).not.toContain(messages.tooManyChecks);
  });

  it("says plainly that a blog on medium.com cannot be verified, without spending a check on Medium's home page", async () => {
    const user = await signUp(undefined, `medium.com/@writer-${crypto.randomUUID().slice(0, 6)}`);
    const refused = await check(user.cookie);
    expect(refused.status).toBe(422);
    expect(await read(refused)).toContain("A blog on medium.com cannot be verified");
    const checks = env.DB.prepare("SELECT count(*) AS n FROM rate_limits WHERE key = ?").bind(`verify:site:${(await siteOf(user.userId)).id}`);
    expect(await checks.first()).toEqual({ n: 0 });
  });

  it("allows 10 checks per site an hour, then says so", async () => {
    const at = windowStart(60 * 60_000);
    const user = await signUp();
    mockWeb({ [`https://${user.url}/`]: homeWith("") });
    for (let i = 0; i < 10; i += 1) expect((await check(user.cookie, at)).status).toBe(302);
    const refused = await check(user.cookie, at);
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyChecks);
  });

  it("allows 10 new tags per site an hour, then says so and keeps the tag (endless renewals would dodge the re-checks)", async () => {
    const at = windowStart(60 * 60_000);
    const user = await signUp();
    const renew = () => post("/mysite/verify", { intent: "new-tag" }, { cookie: user.cookie, at });
    for (let i = 0; i < 10; i += 1) expect((await renew()).status).toBe(302);
    const { verification_token: token } = await siteOf(user.userId);
    const refused = await renew();
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyNewTags);
    expect((await siteOf(user.userId)).verification_token).toBe(token);
  });

  it("hands the host to another account that proves it, unverifies the previous holder and emails them; their offers stay", async () => {
    const host = `contested-${crypto.randomUUID().slice(0, 6)}.com`;
    const first = await signUpAndCheck((token) => homeWith(tagOf(token)), host);
    expect(first.after.verified).toBe(1);
    await post(
      "/mysite/settings",
      { description: "Contested site with a long enough description.", listed: "on", connects: "3", contentTypes: "feature" },
      { cookie: first.user.cookie },
    );
    const owner = await signUp();
    expect(await read(await get(`/search?term=${host}`, { cookie: owner.cookie }))).toContain("Trade for 3 connects");
    const { listingId } = await listSite(owner.userId, { host: `seller-${crypto.randomUUID().slice(0, 6)}.com`, connects: 2 });
    await post(
      `/market?post=${listingId}`,
      { intent: "propose", listingId, myContentType: "blog-post", theirContentType: "feature" },
      { cookie: first.user.cookie },
    );

    vi.restoreAllMocks();
    const second = await signUpAndCheck((token) => homeWith(tagOf(token)), `https://www.${host}/`);
    expect(second.after.verified).toBe(1);
    const previous = await siteOf(first.user.userId);
    expect(previous).toMatchObject({ verified: 0, verified_at: null, verification_error: messages.verificationTakenOver });
    const mail = await env.DB.prepare("SELECT subject, text_body FROM email_outbox WHERE to_address = ? AND kind = 'verification-taken-over'")
      .bind(first.user.email)
      .first<{ subject: string; text_body: string }>();
    expect(mail?.subject).toBe(`${host} is no longer verified on your account`);
    expect(mail?.text_body).toContain(`https://market.test/mysite/verify?site=${host}`);
    expect(await env.DB.prepare("SELECT status FROM offers WHERE sender_user_id = ?").bind(first.user.userId).first()).toEqual({ status: "pending" });
    expect(await read(await get(`/search?term=${host}`, { cookie: owner.cookie }))).not.toContain("Trade for 3 connects");
  });

  it("does not count a tag renewed while the check read the page (another tab): not verified, no takeover, says so", async () => {
    const host = `renewed-${crypto.randomUUID().slice(0, 6)}.com`;
    const holder = await signUpAndCheck((token) => homeWith(tagOf(token)), host);
    expect(holder.after.verified).toBe(1);
    vi.restoreAllMocks();
    const user = await signUp(undefined, `https://www.${host}/`);
    const site = await siteOf(user.userId);
    for (const found of [true, false]) {
      const before = await siteOf(user.userId);
      // The page answers with the tag the check started with (or none), after the owner asked for a new one.
      mockWeb({
        [`https://www.${host}/`]: async (request) => {
          expect((await post("/mysite/verify", { intent: "new-tag" }, { cookie: user.cookie })).status).toBe(302);
          return homeWith(found ? tagOf(before.verification_token) : "")(request);
        },
      });
      const response = await check(user.cookie);
      expect(response.status).toBe(409);
      expect(await read(response)).toContain(TAG_RENEWED_MEANWHILE);
      const after = await siteOf(user.userId);
      expect(after).toMatchObject({ verified: 0, verified_at: null, verification_error: null });
      expect(after.verification_token).not.toBe(before.verification_token);
      vi.restoreAllMocks();
    }
    expect(site.verification_token).not.toBe((await siteOf(user.userId)).verification_token);
    expect(await siteOf(holder.user.userId)).toMatchObject({ verified: 1, verification_error: null });
  });

  it("an email's link names its site: the page opens on it, made active, for an owner of several sites; another host changes nothing", async () => {
    const owner = await signUp();
    const other = `second-${crypto.randomUUID().slice(0, 6)}.com`;
    await listSite(owner.userId, { host: other });
    const siteName = (page: string) => /<h1 class="site-name">([^<]+)</.exec(page)?.[1];
    // signUp's site address is a bare host.
    expect(siteName(await read(await get("/mysite/verify", { cookie: owner.cookie })))).toBe(owner.url);

    const opened = await get(`/mysite/verify?site=${other}`, { cookie: owner.cookie });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("Location")).toBe("/mysite/verify");
    const page = await read(await get("/mysite/verify", { cookie: owner.cookie }));
    expect(siteName(page)).toBe(other);
    const { verification_token } = (await env.DB.prepare("SELECT verification_token FROM sites WHERE host = ?").bind(other).first<{
      verification_token: string;
    }>())!;
    expect(page).toContain(verification_token);

    // Someone else's host, or none: the same answer for each, the active site stays, and the page says so.
    const stranger = await signUp();
    for (const host of [stranger.url, "nowhere.example", ""]) {
      const response = await get(`/mysite/verify?site=${encodeURIComponent(host)}`, { cookie: owner.cookie });
      expect(response.headers.get("Location")).toBe("/mysite/verify?notice=site-not-yours");
      expect(await read(await get("/mysite/verify?notice=site-not-yours", { cookie: owner.cookie }))).toContain(
        "The site that link is about is not in your account, so this page shows your active site.",
      );
      expect(siteName(await read(await get("/mysite/verify", { cookie: owner.cookie })))).toBe(other);
    }
  });

  it("works without JavaScript from the 'Not verified' link of the site header and the dashboard banner", async () => {
    const user = await signUp();
    const dashboard = await read(await get("/mysite", { cookie: user.cookie }));
    expect(dashboard).toContain('href="/mysite/verify"');
    expect((await get("/mysite/verify", { cookie: user.cookie })).status).toBe(200);
    expect((await get("/mysite/verify")).headers.get("Location")).toBe("/login?redirectTo=%2Fmysite%2Fverify");
  });
});

describe("the monthly re-check", () => {
  const DAY = 24 * 3600_000;

  /**
   * The five-minute job, which re-checks a few due sites each run, the oldest due first; here with room for every site
   * due, since this file's other tests leave verified sites due too.
   */
  async function runRecheckJob(at: number, jobEnv: object = env) {
    const ctx = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "*/5 * * * *", scheduledTime: at }),
      { ...jobEnv, VERIFICATION_RECHECK_BATCH: "1000" } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
  }

  /** A site verified with its tag on its home page, its re-check due at `at`; the web is the test's to mock. */
  async function dueVerifiedSite() {
    const { user, after } = await signUpAndCheck((token) => homeWith(tagOf(token)));
    vi.restoreAllMocks();
    return { user, after, at: after.verification_due_at! + 1 };
  }

  /** What a re-check that stored nothing leaves: still verified, nothing counted; checked again once its claim lapses. */
  const untouchedUntil = (due: number) => ({ verified: 1, verification_failures: 0, verification_error: null, verification_due_at: due });

  async function emailsTo(address: string) {
    const rows = await env.DB.prepare("SELECT kind FROM email_outbox WHERE to_address = ? AND kind LIKE 'verification-%' ORDER BY created_at")
      .bind(address)
      .all<{ kind: string }>();
    return rows.results.map((row) => row.kind);
  }

  it("keeps a site whose tag is still there, and checks it again about a month later", async () => {
    const { user, after, at } = await dueVerifiedSite();
    mockWeb({ [`https://${user.url}/`]: homeWith(tagOf(after.verification_token)) });
    await runRecheckJob(at);
    const checked = await siteOf(user.userId);
    expect(checked).toMatchObject({ verified: 1, verification_failures: 0 });
    expect(checked.verification_due_at).toBeGreaterThan(after.verification_due_at! + 26 * DAY);
  });

  it("two runs at once check a due site once: the first claims it", async () => {
    const { user, after, at } = await dueVerifiedSite();
    const web = mockWeb({ [`https://${user.url}/`]: homeWith(tagOf(after.verification_token)) });
    await Promise.all([runRecheckJob(at), runRecheckJob(at)]);
    expect(web.urls().filter((url) => url === `https://${user.url}/`)).toHaveLength(1);
    expect((await siteOf(user.userId)).verification_due_at).toBeGreaterThan(at + 26 * DAY);
  });

  it("stores nothing about a tag the owner renewed while the re-check read the page; the site is checked again later", async () => {
    const { user, after, at } = await dueVerifiedSite();
    mockWeb({
      [`https://${user.url}/`]: async (request) => {
        await env.DB.prepare("UPDATE sites SET verification_token = ? WHERE id = ?").bind(crypto.randomUUID(), after.id).run();
        return homeWith("")(request);
      },
    });
    await runRecheckJob(at);
    expect(await siteOf(user.userId)).toMatchObject(untouchedUntil(at + 3600_000));
    expect(await emailsTo(user.email)).toEqual([]);
  });

  it("stores nothing when the owner's own check came in while the re-check read the page: the fresher result stands", async () => {
    const { user, after, at } = await dueVerifiedSite();
    const ownersNextRecheck = at + 30 * DAY;
    mockWeb({
      [`https://${user.url}/`]: async (request) => {
        // What the owner's "Check again" writes when it finds the tag (markVerified), landing while the job reads.
        await env.DB.prepare("UPDATE sites SET verification_failures = 0, verification_error = NULL, verification_due_at = ? WHERE id = ?")
          .bind(ownersNextRecheck, after.id)
          .run();
        return homeWith("")(request);
      },
    });
    await runRecheckJob(at);
    expect(await siteOf(user.userId)).toMatchObject(untouchedUntil(ownersNextRecheck));
    expect(await emailsTo(user.email)).toEqual([]);
  });

  it("counts nothing against a site when the run reaches the Worker's subrequest limit: it is checked in a later run", async () => {
    const { user, at } = await dueVerifiedSite();
    mockWeb({
      [`https://${user.url}/`]: () => {
        throw new Error("Too many subrequests.");
      },
    });
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    await runRecheckJob(at);
    expect(warned.mock.calls.flat().join(" ")).toContain("verification re-check left for a later run");
    warned.mockRestore();
    expect(await siteOf(user.userId)).toMatchObject(untouchedUntil(at + 3600_000));
    expect(await emailsTo(user.email)).toEqual([]);
  });

  it("warns after the first failure and removes the verification after three in a row, with a second email", async () => {
    const { user, after } = await dueVerifiedSite();
    mockWeb({ [`https://${user.url}/`]: homeWith("") });
    const due = after.verification_due_at!;

    await runRecheckJob(due + 1);
    expect(await siteOf(user.userId)).toMatchObject({ verified: 1, verification_failures: 1, verification_error: messages.tagNotFound });
    expect(await emailsTo(user.email)).toEqual(["verification-warning"]);
    // Still verified, its page says what the check found and its button reads 'Check again' (signed in again: the
    // job ran a month on, past the first session's idle end).
    const cookie = sessionCookieOf(await post("/login", { email: user.email, password: PASSWORD }))!;
    const page = await read(await get("/mysite/verify", { cookie }));
    expect(page).toContain(messages.tagNotFound);
    expect(page).toMatch(new RegExp(`value="check"[^>]*>[^<]*${messages.checkAgain}</button>`));

    await runRecheckJob(due + DAY / 2); // not due yet: the next check is a day after the failure
    expect((await siteOf(user.userId)).verification_failures).toBe(1);

    await runRecheckJob(due + DAY + 1);
    expect(await siteOf(user.userId)).toMatchObject({ verified: 1, verification_failures: 2 });
    expect(await emailsTo(user.email)).toEqual(["verification-warning"]);

    await runRecheckJob(due + 2 * DAY + 2);
    expect(await siteOf(user.userId)).toMatchObject({ verified: 0, verified_at: null, verification_due_at: null });
    expect(await emailsTo(user.email)).toEqual(["verification-warning", "verification-removed"]);
    // Both link to this site's Verify page, whichever of the owner's sites is active when it is opened.
    const { results } = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND kind LIKE 'verification-%'")
      .bind(user.email)
      .all<{
        text_body: string;
      }>();
    for (const { text_body } of results) expect(text_body).toContain(`https://market.test/mysite/verify?site=${user.url}`);
  });

  it("never removes a verification without its email: when the email cannot be queued, nothing is stored and the site is checked again", async () => {
    const { user, after, at } = await dueVerifiedSite();
    mockWeb({ [`https://${user.url}/`]: homeWith("") });
    // Two failed checks already: this one removes the verification.
    await env.DB.prepare("UPDATE sites SET verification_failures = 2 WHERE id = ?").bind(after.id).run();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await runRecheckJob(at, envWithFailingTable("email_outbox"));
    expect(logged.mock.calls.flat().join(" ")).toContain("verification re-check could not be stored");
    logged.mockRestore();
    expect(await siteOf(user.userId)).toMatchObject({ verified: 1, verification_failures: 2 });

    await runRecheckJob(at + 3600_000 + 1);
    expect(await siteOf(user.userId)).toMatchObject({ verified: 0, verification_due_at: null });
    expect(await emailsTo(user.email)).toEqual(["verification-removed"]);
  });
});
