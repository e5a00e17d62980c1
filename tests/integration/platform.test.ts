import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { messages } from "~/domain/messages";
import { database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import worker, { createContext } from "~/worker";
import wranglerConfig from "../../wrangler.toml?raw";
import { fillPlaceholders, getTableColumns, sql } from "drizzle-orm";
import { emailOutbox } from "#drizzle/schema";
import { deliverOutbox, emailToUser, outboxSelection, SECRET_BODY_REMOVED } from "~/services/email.server";
import { requestPasswordReset } from "~/services/password-reset.server";
import { shapeViewer } from "~/services/viewer.server";
import { dashboardQueries } from "~/services/dashboard.server";
import { marketCountQuery, marketPageQuery } from "~/services/market.server";
import { SEARCH_COUNT_CAP } from "~/services/search.server";
import {
  devFetch,
  get,
  listSite,
  newAddress,
  newEmail,
  PASSWORD,
  post,
  propose,
  read,
  SESSION_COOKIE,
  sessionCookieOf,
  signUp,
  trader,
  uniqueHost,
  windowStart,
} from "./helpers";

/** The database round trips a development response counts in its Server-Timing header. */
const roundTrips = (response: Response) => Number(/desc="(\d+) queries"/.exec(response.headers.get("Server-Timing") ?? "")?.[1]);

afterEach(() => vi.restoreAllMocks());

describe("public pages", () => {
  it.each(["/", "/finish-signup", "/send-email-link", "/briefs"])("%s renders the landing page", async (path) => {
    const response = await get(path);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain("Popular Sites");
    expect(page).toContain("Get more organic traffic - No cost involved");
    expect(page).toContain("© 2023");
  });

  it.each(["/", "/login", "/signup", "/reset-password", "/add-site?source=hero", "/newbeta", "/privacy", "/briefs"])(
    "%s has a title and a description for search results",
    async (path) => {
      const page = await (await get(path)).text();
      expect(page).toMatch(/<title>[^<]*Backlink Market[^<]*<\/title>/);
      expect(page).toMatch(/<meta name="description" content="[^"]{40,}"\/>/);
    },
  );

  it("rotates the carousel without JavaScript through ?slide", async () => {
    const page = await (await get("/?slide=1")).text();
    expect(page.indexOf("tasktide.app")).toBeLessThan(page.indexOf("wanderingnotes.blog"));
  });

  it("keeps the dev mailbox off any address but a local one", async () => {
    expect((await get("/dev/mailbox")).status).toBe(404);
    expect((await SELF.fetch("http://localhost:8787/dev/mailbox")).status).toBe(404);
    const local = await devFetch("/dev/mailbox");
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("Dev mailbox");
  });

  it("answers unknown pages of the owner's area with a 404 inside it", async () => {
    const { cookie } = await signUp();
    const response = await get("/mysite/no-such-page", { cookie });
    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain("Page not found");
    expect(page).toContain('aria-label="My site"');
  });

  it("answers unknown addresses with a 404 page", async () => {
    const response = await get("/no-such-page");
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Page not found");
  });
});

describe("sign-up rate limit", () => {
  it("refuses the 11th sign-up from one address in a minute", async () => {
    const address = newAddress();
    const at = windowStart();
    const attempt = () =>
      post(
        "/signup",
        {
          intent: "create",
          email: newEmail("burst"),
          password: PASSWORD,
          url: `burst-${crypto.randomUUID().slice(0, 6)}.com`,
          description: "A description that is long enough to pass.",
        },
        { address, at },
      );
    for (let i = 0; i < 10; i += 1) expect((await attempt()).status).toBe(302);
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain(messages.tooManyAttempts);
  });
});

describe("email outbox delivery", () => {
  it("sends what is due through the email API and retries a failure later", async () => {
    const db = database(env.DB);
    const now = Date.now();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO email_outbox (id, to_address, subject, text_body, kind, next_attempt_at) VALUES ('ok-mail', 'a@example.com', 'Hi', 'Body', 'test', ?)",
      ).bind(now),
      env.DB.prepare(
        "INSERT INTO email_outbox (id, to_address, subject, text_body, kind, next_attempt_at) VALUES ('bad-mail', 'b@example.com', 'Hi', 'Body', 'test', ?)",
      ).bind(now),
    ]);
    const sent: unknown[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (_input, init) => {
      const body = JSON.parse(String(init?.body));
      sent.push(body);
      return new Response(null, { status: body.to[0] === "b@example.com" ? 503 : 202 });
    });
    const mailEnv = { ...env, EMAIL_API_URL: "https://mail.test/send", EMAIL_API_KEY: "key" } as unknown as Env;
    const ours = () => sent.filter((body) => ["a@example.com", "b@example.com"].includes((body as { to: string[] }).to[0]!));
    await deliverOutbox(db, mailEnv, now);
    expect(ours()).toHaveLength(2);
    const rows = await env.DB.prepare(
      "SELECT id, status, attempts, next_attempt_at > ? AS later FROM email_outbox WHERE id IN ('ok-mail', 'bad-mail') ORDER BY id",
    )
      .bind(now)
      .all();
    expect(rows.results).toEqual([
      { id: "bad-mail", status: "pending", attempts: 1, later: 1 },
      { id: "ok-mail", status: "sent", attempts: 1, later: 1 },
    ]);
    // Not due yet: nothing is sent again on the same tick.
    expect(await deliverOutbox(db, mailEnv, now)).toBe(0);
    expect(ours()).toHaveLength(2);
  });
});

describe("reset links in the outbox", () => {
  async function requestReset(email: string) {
    expect((await post("/reset-password", { intent: "request", email })).status).toBe(200);
    return env.DB.prepare("SELECT id, text_body FROM email_outbox WHERE to_address = ? AND kind = 'password-reset' ORDER BY created_at DESC")
      .bind(email)
      .first<{ id: string; text_body: string }>();
  }

  it("are kept only until the email is delivered", async () => {
    const { email } = await signUp();
    const mail = (await requestReset(email))!;
    expect(mail.text_body).toMatch(/reset-password\?token=[a-z2-7]+/);
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response(null, { status: 202 }));
    const mailEnv = { ...env, EMAIL_API_URL: "https://mail.test/send", EMAIL_API_KEY: "key" } as unknown as Env;
    await deliverOutbox(database(env.DB), mailEnv, Date.now() + 1);
    const after = await env.DB.prepare("SELECT status, text_body FROM email_outbox WHERE id = ?").bind(mail.id).first();
    expect(after).toEqual({ status: "sent", text_body: SECRET_BODY_REMOVED });
  });

  it("are not sent once their link has expired: the email waited past its hour (the provider was down)", async () => {
    const { email } = await signUp();
    const mail = (await requestReset(email))!;
    const fetched = vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response(null, { status: 202 }));
    const mailEnv = { ...env, EMAIL_API_URL: "https://mail.test/send", EMAIL_API_KEY: "key" } as unknown as Env;
    await deliverOutbox(database(env.DB), mailEnv, Date.now() + 2 * 3600_000);
    const token = mail.text_body.match(/token=([a-z2-7]+)/)![1]!;
    const bodies = await Promise.all(
      fetched.mock.calls.map(([input, init]) => (input instanceof Request ? input.clone().text() : String(init?.body ?? ""))),
    );
    expect(bodies.filter((body) => body.includes(token))).toEqual([]);
    expect(await env.DB.prepare("SELECT status, text_body FROM email_outbox WHERE id = ?").bind(mail.id).first()).toEqual({
      status: "cancelled",
      text_body: SECRET_BODY_REMOVED,
    });
  });

  it("are removed by the daily job once expired, delivered or not, and show in the dev mailbox until then", async () => {
    const { email } = await signUp();
    const mail = (await requestReset(email))!;
    const token = mail.text_body.match(/token=([a-z2-7]+)/)![1]!;
    expect(await (await devFetch("/dev/mailbox")).text()).toContain(token);
    const ctx = createExecutionContext();
    // A reset link lives an hour; its body goes at the next run after that.
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() + 2 * 3600_000 }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    // Never sent (no transport here): it is cancelled, not sent later with its body emptied.
    expect(await env.DB.prepare("SELECT status, text_body FROM email_outbox WHERE id = ?").bind(mail.id).first()).toEqual({
      status: "cancelled",
      text_body: SECRET_BODY_REMOVED,
    });
    expect(await (await devFetch("/dev/mailbox")).text()).not.toContain(token);
  });

  it("a reset request runs the same statements whether or not the account exists", async () => {
    const { email } = await signUp();
    const statementsFor = async (address: string) => {
      const seen: string[] = [];
      const counted = new Proxy(env.DB, {
        get(target, property, receiver) {
          if (property === "prepare") return (query: string) => (seen.push(query), target.prepare(query));
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const context = { ...createContext({ ...env, DB: counted } as never, createExecutionContext()) };
      expect(await requestPasswordReset(context, address, newAddress())).toEqual({ ok: true, message: messages.resetLinkSent });
      return seen;
    };
    const known = await statementsFor(email);
    const unknown = await statementsFor(newEmail("nobody"));
    expect(known.length).toBeGreaterThan(2);
    expect(unknown).toEqual(known);
  });
});

describe("the daily job", () => {
  it("goes on past a step that fails: sessions and links still go when the sign-up drafts cannot be read", async () => {
    const { userId } = await signUp();
    const later = Date.now() + 100 * 86_400_000;
    await env.DB.prepare("ALTER TABLE signup_drafts RENAME TO signup_drafts_away").run();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: later }), env as never, ctx);
      await waitOnExecutionContext(ctx);
    } finally {
      await env.DB.prepare("ALTER TABLE signup_drafts_away RENAME TO signup_drafts").run();
    }
    expect(errors.mock.calls.map((call) => call[0])).toContain("sign-up drafts");
    // Steps before and after the one that failed ran: the sessions (past their 90 days) and the confirmation links.
    expect(await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({ n: 0 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM email_confirmation_tokens WHERE user_id = ?").bind(userId).first()).toEqual({
      n: 0,
    });
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM rate_limits WHERE window_start < ?")
        .bind(later - 2 * 86_400_000)
        .first(),
    ).toEqual({
      n: 0,
    });
  });
});

describe("one email per event", () => {
  it("writes a second email with the same key not at all", async () => {
    const { userId, email } = await signUp();
    const db = database(env.DB);
    const mail = {
      userId,
      kind: "offer",
      subject: "Your offer was accepted",
      text: "Accepted.",
      dedupeKey: `offer:test-${crypto.randomUUID()}:accepted`,
    };
    await db.batch([emailToUser(db, mail, Date.now()), emailToUser(db, mail, Date.now())]);
    await db.batch([emailToUser(db, mail, Date.now())]);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ? AND dedupe_key = ?")
      .bind(email, mail.dedupeKey)
      .first();
    expect(rows).toEqual({ n: 1 });
  });
});

describe("insert...select column order", () => {
  it("the outbox selection names every column in the table's order (drizzle writes by position)", () => {
    const selection = outboxSelection({ subject: sql`'s'`, textBody: sql`'t'`, kind: sql`'k'`, dedupeKey: sql`NULL` }, 0);
    expect(Object.keys(selection)).toEqual(Object.keys(getTableColumns(emailOutbox)));
  });
});

describe("Server-Timing in development", () => {
  it("breaks a signed-in page down into session, database round trips, loaders and render", async () => {
    const user = await signUp();
    const cookie = user.cookie.replace(`${SESSION_COOKIE}=`, "session=");
    const response = await devFetch("/mysite/offers", { headers: { Cookie: cookie } });
    expect(response.status).toBe(200);
    const timing = response.headers.get("Server-Timing") ?? "";
    expect(timing).toMatch(
      /^session;dur=\d+, db;dur=\d+;desc="(\d+) queries", loaders;dur=\d+;desc="loaders and actions", render;dur=\d+, total;dur=\d+$/,
    );
    // One round trip: the session, the user's sites and the page's lists in one batch.
    expect(Number(/desc="(\d+) queries"/.exec(timing)?.[1])).toBe(1);
    await response.text();
  });

  it("reads the market, its open post, browsing search, the Offers lists, the dashboard and Your Score in the session's own round trip", async () => {
    const viewer = await trader();
    const seller = await trader();
    const theirHost = uniqueHost("theirs");
    const theirs = await listSite(seller.userId, { host: theirHost });
    const mine = await listSite(viewer.userId, { host: uniqueHost("mine") });
    const cookie = viewer.cookie.replace(`${SESSION_COOKIE}=`, "session=");
    const market = await devFetch(`/market?post=${theirs.listingId}`, { headers: { Cookie: cookie } });
    expect(roundTrips(market)).toBe(1);
    const page = await read(market);
    expect(page).toContain(`href="/market?post=${theirs.listingId}"`);
    expect(page).toContain("Trade terms");
    expect(page).toContain(`value="${theirs.listingId}"`);
    expect(page).not.toContain(mine.listingId);
    // A search with nothing to search for is the market's list, read the same way.
    const browsing = await devFetch("/search", { headers: { Cookie: cookie } });
    expect(roundTrips(browsing)).toBe(1);
    const results = await read(browsing);
    expect(results).toContain(`href="/search?post=${theirs.listingId}"`);
    expect(results).not.toContain(mine.listingId);

    expect((await propose(viewer.cookie, theirs.listingId)).status).toBe(302);
    for (const path of ["/mysite/offers", "/mysite"]) {
      const lists = await devFetch(path, { headers: { Cookie: cookie } });
      expect(roundTrips(lists), path).toBe(1);
      expect(await read(lists), path).toContain(`To ${theirHost}`);
    }
    const score = await devFetch("/mysite/your-score", { headers: { Cookie: cookie } });
    expect(roundTrips(score)).toBe(1);
    expect(await read(score)).toContain(`Here is the information we were able to gather about ${viewer.url}`);
  });

  it("reads the page's statements in a round trip of their own once an action has read the session", async () => {
    const viewer = await trader();
    const seller = await trader();
    const theirs = await listSite(seller.userId, { host: uniqueHost("theirs") });
    const refused = await devFetch(`/market?post=${theirs.listingId}`, {
      method: "POST",
      headers: { Cookie: viewer.cookie.replace(`${SESSION_COOKIE}=`, "session=") },
      body: new URLSearchParams({ intent: "propose", listingId: theirs.listingId }),
    });
    expect(refused.status).toBe(400);
    expect(roundTrips(refused)).toBeGreaterThan(1);
    const page = await read(refused);
    expect(page).toContain(messages.selectContentType);
    expect(page).toContain(`href="/market?post=${theirs.listingId}"`);
    expect(page).toContain(`value="${theirs.listingId}"`);
  });

  it("reads no more for a cookie that names no session than for a real user's page", async () => {
    const db = database(env.DB);
    const other = await signUp();
    for (let i = 0; i < 150; i += 1) await listSite(other.userId, { host: uniqueHost("many") });
    // The statements as their shapes write them (decision 32), filled in for a session id that names no session.
    const viewer = shapeViewer(db);
    for (const statement of [marketPageQuery(db, viewer.userId, null), ...dashboardQueries(db, viewer, Date.now(), "UTC", () => 0.5)]) {
      const { sql: text, params: shaped } = statement.toSQL();
      const params = fillPlaceholders(shaped, { session: "no-such-session", site: null });
      const { meta } = await env.DB.prepare(text)
        .bind(...params)
        .all();
      // A walk of every listing would read more than the 150 listed here.
      expect(meta.rows_read, text.slice(0, 80)).toBeLessThan(100);
    }
    // Browsing search's count (decision 36) stops at 100 listings: no more for a made-up session than for a real one.
    const count = marketCountQuery(db, viewer.userId, SEARCH_COUNT_CAP).toSQL();
    const readFor = async (session: string) =>
      (
        await env.DB.prepare(count.sql)
          .bind(...fillPlaceholders(count.params, { session, site: null }))
          .all()
      ).meta.rows_read;
    const someone = await signUp();
    const real = await env.DB.prepare("SELECT id FROM sessions WHERE user_id = ?").bind(someone.userId).first<string>("id");
    const forReal = await readFor(real!);
    expect(forReal).toBeLessThan(2 * SEARCH_COUNT_CAP + 10);
    expect(await readFor("no-such-session")).toBeLessThanOrEqual(forReal);
  });

  it("answers an expired session's page with a redirect to /login and none of what was read with it", async () => {
    const viewer = await trader();
    const seller = await trader();
    const theirs = await listSite(seller.userId, { host: uniqueHost("theirs") });
    for (const path of ["/market", `/market?post=${theirs.listingId}`, "/mysite", "/mysite/offers"]) {
      const cookie = sessionCookieOf(await post("/login", { email: viewer.email, password: PASSWORD }))!;
      await env.DB.prepare("UPDATE sessions SET expires_at = 1 WHERE user_id = ?").bind(viewer.userId).run();
      const response = await get(path, { cookie });
      expect(response.status, path).toBe(302);
      expect(response.headers.get("Location"), path).toMatch(/^\/login/);
      expect(response.headers.get("Set-Cookie"), path).toMatch(/^__Host-session=;/);
      expect(await response.text(), path).not.toContain(theirs.listingId);
    }
    // An unknown session gets the same answer.
    const unknown = await get("/market", { cookie: `${SESSION_COOKIE}=not-a-session` });
    expect(unknown.headers.get("Location")).toBe("/login");
  });

  it("is not sent in production", async () => {
    const user = await signUp();
    const response = await get("/mysite/offers", { cookie: user.cookie });
    expect(response.headers.get("Server-Timing")).toBeNull();
  });
});

describe("the cron triggers", () => {
  async function runTrigger(cron: string) {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron, scheduledTime: Date.now() }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    const said = errors.mock.calls.map((call) => String(call[0]));
    errors.mockRestore();
    return said;
  }

  it("each trigger of wrangler.toml has its job, and one without a job runs nothing but says so", async () => {
    const crons = JSON.parse(/^crons = (\[.*\])$/m.exec(wranglerConfig)![1]!) as string[];
    expect(crons).toHaveLength(3);
    for (const cron of crons) expect(await runTrigger(cron)).not.toContain(`No job for the cron trigger "${cron}"`);
    expect(await runTrigger("*/7 * * * *")).toEqual(['No job for the cron trigger "*/7 * * * *"']);
  });
});
