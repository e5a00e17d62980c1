import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker, { createContext } from "~/worker";
import { messages } from "~/domain/messages";
import { auditDueSites, dropOldAuditFacts } from "~/services/audit.server";
import { get, newEmail, PASSWORD, post, read, sessionCookieOf, signUp, uniqueHost } from "./helpers";
import { html, mockWeb, redirectTo, type Page } from "./web-mock";

afterEach(() => vi.restoreAllMocks());

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

const text =
  (body: string, status = 200, contentType = "text/plain"): Page =>
  () =>
    new Response(body, { status, headers: { "Content-Type": contentType } });

const notFound: Page = () => new Response("<html><body>Not found</body></html>", { status: 404, headers: { "Content-Type": "text/html" } });

const GOOD_HOME = `<!doctype html><html lang="en"><head>
  <meta charset="utf-8"><title>  Balcony   gardens </title>
  <meta name="Description" content="Vegetables in small spaces.">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="canonical" href="/">
</head><body><h1>Balcony gardens</h1>
  <img src="/a.png" alt="Tomatoes"><img src="/divider.png" alt="">
  <svg><title>Not the title</title></svg><svg viewBox="0 0 1 1"/><p>After a self-closed svg</p>
  <template><h1>Not counted</h1><img src="/t.png"></template>
</body></html>`;

/** A site that does everything right: https, http moving to it, robots.txt naming a sitemap. */
function goodSite(host: string, overrides: Record<string, Page> = {}): Record<string, Page> {
  return {
    [`https://${host}/`]: html(GOOD_HOME),
    [`http://${host}/`]: redirectTo(`https://${host}/`),
    [`https://${host}/robots.txt`]: text(`User-agent: *\nDisallow: /drafts\nSitemap: https://${host}/sitemap_index.xml\n`),
    [`https://${host}/sitemap_index.xml`]: text(
      '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>',
      200,
      "application/xml",
    ),
    ...overrides,
  };
}

/** Signs up with the Worker's clock held at `at`, so the audit after the response is over when this returns. */
async function signUpAt(url: string, at = Date.now()) {
  const email = newEmail("audit");
  const response = await post(
    "/signup",
    { intent: "create", email, password: PASSWORD, url, description: "A site about small-space gardening and balcony vegetables." },
    { at },
  );
  expect(response.status).toBe(302);
  const user = await env.DB.prepare("SELECT u.id AS userId, s.id AS siteId FROM users u JOIN sites s ON s.user_id = u.id WHERE u.email = ?")
    .bind(email)
    .first<{ userId: string; siteId: string }>();
  return { cookie: sessionCookieOf(response)!, ...user! };
}

function siteRow(siteId: string) {
  return env.DB.prepare(
    "SELECT score, placeholder_score, score_run_at, domain_authority, on_page_seo, technical_seo, links, speed, ssl, audit_due_at FROM sites WHERE id = ?",
  )
    .bind(siteId)
    .first<Record<string, number | null>>();
}

function runsOf(siteId: string) {
  return env.DB.prepare("SELECT status, reason, score, error, details, started_at FROM score_runs WHERE site_id = ? ORDER BY started_at, rowid")
    .bind(siteId)
    .all<{ status: string; reason: string; score: number | null; error: string | null; details: string | null; started_at: number }>()
    .then((rows) => rows.results);
}

/** The audits' job, with the Worker's clock at `at` and these variables, called directly. */
async function runAudits(at: number, vars: Record<string, string> = {}, limit?: number) {
  const ctx = createExecutionContext();
  const context = { ...createContext({ ...env, ...vars } as never, ctx), now: () => at };
  const audited = await auditDueSites(context, limit);
  await waitOnExecutionContext(ctx);
  return audited;
}

/**
 * Only these sites are due for the job (the other tests' sites wait), so a run's limit is about them. They are
 * verified: the job audits verified sites.
 */
async function onlyDue(siteIds: string[], at: number) {
  const listed = siteIds.map(() => "?").join(",");
  await env.DB.batch([
    env.DB.prepare(`UPDATE sites SET audit_due_at = CASE WHEN id IN (${listed}) THEN ? ELSE ? END`).bind(...siteIds, at - 1, at + 30 * DAY),
    env.DB.prepare(`UPDATE sites SET verified = 1 WHERE id IN (${listed})`).bind(...siteIds),
  ]);
}

describe("the audit after sign-up", () => {
  it("reads the home page, robots.txt, the sitemap and the redirect, and scores the site", async () => {
    const site = uniqueHost("audit");
    const web = mockWeb(goodSite(site));
    const at = Date.now();
    const user = await signUpAt(site, at);

    const runs = await runsOf(user.siteId);
    expect(runs.map((run) => [run.status, run.reason])).toEqual([["done", "signup"]]);
    const row = await siteRow(user.siteId);
    expect(row).toMatchObject({
      domain_authority: null,
      on_page_seo: 70,
      technical_seo: 10,
      links: 0,
      speed: 100,
      ssl: 10,
      score_run_at: at,
      audit_due_at: at + 7 * DAY,
    });
    // No provider: 20 + 15 + 0 (no backlinks) + 10 + 10 = 55 of 70 -> 78.57, rounded up.
    expect(row!.score).toBe(79);
    expect(runs[0]!.score).toBe(79);
    const facts = JSON.parse(runs[0]!.details!);
    expect(facts.onPage).toEqual({
      title: "Balcony gardens",
      description: true,
      h1Count: 1,
      lang: true,
      viewport: true,
      images: 2,
      imagesWithAlt: 2,
      canonical: true,
    });
    expect(facts.technical).toMatchObject({ robots: true, robotsBlocksAll: false, sitemap: true, sitemapUrl: `https://${site}/sitemap_index.xml` });
    expect(web.urls()).toEqual(
      expect.arrayContaining([`https://${site}/`, `http://${site}/`, `https://${site}/robots.txt`, `https://${site}/sitemap_index.xml`]),
    );

    // Your Score shows the run, the cards with what was found, the sum and the chart; the header the new score.
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie, at }));
    expect(page).toContain("Here is the information we were able to gather about");
    expect(page).toMatch(/Last run \d{1,2}:\d{2} (AM|PM)/);
    for (const value of ["N/A", "100%", "A+", ">0<"]) expect(page).toContain(value);
    expect(page).toContain("70 of 70 points. Title: “Balcony gardens”.");
    expect(page).toContain("No rank provider is configured, so the score leaves this part out.");
    expect(page).toContain("55 of 70 = 79");
    expect(page).toContain('data-testid="score-chart"');
    expect(page).toMatch(/aria-label="Authority score over time: 79 on \d{1,2}:\d{2} (AM|PM)\."/);
    expect(page).toContain('aria-label="Authority 79"');
  });

  it("grades a weak site: no description, two h1s, images without alt, no robots or sitemap, no redirect", async () => {
    const site = uniqueHost("audit");
    mockWeb({
      [`https://${site}/`]: html(
        `<html><head><title></title></head><body><h1>A</h1><h1>B</h1><img src="a.png"><img src="b.png" alt="b"></body></html>`,
      ),
      [`http://${site}/`]: html("<html><body>plain http</body></html>"),
      [`https://${site}/robots.txt`]: notFound,
      [`https://${site}/sitemap.xml`]: notFound,
    });
    const user = await signUpAt(site);
    const row = await siteRow(user.siteId);
    // 5 of 70 (half the images have alt), C, SSL B (https answers, http does not move to it).
    expect(row).toMatchObject({ on_page_seo: 5, technical_seo: 30, ssl: 20, speed: 100, links: 0 });
    // 20*5/70 + 0 + 0 + 10 + 5 = 16.43 of 70 -> 23.47 -> 24.
    expect(row!.score).toBe(24);
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie }));
    expect(page).toContain(
      "To raise it: Add a title, a meta description, one h1 instead of 2, a lang attribute on &lt;html&gt;, a viewport meta tag, alt text on 1 of 2 images and a canonical link.",
    );
    expect(page).toContain(`0 of 3: no robots.txt, no sitemap at https://${site}/sitemap.xml, http does not redirect to https.`);
    expect(page).toContain("To raise it: Redirect http to https.");
  });

  it("counts a robots.txt that is really a web page as missing, and sees one that blocks every crawler", async () => {
    const soft = uniqueHost("audit");
    mockWeb(goodSite(soft, { [`https://${soft}/robots.txt`]: html("<!doctype html><p>Page not found</p>") }));
    const softUser = await signUpAt(soft);
    expect(JSON.parse((await runsOf(softUser.siteId))[0]!.details!).technical).toMatchObject({ robots: false, sitemap: false });

    const closed = uniqueHost("audit");
    mockWeb(goodSite(closed, { [`https://${closed}/robots.txt`]: text("User-agent: *\nDisallow: /\n") }));
    const closedUser = await signUpAt(closed);
    // The sitemap is then looked for at /sitemap.xml, which is not there.
    expect(await siteRow(closedUser.siteId)).toMatchObject({ technical_seo: 30 });
    expect(await read(await get("/mysite/your-score", { cookie: closedUser.cookie }))).toContain(
      "To raise it: Let crawlers in (robots.txt disallows /)",
    );
  });

  it("without https, reads the page over http and gives SSL nothing", async () => {
    const site = uniqueHost("audit");
    mockWeb({
      [`https://${site}/`]: () => {
        throw new TypeError("Network connection lost");
      },
      [`http://${site}/`]: html(GOOD_HOME),
      [`http://${site}/robots.txt`]: text("User-agent: *\nAllow: /\n"),
      [`http://${site}/sitemap.xml`]: text("<urlset></urlset>", 200, "text/xml"),
    });
    const user = await signUpAt(site);
    const row = await siteRow(user.siteId);
    expect(row).toMatchObject({ ssl: null, technical_seo: 20, on_page_seo: 70 });
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie }));
    expect(page).toContain("Your site did not answer over https.");
    expect(page).toContain("To raise it: Install a certificate");
  });

  it("measures a slow page", async () => {
    const site = uniqueHost("audit");
    mockWeb(
      goodSite(site, {
        [`https://${site}/`]: async () => {
          await new Promise((resolve) => setTimeout(resolve, 1900));
          return new Response(GOOD_HOME, { headers: { "Content-Type": "text/html" } });
        },
      }),
    );
    const user = await signUpAt(site);
    const facts = JSON.parse((await runsOf(user.siteId))[0]!.details!);
    expect(facts.speed.firstByteMs).toBeGreaterThanOrEqual(1900);
    // No marks for the first byte after 1.8 s; the whole page in about 2 s keeps most of its half.
    const row = await siteRow(user.siteId);
    expect(row!.speed).toBeLessThanOrEqual(50);
    expect(row!.speed).toBeGreaterThan(30);
    expect(await read(await get("/mysite/your-score", { cookie: user.cookie }))).toMatch(/First byte after 19\d\d ms/);
  });

  it("explains the score from the newest done run's facts only", async () => {
    const site = uniqueHost("audit");
    mockWeb(goodSite(site));
    const user = await signUpAt(site);
    const [run] = await runsOf(user.siteId);
    const slow = JSON.stringify({ ...JSON.parse(run!.details!), speed: { ...JSON.parse(run!.details!).speed, firstByteMs: 1950 } });
    const insert = (startedAt: number, score: number) =>
      env.DB.prepare(
        "INSERT INTO score_runs (id, site_id, status, reason, score, details, started_at, finished_at) VALUES (?, ?, 'done', 'weekly', ?, ?, ?, ?)",
      )
        .bind(crypto.randomUUID(), user.siteId, score, slow, startedAt, startedAt + 1000)
        .run();
    await insert(run!.started_at - 7 * DAY, 12);
    expect(await read(await get("/mysite/your-score", { cookie: user.cookie }))).not.toContain("First byte after 1950 ms");
    await insert(run!.started_at + 1000, 13);
    expect(await read(await get("/mysite/your-score", { cookie: user.cookie }))).toContain("First byte after 1950 ms");
  });

  it("a page that fails leaves the placeholder score and says why on Your Score", async () => {
    const site = uniqueHost("audit");
    mockWeb({ [`https://${site}/`]: () => new Response("Internal error", { status: 500 }) });
    const at = Date.now();
    const user = await signUpAt(site, at);
    const runs = await runsOf(user.siteId);
    expect(runs.map((run) => [run.status, run.error])).toEqual([["failed", "Your home page answered 500."]]);
    const row = await siteRow(user.siteId);
    expect(row).toMatchObject({ score: null, score_run_at: null, audit_due_at: at + DAY });
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie }));
    expect(page).toContain("could not be finished: Your home page answered 500.");
    expect(page).toContain(`Your site has not been audited yet: until then it shows an estimate of ${row!.placeholder_score}.`);
    expect(page).toContain(`aria-label="Authority ${row!.placeholder_score}"`);
    expect(page).toContain("The chart appears after the first audit.");

    // The job tries again a day later, then three days later, then weekly.
    let due = at + DAY;
    for (const wait of [3 * DAY, 7 * DAY, 7 * DAY]) {
      await onlyDue([user.siteId], due);
      expect(await runAudits(due)).toBe(1);
      expect((await siteRow(user.siteId))!.audit_due_at).toBe(due + wait);
      due += wait;
    }

    // A site that cannot be reached at all fails the same way, with the fetch's reason.
    const gone = uniqueHost("audit");
    mockWeb({});
    const goneUser = await signUpAt(gone);
    expect((await runsOf(goneUser.siteId)).map((run) => run.error)).toEqual([messages.fetchNameNotFound]);
  });
});

describe("the audit after adding a site", () => {
  it("runs for a site added from the site switcher, on www with a relative sitemap in robots.txt", async () => {
    const owner = await signUpAt(uniqueHost("audit"));
    const bare = uniqueHost("www");
    const site = `www.${bare}`;
    mockWeb({
      [`https://${site}/`]: html(GOOD_HOME),
      [`http://${site}/`]: redirectTo(`https://${site}/`),
      [`https://${site}/robots.txt`]: text("User-agent: *\nAllow: /\nSitemap: /maps/main.xml\n"),
      [`https://${site}/maps/main.xml`]: text("<urlset></urlset>", 200, "application/xml"),
    });
    const response = await post(
      "/sites/new",
      { url: site, description: "A second site about balconies and their vegetables." },
      { cookie: owner.cookie, at: Date.now() },
    );
    expect(response.status).toBe(302);
    const added = (await env.DB.prepare("SELECT id FROM sites WHERE user_id = ? AND host = ?").bind(owner.userId, bare).first<{ id: string }>())!;
    expect((await runsOf(added.id)).map((run) => [run.reason, run.status])).toEqual([["added", "done"]]);
    const facts = JSON.parse((await runsOf(added.id))[0]!.details!);
    expect(facts.technical).toMatchObject({ sitemap: true, sitemapUrl: `https://${site}/maps/main.xml` });
    expect(facts.ssl).toEqual({ https: true, redirectsToHttps: true });
    expect(await siteRow(added.id)).toMatchObject({ technical_seo: 10, ssl: 10, score: 79 });
  });
});

describe("the owner runs the audit from Your Score", () => {
  it("at most once an hour, showing progress while it runs, and every run is kept for the chart", async () => {
    const site = uniqueHost("audit");
    mockWeb(goodSite(site));
    const start = Date.now();
    const user = await signUpAt(site, start);

    // The first press runs it (the request holds its Worker until the audit is over).
    const first = await post("/mysite/your-score", { intent: "audit" }, { cookie: user.cookie, at: start + 10 * 60_000 });
    expect(first.status).toBe(302);
    expect(first.headers.get("Location")).toBe("/mysite/your-score");
    const again = await post("/mysite/your-score", { intent: "audit" }, { cookie: user.cookie, at: start + 20 * 60_000 });
    expect(again.status).toBe(429);
    expect(await read(again)).toContain(messages.auditOncePerHour);
    const waiting = await read(await get("/mysite/your-score", { cookie: user.cookie, at: start + 20 * 60_000 }));
    expect(waiting).toContain("You can run the audit again in 50 minutes.");
    expect(waiting).not.toContain('value="audit"');

    // The page improves, and an hour after the last press the owner can run it again.
    mockWeb(goodSite(site, { [`https://${site}/`]: html(GOOD_HOME.replace('<img src="/a.png" alt="Tomatoes">', '<img src="/a.png">')) }));
    expect((await post("/mysite/your-score", { intent: "audit" }, { cookie: user.cookie, at: start + 71 * 60_000 })).status).toBe(302);
    const runs = await runsOf(user.siteId);
    expect(runs.map((run) => [run.reason, run.status, run.score])).toEqual([
      ["signup", "done", 79],
      ["owner", "done", 79],
      // One image of two without alt: 65 of 70 on-page points, 20 * 65 / 70 + 35 = 53.57 of 70 -> 76.53, rounded up.
      ["owner", "done", 77],
    ]);
  });

  it("shows the progress of a running audit, and refuses a second one while it runs", async () => {
    const site = uniqueHost("audit");
    mockWeb({});
    const user = await signUpAt(site);
    const at = Date.now() + 60_000;
    await env.DB.prepare("INSERT INTO score_runs (id, site_id, reason, status, step, started_at) VALUES (?, ?, 'owner', 'running', 'files', ?)")
      .bind(crypto.randomUUID(), user.siteId, at - 5_000)
      .run();
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie, at }));
    expect(page).toContain('data-testid="audit-progress"');
    expect(page).toContain("Checking robots.txt, the sitemap and the redirect to https…");
    expect(page).toContain('<progress max="4" value="2"');
    // Without JavaScript the page reloads itself until the run is over.
    expect(page).toContain('<noscript><meta http-equiv="refresh" content="3"/></noscript>');
    const refused = await post("/mysite/your-score", { intent: "audit" }, { cookie: user.cookie, at });
    expect(refused.status).toBe(409);
    expect(await read(refused)).toContain(messages.auditRunning);

    // A run whose Worker stopped is closed by the job after 15 minutes and shown as failed.
    await runAudits(at + 10 * 60_000, {}, 0);
    expect(await read(await get("/mysite/your-score", { cookie: user.cookie, at: at + 10 * 60_000 }))).toContain('data-testid="audit-progress"');
    await runAudits(at + 16 * 60_000, {}, 0);
    const after = await read(await get("/mysite/your-score", { cookie: user.cookie, at: at + 16 * 60_000 }));
    expect(after).not.toContain('data-testid="audit-progress"');
    expect(after).toContain(messages.auditDidNotFinish);
  });
});

describe("the weekly audits", () => {
  it("are for verified sites: an unverified site's turn waits until it is verified (its owner can run it meanwhile)", async () => {
    const sites = [uniqueHost("unproven"), uniqueHost("proven")];
    mockWeb(Object.assign({}, ...sites.map((site) => goodSite(site))));
    const [unproven, proven] = [await signUpAt(sites[0]!), await signUpAt(sites[1]!)];
    const at = Date.now() + 8 * DAY;
    await onlyDue([unproven!.siteId, proven!.siteId], at);
    await env.DB.prepare("UPDATE sites SET verified = 0 WHERE id = ?").bind(unproven!.siteId).run();

    expect(await runAudits(at)).toBe(1);
    expect((await runsOf(proven!.siteId)).map((run) => run.reason)).toEqual(["signup", "weekly"]);
    expect((await runsOf(unproven!.siteId)).map((run) => run.reason)).toEqual(["signup"]);
    // Verified later: its turn, long come, is taken at the next run.
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE id = ?").bind(unproven!.siteId).run();
    expect(await runAudits(at + 5 * 60_000)).toBe(1);
    expect((await runsOf(unproven!.siteId)).map((run) => run.reason)).toEqual(["signup", "weekly"]);
  });

  it("audit the sites whose turn has come, a few per run, oldest first, and come back a week later", async () => {
    const sites = [uniqueHost("weekly"), uniqueHost("weekly"), uniqueHost("weekly")];
    mockWeb(Object.assign({}, ...sites.map((site) => goodSite(site))));
    const users = [];
    for (const site of sites) users.push(await signUpAt(site));
    const ids = users.map((user) => user.siteId);
    const at = Date.now() + 8 * DAY;
    await onlyDue(ids, at);
    await env.DB.prepare("UPDATE sites SET audit_due_at = ? WHERE id = ?")
      .bind(at - 10, ids[2])
      .run();

    // Two per run: the one waiting longest first.
    expect(await runAudits(at, { AUDITS_PER_RUN: "2" })).toBe(2);
    const reasons = await Promise.all(ids.map(async (id) => (await runsOf(id)).map((run) => run.reason)));
    expect(reasons.filter((list) => list.includes("weekly"))).toHaveLength(2);
    expect(reasons[2]).toEqual(["signup", "weekly"]);
    expect(await runAudits(at, { AUDITS_PER_RUN: "2" })).toBe(1);
    expect(await runAudits(at, { AUDITS_PER_RUN: "2" })).toBe(0);
    for (const id of ids) expect(await siteRow(id)).toMatchObject({ audit_due_at: at + 7 * DAY, score_run_at: at, score: 79 });

    // The audits' own cron (a minute after each five-minute run, in an invocation of its own) does the same; the
    // five-minute run audits nothing.
    await env.DB.prepare("UPDATE sites SET audit_due_at = ? WHERE id = ?")
      .bind(at + 7 * DAY - 1, ids[0])
      .run();
    const runCron = async (cron: string) => {
      const ctx = createExecutionContext();
      await worker.scheduled!(createScheduledController({ scheduledTime: at + 7 * DAY, cron }), env as never, ctx);
      await waitOnExecutionContext(ctx);
    };
    await runCron("*/5 * * * *");
    expect((await runsOf(ids[0]!)).filter((run) => run.reason === "weekly")).toHaveLength(1);
    await runCron("1-59/5 * * * *");
    expect((await runsOf(ids[0]!)).filter((run) => run.reason === "weekly")).toHaveLength(2);

    // Every run is kept; a fortnight after a newer one, a run's facts are dropped (the chart needs its score only).
    await dropOldAuditFacts(createContext(env as never, createExecutionContext()).db, at + 7 * DAY + 15 * DAY);
    const kept = await runsOf(ids[0]!);
    expect(kept.map((run) => [run.reason, run.score, run.details !== null])).toEqual([
      ["signup", 79, false],
      ["weekly", 79, false],
      ["weekly", 79, true],
    ]);
  });
});

describe("the daily drop of old audits' facts", () => {
  it("keeps up with more runs than one statement drops (a weekly audit of tens of thousands of sites)", async () => {
    const owner = await signUp();
    const site = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ?").bind(owner.userId).first<{ id: string }>();
    const now = Date.now();
    // 12,000 done runs of a month ago with their facts, and a newer one.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
       INSERT INTO score_runs (id, site_id, status, reason, score, details, started_at, finished_at)
       SELECT lower(hex(randomblob(16))), ?, 'done', 'weekly', 50, '{"home":true}', ? + i, ? + i FROM n`,
    )
      .bind(site!.id, now - 40 * DAY, now - 40 * DAY)
      .run();
    await env.DB.prepare(
      "INSERT INTO score_runs (id, site_id, status, reason, score, details, started_at, finished_at) VALUES (?, ?, 'done', 'weekly', 60, '{}', ?, ?)",
    )
      .bind(crypto.randomUUID(), site!.id, now - DAY, now - DAY)
      .run();
    await dropOldAuditFacts(createContext(env as never, createExecutionContext()).db, now);
    const left = await env.DB.prepare("SELECT count(*) AS n FROM score_runs WHERE site_id = ? AND details IS NOT NULL").bind(site!.id).first();
    expect(left).toEqual({ n: 1 });
  });
});

describe("the weekly audits and the Worker's own limits", () => {
  it("count nothing against a site when the run reaches the Worker's subrequest limit: it is audited in a later run", async () => {
    const host = uniqueHost("limited");
    mockWeb(goodSite(host));
    const { siteId } = await signUpAt(host);
    const before = await siteRow(siteId);
    const at = Date.now() + 8 * DAY;
    await onlyDue([siteId], at);
    mockWeb({
      ...goodSite(host),
      [`https://${host}/robots.txt`]: () => {
        throw new Error("Too many subrequests.");
      },
    });
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(await runAudits(at)).toBe(1);
    expect(warned.mock.calls.flat().join(" ")).toContain("weekly audit left for a later run");
    // No failed run for Your Score to show, the score as it was, and the site's turn again once its claim runs out.
    expect((await runsOf(siteId)).map((run) => run.reason)).toEqual(["signup"]);
    expect(await siteRow(siteId)).toMatchObject({ score: before!.score, score_run_at: before!.score_run_at, audit_due_at: at + 15 * 60_000 });

    vi.restoreAllMocks();
    mockWeb(goodSite(host));
    expect(await runAudits(at + 15 * 60_000)).toBe(1);
    expect((await runsOf(siteId)).map((run) => [run.reason, run.status])).toEqual([
      ["signup", "done"],
      ["weekly", "done"],
    ]);
    expect(await siteRow(siteId)).toMatchObject({ score_run_at: at + 15 * 60_000, audit_due_at: at + 15 * 60_000 + 7 * DAY });
  });
});

describe("the weekly audits and other audits", () => {
  it("go on when one of them cannot be stored: the others of the run are", async () => {
    const hosts = [uniqueHost("unstored"), uniqueHost("stored")];
    mockWeb(Object.assign({}, ...hosts.map((host) => goodSite(host))));
    const users = [];
    for (const host of hosts) users.push(await signUpAt(host));
    vi.restoreAllMocks();
    mockWeb(Object.assign({}, ...hosts.map((host) => goodSite(host))));
    const at = Date.now() + 8 * DAY;
    const [unstored, stored] = users.map((user) => user.siteId);
    await onlyDue([unstored!, stored!], at);
    // The database refuses every change to the first site's row (as a passing D1 failure would).
    const forward = <T extends object>(target: T, name: string | symbol) => {
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    };
    const DB = new Proxy(env.DB, {
      get(target, name) {
        if (name !== "prepare") return forward(target, name);
        return (query: string) => {
          const statement = target.prepare(query);
          if (!/^update "sites"/i.test(query)) return statement;
          return new Proxy(statement, {
            get(inner, innerName) {
              if (innerName !== "bind") return forward(inner, innerName);
              return (...values: unknown[]) => {
                if (values.includes(unstored)) throw new Error("D1_ERROR: the database is unavailable");
                return inner.bind(...values);
              };
            },
          });
        };
      },
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await runAudits(at, { DB } as never)).toBe(2);
    expect(logged.mock.calls.flat().join(" ")).toContain("weekly audit failed");
    logged.mockRestore();
    expect(await siteRow(stored!)).toMatchObject({ score_run_at: at, score: 79 });
    expect((await siteRow(unstored!))!.score_run_at).not.toBe(at);
  });

  it("leave a site whose audit is running (its owner's) to it, and run two at a time so none waits for a connection", async () => {
    const hosts = Array.from({ length: 5 }, () => uniqueHost("at-once"));
    const users = [];
    mockWeb(Object.assign({}, ...hosts.map((host) => goodSite(host))));
    for (const host of hosts) users.push(await signUpAt(host));
    vi.restoreAllMocks();
    const at = Date.now() + 8 * DAY;
    const ids = users.map((user) => user.siteId);
    await onlyDue(ids, at);
    // The first site's owner started an audit a minute ago; it still runs.
    await env.DB.prepare("INSERT INTO score_runs (id, site_id, reason, status, step, started_at) VALUES (?, ?, 'owner', 'running', 'home', ?)")
      .bind(crypto.randomUUID(), ids[0], at - 60_000)
      .run();
    // Every file of every site answers after a while: the requests open at once are counted.
    let open = 0;
    let most = 0;
    const slow =
      (page: Page): Page =>
      async (request) => {
        open += 1;
        most = Math.max(most, open);
        await new Promise((resolve) => setTimeout(resolve, 40));
        open -= 1;
        return page(request);
      };
    mockWeb(Object.fromEntries(hosts.flatMap((host) => Object.entries(goodSite(host)).map(([address, page]) => [address, slow(page)]))));
    expect(await runAudits(at)).toBe(4);
    expect((await runsOf(ids[0]!)).map((run) => run.reason)).toEqual(["signup", "owner"]);
    for (const id of ids.slice(1)) expect((await runsOf(id)).map((run) => run.reason)).toEqual(["signup", "weekly"]);
    expect(most).toBeLessThanOrEqual(6);
  });
});

describe("backlinks and domain authority", () => {
  it("counts live links delivered to the site and asks Open PageRank when it is configured", async () => {
    const site = uniqueHost("audit");
    const user = await signUpAt(site);
    // Two partners delivered links to this site: one is live, one was lost. This site's own delivery does not count,
    // nor does the live page a second time for another trade (one page, one backlink).
    const partner = await signUpAt(uniqueHost("partner"));
    const other = await signUpAt(uniqueHost("partner"));
    for (const [from, status] of [
      [partner, "live"],
      [partner, "live"],
      [other, "lost"],
    ] as const) {
      const offerId = crypto.randomUUID();
      await env.DB.batch([
        env.DB.prepare(
          "INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, updated_at) VALUES (?, ?, ?, ?, ?, 5, 'accepted', 0, 0)",
        ).bind(offerId, from.userId, from.siteId, user.userId, user.siteId),
        env.DB.prepare(
          "INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, status, content_url, link_status, updated_at) VALUES (?, ?, ?, 'sender', 'blog-post', 'completed', 'https://x/', ?, 0)",
        ).bind(offerId, from.userId, from.siteId, status),
        env.DB.prepare(
          "INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, status, content_url, link_status, updated_at) VALUES (?, ?, ?, 'receiver', 'blog-post', 'completed', 'https://y/', 'live', 0)",
        ).bind(offerId, user.userId, user.siteId),
      ]);
    }
    const web = mockWeb({
      ...goodSite(site),
      [`https://openpagerank.com/api/v1.0/getPageRank?domains%5B%5D=${site}`]: (request) =>
        request.headers.get("API-OPR") === "opr-key"
          ? Response.json({ status_code: 200, response: [{ status_code: 200, page_rank_decimal: 4.2, rank: "1234", domain: site }] })
          : new Response("no key", { status: 401 }),
    });
    const at = Date.now() + DAY;
    await onlyDue([user.siteId], at);
    expect(await runAudits(at, { RANK_PROVIDER: "openpagerank", RANK_PROVIDER_KEY: "opr-key" })).toBe(1);
    expect(web.urls()).toContain(`https://openpagerank.com/api/v1.0/getPageRank?domains%5B%5D=${site}`);
    const row = await siteRow(user.siteId);
    expect(row).toMatchObject({ domain_authority: 42, links: 1 });
    // 30 * 0.42 + 20 + 15 + 15 * log10(2) / 3 + 10 + 10 = 69.1 of 100, rounded up.
    expect(row!.score).toBe(70);
    const page = await read(await get("/mysite/your-score", { cookie: user.cookie, at }));
    expect(page).toContain("Open PageRank rates your domain 42 of 100.");
    expect(page).toContain("1 live link checked by the marketplace.");
  });

  it("adds a JSON provider's backlink figure; when the provider fails, its figures of the last audit stand, else the part is left out", async () => {
    const site = uniqueHost("audit");
    const user = await signUpAt(site);
    const figures: Record<string, Page> = {
      [`https://rank.example/v1/domains/${site}`]: (request) =>
        request.headers.get("Authorization") === "Bearer json-key"
          ? Response.json({ domain_authority: 63.4, backlinks: 2400 })
          : new Response(null, { status: 403 }),
    };
    mockWeb({ ...goodSite(site), ...figures });
    const at = Date.now() + DAY;
    await onlyDue([user.siteId], at);
    const vars = { RANK_PROVIDER: "json", RANK_PROVIDER_URL: "https://rank.example/v1/domains/{host}", RANK_PROVIDER_KEY: "json-key" };
    await runAudits(at, vars);
    expect(await siteRow(user.siteId)).toMatchObject({ domain_authority: 63, links: 2400 });

    const rated = (await siteRow(user.siteId))!.score;

    // The provider is down during the next weekly run: the score stays as its figures were, and the page says why.
    const down: Page = () => new Response("busy", { status: 503 });
    mockWeb({ ...goodSite(site), [`https://rank.example/v1/domains/${site}`]: down });
    await onlyDue([user.siteId], at + 8 * DAY);
    await runAudits(at + 8 * DAY, vars);
    expect(await siteRow(user.siteId)).toMatchObject({ domain_authority: 63, links: 2400, score: rated, score_run_at: at + 8 * DAY });
    expect(await read(await get("/mysite/your-score", { cookie: user.cookie, at: at + 8 * DAY }))).toContain(
      "The rank provider did not answer (it answered 503); the score keeps its rating from your last audit, 63 of 100.",
    );

    // A site the provider never rated: the part is left out, and the score is of the other parts.
    const fresh = uniqueHost("audit");
    const newcomer = await signUpAt(fresh);
    mockWeb({ ...goodSite(fresh), [`https://rank.example/v1/domains/${fresh}`]: down });
    await onlyDue([newcomer.siteId], at + 8 * DAY);
    await runAudits(at + 8 * DAY, vars);
    expect(await siteRow(newcomer.siteId)).toMatchObject({ domain_authority: null, links: 0, score: 79 });
    expect(await read(await get("/mysite/your-score", { cookie: newcomer.cookie, at: at + 8 * DAY }))).toContain(
      "The rank provider did not answer (it answered 503); the score leaves this part out.",
    );

    // Four weeks after its last answer, the provider's figures no longer stand in for it.
    mockWeb({ ...goodSite(site), [`https://rank.example/v1/domains/${site}`]: down });
    await onlyDue([user.siteId], at + 29 * DAY);
    await runAudits(at + 29 * DAY, vars);
    expect(await siteRow(user.siteId)).toMatchObject({ domain_authority: null, links: 0, score: 79 });

    // A 404 from it says it has no figure for the domain: not a failure, and said as such.
    mockWeb({ ...goodSite(fresh), [`https://rank.example/v1/domains/${fresh}`]: () => new Response(null, { status: 404 }) });
    await onlyDue([newcomer.siteId], at + 29 * DAY);
    await runAudits(at + 29 * DAY, vars);
    expect(await siteRow(newcomer.siteId)).toMatchObject({ domain_authority: null, score: 79 });
    expect(await read(await get("/mysite/your-score", { cookie: newcomer.cookie, at: at + 29 * DAY }))).toContain(
      "The rank provider has no rating for your domain yet; the score leaves this part out.",
    );
  });
});
