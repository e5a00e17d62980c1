import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "~/worker";
import { messages } from "~/domain/messages";
import { get, listSite, newEmail, PASSWORD, POST_LINK, post, read, signUp, trader, uniqueHost } from "./helpers";

const DESCRIPTION = "A second site about the best coffee in small towns.";

describe("the signed-in layout", () => {
  it("shows the header with search, Offers, the menu and the site switcher", async () => {
    const { cookie, url } = await signUp();
    const page = await (await get("/market", { cookie })).text();
    expect(page).toContain(`placeholder="${messages.searchPlaceholder}"`);
    expect(page).toContain('href="/mysite/offers"');
    expect(page).toContain("Your Score");
    expect(page).toContain(url);
    // "+ New site" on screen; the plus is not read out.
    expect(page).toContain(`<span aria-hidden="true">+ </span>New site</a>`);
  });

  it("sends a site switch back to the page without the notice it showed, which was about the site before", async () => {
    const { cookie } = await signUp();
    const page = await read(await get("/mysite/settings?notice=settings-saved&tab=x", { cookie }));
    expect(page).toContain("Settings saved");
    expect(page).toContain('name="redirectTo" value="/mysite/settings?tab=x"');
    expect(page).toContain(`href="/sites/new?back=${encodeURIComponent("/mysite/settings?tab=x")}"`);
  });

  it("has the owner's pages post their forms to the page without its notice, so a refusal does not come back beside it", async () => {
    const { cookie } = await signUp();
    for (const [path, postsTo] of [
      ["/mysite/settings?notice=settings-saved", "/mysite/settings"],
      ["/mysite/verify?notice=new-tag", "/mysite/verify"],
      ["/mysite/connects?notice=test-purchase", "/mysite/connects"],
      ["/mysite/your-score?notice=x&tab=y", "/mysite/your-score?tab=y"],
    ] as const) {
      const page = await read(await get(path, { cookie }));
      const posted = [...page.matchAll(/<form method="post" action="([^"]*)"/g)].map((match) => match[1]!.replace(/&amp;/g, "&"));
      expect(posted.length, path).toBeGreaterThan(0);
      expect(
        posted.filter((action) => action.includes("notice=")),
        path,
      ).toEqual([]);
      expect(posted, path).toContain(postsTo);
    }
  });
});

describe("add-website dialog", () => {
  it("adds a site with category blog and makes it the active site", async () => {
    const { cookie, userId } = await signUp();
    const response = await post("/sites/new?back=/market", { url: "coffee-towns.com", description: DESCRIPTION, category: "product" }, { cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/market");
    const site = await env.DB.prepare("SELECT id, category, description FROM sites WHERE user_id = ? AND host = 'coffee-towns.com'")
      .bind(userId)
      .first<{ id: string }>();
    expect(site).toMatchObject({ category: "blog", description: DESCRIPTION });
    const session = await env.DB.prepare("SELECT active_site_id FROM sessions WHERE user_id = ?").bind(userId).first();
    expect(session).toEqual({ active_site_id: site!.id });
  });

  it("adds sites on internationalised domains, typed in their script or in their ASCII form", async () => {
    const { cookie, userId } = await signUp();
    for (const url of ["उदाहरण.भारत", "https://www.xn--e1afmkfd.xn--p1ai/"]) {
      expect((await post("/sites/new", { url, description: DESCRIPTION }, { cookie })).status).toBe(302);
    }
    const hosts = await env.DB.prepare("SELECT host FROM sites WHERE user_id = ? AND host LIKE 'xn--%' ORDER BY host").bind(userId).all();
    expect(hosts.results).toEqual([{ host: "xn--e1afmkfd.xn--p1ai" }, { host: "xn--p1b6ci4b4b3a.xn--h2brj9c" }]);
  });

  it("shows the rule messages and keeps what was typed", async () => {
    const { cookie } = await signUp();
    const response = await post("/sites/new", { url: "not a url", description: "short" }, { cookie });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain(messages.linkIncomplete);
    expect(page).toContain(messages.descriptionMinimum);
    expect(page).toContain("not a url");
  });

  // The address pattern lets a port over 65535 through, but the URL parser refuses it: each form answers with its
  // message and what was typed, not an error page.
  it.each(["mysite.com:99999", "https://mysite.com:65536/"])("refuses %s on every form that takes a website, with its message", async (url) => {
    const { cookie } = await signUp();
    const dialog = await post("/sites/new", { url, description: DESCRIPTION }, { cookie });
    expect(dialog.status).toBe(400);
    const dialogPage = await read(dialog);
    expect(dialogPage).toContain(messages.linkIncomplete);
    expect(dialogPage).toContain(`value="${url}"`);

    const listed = await post("/add-site?source=market", { url, category: "blog", description: DESCRIPTION, connects: "10" }, { cookie });
    expect(listed.status).toBe(400);
    const listedPage = await read(listed);
    expect(listedPage).toContain(messages.invalidUrl);
    expect(listedPage).toContain(`value="${url}"`);

    const email = newEmail();
    const signup = await post("/signup", { intent: "create", email, password: PASSWORD, url, description: DESCRIPTION });
    expect(signup.status).toBe(400);
    const signupPage = await read(signup);
    expect(signupPage).toContain(messages.linkIncomplete);
    expect(signupPage).toContain(`value="${url}"`);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first("n")).toBe(0);
  });

  it("sent twice at once (Add website pressed twice without JavaScript): one site, and both answers go on as the first", async () => {
    const { cookie, userId } = await signUp();
    const host = `twice-${crypto.randomUUID().slice(0, 8)}.com`;
    const send = () => post("/sites/new?back=/mysite", { url: host, description: DESCRIPTION }, { cookie });
    const answers = await Promise.all([send(), send()]);
    expect(answers.map((answer) => [answer.status, answer.headers.get("Location")])).toEqual([
      [302, "/mysite"],
      [302, "/mysite"],
    ]);
    // And once more, after both: still that add.
    expect((await send()).headers.get("Location")).toBe("/mysite");
    const rows = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ? AND host = ?").bind(userId, host).all<{ id: string }>();
    expect(rows.results).toHaveLength(1);
    expect(await env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({
      id: rows.results[0]!.id,
    });
    // Another description is another add: refused as the site already there.
    const other = await post("/sites/new", { url: host, description: `${DESCRIPTION} Another wording.` }, { cookie });
    expect(other.status).toBe(409);
    expect(await read(other)).toContain(messages.websiteAlreadyAdded);

    // Listing a new site from the market, sent twice: one site, listed once (the second finds the first's site there).
    const listed = `listed-twice-${crypto.randomUUID().slice(0, 8)}.com`;
    const list = () => post("/add-site?source=market", { url: listed, category: "blog", description: DESCRIPTION, connects: "7" }, { cookie });
    const listings = await Promise.all([list(), list()]);
    expect(listings.map((answer) => answer.headers.get("Location"))).toEqual([
      "/market?notice=site-listed-unverified",
      "/market?notice=site-listed-unverified",
    ]);
    const listedRows = await env.DB.prepare(
      "SELECT count(DISTINCT s.id) AS sites, count(l.id) AS listings FROM sites s JOIN listings l ON l.site_id = s.id WHERE s.user_id = ? AND s.host = ?",
    )
      .bind(userId, listed)
      .first();
    expect(listedRows).toEqual({ sites: 1, listings: 1 });
  });

  it("refuses a site the user already has", async () => {
    const { cookie, url } = await signUp();
    const response = await post("/sites/new", { url: `https://www.${url}/`, description: DESCRIPTION }, { cookie });
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(messages.websiteAlreadyAdded);
  });

  it("refuses a second blog on medium.com saying the account has a site there, and the same blog as already there", async () => {
    const blog = `medium.com/@${crypto.randomUUID().slice(0, 8)}`;
    const { cookie } = await signUp(undefined, blog);
    const other = await post("/sites/new", { url: "https://medium.com/@someone-else", description: DESCRIPTION }, { cookie });
    expect(other.status).toBe(409);
    const page = await read(other);
    expect(page).toContain(messages.siteOnHostAlready("medium.com"));
    expect(page).not.toContain(messages.websiteAlreadyAdded);
    const same = await post("/sites/new", { url: `https://${blog}/a-post`, description: DESCRIPTION }, { cookie });
    expect(same.status).toBe(409);
    expect(await read(same)).toContain(messages.websiteAlreadyAdded);
  });
});

describe("site switcher", () => {
  it("switches to an own site and refuses someone else's", async () => {
    const owner = await signUp();
    await post("/sites/new", { url: "second-site.com", description: DESCRIPTION }, { cookie: owner.cookie });
    const first = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ? ORDER BY created_at LIMIT 1")
      .bind(owner.userId)
      .first<{ id: string }>();
    const switched = await post("/sites/active", { siteId: first!.id, redirectTo: "/market" }, { cookie: owner.cookie });
    expect(switched.status).toBe(302);
    expect(switched.headers.get("Location")).toBe("/market");
    expect(await env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(owner.userId).first()).toEqual({ id: first!.id });
    // From a page whose address is too long to come back to (a shared link's), or a way back sent twice: the switch
    // happens and the market opens.
    const second = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ? AND id != ?").bind(owner.userId, first!.id).first<{ id: string }>();
    for (const [siteId, back] of [
      [second!.id, [`/search/${"x".repeat(3000)}`]],
      [first!.id, ["/mysite", "/mysite/offers"]],
    ] as const) {
      const form = new URLSearchParams([["siteId", siteId], ...back.map((path) => ["redirectTo", path])]);
      const response = await post("/sites/active", form, { cookie: owner.cookie });
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/market");
      expect(await env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(owner.userId).first()).toEqual({ id: siteId });
    }

    const stranger = await signUp();
    const refused = await post("/sites/active", { siteId: first!.id }, { cookie: stranger.cookie });
    expect(refused.status).toBe(403);
    const strangerSession = await env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?")
      .bind(stranger.userId)
      .first<{ id: string }>();
    expect(strangerSession!.id).not.toBe(first!.id);
  });
});

describe("the page after another site becomes active", () => {
  it("is the same page without the old site's list positions, open offer and notice, switched or added", async () => {
    const owner = await signUp();
    const [site] = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ?")
      .bind(owner.userId)
      .all<{ id: string }>()
      .then((r) => r.results);
    const offersPage = "/mysite/offers?offersAfter=1700000000000_a1&tradesAfter=1700000000000_b2&offer=o1&view=profile&notice=settings-saved";
    const added = await post(
      `/sites/new?back=${encodeURIComponent(offersPage)}`,
      { url: uniqueHost("added"), description: DESCRIPTION },
      { cookie: owner.cookie },
    );
    expect(added.status).toBe(302);
    expect(added.headers.get("Location")).toBe("/mysite/offers");
    const switched = await post("/sites/active", { siteId: site!.id, redirectTo: offersPage }, { cookie: owner.cookie });
    expect(switched.headers.get("Location")).toBe("/mysite/offers");
    // What is not about the site stays: the search's term and order.
    const fromSearch = await post(
      "/sites/active",
      { siteId: site!.id, redirectTo: "/search?term=blog&sort=record&notice=offer-sent" },
      { cookie: owner.cookie },
    );
    expect(fromSearch.headers.get("Location")).toBe("/search?term=blog&sort=record");
  });
});

describe("a page's forms act on the site it showed", () => {
  it("after another tab switched the active site, settings and a new tag go to the page's site, which is active again", async () => {
    const owner = await signUp();
    const siteA = (await env.DB.prepare("SELECT id FROM sites WHERE user_id = ?").bind(owner.userId).first<{ id: string }>())!.id;
    // Tab 1 shows site A's settings; its forms name the site.
    const page = await read(await get("/mysite/settings", { cookie: owner.cookie }));
    expect(page).toContain(`name="siteId" value="${siteA}"`);
    // Tab 2 adds site B, which becomes the active site.
    await post("/sites/new", { url: uniqueHost("tab-two"), description: DESCRIPTION }, { cookie: owner.cookie });
    const siteB = (await env.DB.prepare("SELECT id FROM sites WHERE user_id = ? AND id != ?").bind(owner.userId, siteA).first<{ id: string }>())!.id;
    const active = () => env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(owner.userId).first();
    expect(await active()).toEqual({ id: siteB });
    const descriptions = () =>
      env.DB.prepare("SELECT id, description FROM sites WHERE user_id = ? ORDER BY id").bind(owner.userId).all<{ id: string; description: string }>();
    const before = new Map((await descriptions()).results.map((row) => [row.id, row.description]));

    // Tab 1 saves: A gets the settings, B keeps its own, and A is the active site again (the page after shows A).
    const saved = await post("/mysite/settings", { siteId: siteA, description: "Saved from the first tab, about A." }, { cookie: owner.cookie });
    expect(saved.headers.get("Location")).toBe("/mysite/settings?notice=settings-saved");
    const after = new Map((await descriptions()).results.map((row) => [row.id, row.description]));
    expect(after.get(siteA)).toBe("Saved from the first tab, about A.");
    expect(after.get(siteB)).toBe(before.get(siteB));
    expect(await active()).toEqual({ id: siteA });

    // A refused save (without JavaScript, the page comes back rendered) shows what was typed beside the site it was
    // typed for, and leaves both sites as they were.
    await post("/sites/active", { siteId: siteB }, { cookie: owner.cookie });
    const refusedSave = await post("/mysite/settings", { siteId: siteA, description: "Too short", connects: "500" }, { cookie: owner.cookie });
    expect(refusedSave.status).toBe(400);
    const refusedPage = await read(refusedSave);
    expect(refusedPage).toContain(`name="siteId" value="${siteA}"`);
    const hostA = (await env.DB.prepare("SELECT host FROM sites WHERE id = ?").bind(siteA).first<{ host: string }>())!.host;
    expect(refusedPage).toContain(`<span class="site-switcher-name">${hostA}</span>`);
    expect(refusedPage).toContain("Too short");
    expect((await descriptions()).results.map((row) => row.description).sort()).toEqual([after.get(siteA), after.get(siteB)].sort());

    // The same for a new verification tag.
    await post("/sites/active", { siteId: siteB }, { cookie: owner.cookie });
    const tokens = () =>
      env.DB.prepare("SELECT id, verification_token AS token FROM sites WHERE user_id = ?").bind(owner.userId).all<{ id: string; token: string }>();
    const tokensBefore = new Map((await tokens()).results.map((row) => [row.id, row.token]));
    expect((await post("/mysite/verify", { siteId: siteA, intent: "new-tag" }, { cookie: owner.cookie })).status).toBe(302);
    const tokensAfter = new Map((await tokens()).results.map((row) => [row.id, row.token]));
    expect(tokensAfter.get(siteA)).not.toBe(tokensBefore.get(siteA));
    expect(tokensAfter.get(siteB)).toBe(tokensBefore.get(siteB));

    // Another account's site id is no site of this user's: nothing is saved and the active site stays.
    const stranger = await signUp();
    const strangers = (await env.DB.prepare("SELECT id, description FROM sites WHERE user_id = ?")
      .bind(stranger.userId)
      .first<{ id: string; description: string }>())!;
    const refused = await post("/mysite/settings", { siteId: strangers.id, description: "Not mine to write." }, { cookie: owner.cookie });
    expect(refused.status).toBe(404);
    expect(await env.DB.prepare("SELECT description FROM sites WHERE id = ?").bind(strangers.id).first()).toEqual({
      description: strangers.description,
    });
    expect(await active()).toEqual({ id: siteA });
    // Every other form of the owner's area answers the same, and touches nothing of the other site.
    const strangerBefore = await env.DB.prepare("SELECT * FROM sites WHERE id = ?").bind(strangers.id).first();
    for (const [path, fields] of [
      ["/mysite/verify", { intent: "new-tag" }],
      ["/mysite/verify", { intent: "check" }],
      ["/mysite/icon", {}],
      ["/mysite/your-score", { intent: "audit" }],
    ] as const) {
      expect((await post(path, { ...fields, siteId: strangers.id }, { cookie: owner.cookie })).status, `${path} ${JSON.stringify(fields)}`).toBe(404);
    }
    expect(await env.DB.prepare("SELECT * FROM sites WHERE id = ?").bind(strangers.id).first()).toEqual(strangerBefore);
    expect(await active()).toEqual({ id: siteA });
  });
});

describe("text with line breaks, as a form without JavaScript sends it", () => {
  it("counts and keeps each line break once, as the text box did (the form sends it as CR LF)", async () => {
    const owner = await trader();
    // 497 characters and three line breaks: 500 in the box, whose maxlength let it through; 503 as posted.
    const lines = ["a".repeat(165), "b".repeat(166), "c".repeat(165), ""];
    const typed = lines.join("\n").slice(0, 499) + "d";
    expect(typed.length).toBe(500);
    const posted = typed.replaceAll("\n", "\r\n");
    const saved = await post("/mysite/settings", { siteId: owner.siteId, description: posted }, { cookie: owner.cookie });
    expect(saved.status).toBe(302);
    const stored = await env.DB.prepare("SELECT description FROM sites WHERE id = ?").bind(owner.siteId).first<{ description: string }>();
    expect(stored!.description).toBe(typed);
    // Feedback near its limit too.
    const feedback = `${"x".repeat(4000)}\r\n${"y".repeat(999)}`;
    expect((await post("/feedback", { feedback }, { cookie: owner.cookie })).status).toBe(302);
    const kept = await env.DB.prepare("SELECT text FROM feedback WHERE user_id = ?").bind(owner.userId).first<{ text: string }>();
    expect(kept!.text).toBe(`${"x".repeat(4000)}\n${"y".repeat(999)}`);
  });
});

describe("site-add form", () => {
  it("stores a waitlist entry from the hero and goes to /newbeta", async () => {
    const email = newEmail("hero");
    const response = await post("/add-site?source=hero", { url: "www.Hero-Site.com", email, category: "product", description: "We sell tea" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/newbeta");
    const entry = await env.DB.prepare("SELECT host, category, source, description FROM beta_signups WHERE email = ?").bind(email).first();
    expect(entry).toEqual({ host: "hero-site.com", category: "product", source: "hero", description: "We sell tea" });
    expect(await (await get("/newbeta")).text()).toContain(messages.launchText);
  });

  it("shows each message of the form", async () => {
    const response = await post("/add-site?source=hero", { url: "nope", email: "nope", description: "" });
    expect(response.status).toBe(400);
    const page = await response.text();
    for (const message of [messages.invalidUrl, messages.invalidEmailAddress, messages.selectCategory, messages.enterDescription]) {
      expect(page).toContain(message);
    }
  });

  it("labels the exit Back for the hero and Exit otherwise", async () => {
    const hero = await (await get("/add-site?source=hero&url=mysite.com")).text();
    expect(hero).toContain("Let the matching begin...");
    expect(hero).toContain('value="mysite.com"');
    expect(hero).toMatch(/href="\/"[^>]*>Back</);
    expect(hero).toContain('name="email"');
    const other = await (await get("/add-site")).text();
    expect(other).toMatch(/href="\/"[^>]*>Exit</);
    expect(other).not.toContain('name="email"');
  });
});

describe("daily housekeeping", () => {
  it("deletes expired sessions and reset tokens", async () => {
    const { userId } = await signUp();
    const past = Date.now() - 1000;
    await env.DB.batch([
      env.DB.prepare("INSERT INTO sessions (id, user_id, expires_at, absolute_expires_at) VALUES ('expired-session', ?, ?, ?)").bind(
        userId,
        past,
        past,
      ),
      env.DB.prepare("INSERT INTO password_reset_tokens (id, user_id, expires_at) VALUES ('expired-token', ?, ?)").bind(userId, past),
    ]);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(await env.DB.prepare("SELECT id FROM sessions WHERE id = 'expired-session'").first()).toBeNull();
    expect(await env.DB.prepare("SELECT id FROM password_reset_tokens WHERE id = 'expired-token'").first()).toBeNull();
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({ n: 1 });
  });

  it("merges each search index into one segment on Sundays, and every kind of search finds the same", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const word = `zm${crypto.randomUUID().slice(0, 6)}`;
    const pair = `${String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 20000))}m`;
    for (let i = 0; i < 12; i += 1) {
      await listSite(other.userId, { host: uniqueHost("merged"), description: `Merged ${word} ${pair} ${i}`, tags: i % 2 ? ["seo"] : ["seo", "ai"] });
    }
    // Each site's change wrote its index rows as segments of their own. FTS5's automerge folds every four segments of a
    // level into one, so how many there are depends on how many sites the file's tests wrote before: one more site
    // (matching none of the searches below) after a fold leaves two again.
    const segments = async (index: string) => (await env.DB.prepare(`SELECT count(DISTINCT segid) AS n FROM ${index}_idx`).first<number>("n"))!;
    for (let extra = 0; (await segments("site_search")) <= 1 || (await segments("site_grams")) <= 1; extra += 1) {
      if (extra === 8) throw new Error("the indexes stay in one segment");
      await listSite(other.userId, { host: uniqueHost("unmerged"), description: `Another site, number ${extra}`, tags: ["travel"] });
    }
    expect(await segments("site_search")).toBeGreaterThan(1);
    expect(await segments("site_grams")).toBeGreaterThan(1);
    const found = async () =>
      Promise.all(
        [`term=${word}`, `term=${word}&tag=ai`, `term=${encodeURIComponent(pair)}`, `term=${encodeURIComponent(pair)}&tag=ai`, "tag=seo&tag=ai"].map(
          async (query) => [...(await read(await get(`/search?${query}`, { cookie: viewer.cookie }))).matchAll(POST_LINK)].map((m) => m[1]),
        ),
      );
    const before = await found();
    expect(before.map((ids) => ids.length).slice(0, 4)).toEqual([12, 6, 12, 6]);

    const daily = async (scheduledTime: number) => {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime }), env as never, ctx);
      await waitOnExecutionContext(ctx);
    };
    // The last Sunday (UTC) at the cron's time, and the Saturday before it: only Sunday's run merges.
    const day = 24 * 3600_000;
    const sunday = Math.floor(Date.now() / day) * day - new Date().getUTCDay() * day + (3 * 60 + 17) * 60_000;
    expect(new Date(sunday).getUTCDay()).toBe(0);
    await daily(sunday - day);
    expect(await segments("site_search")).toBeGreaterThan(1);
    await daily(sunday);
    expect(await segments("site_search")).toBe(1);
    expect(await segments("site_grams")).toBe(1);
    expect(await found()).toEqual(before);
    // FTS5's own check of each index against its rows (it throws on any difference).
    await env.DB.prepare("INSERT INTO site_search (site_search) VALUES ('integrity-check')").run();
    await env.DB.prepare("INSERT INTO site_grams (site_grams) VALUES ('integrity-check')").run();
  });
});
