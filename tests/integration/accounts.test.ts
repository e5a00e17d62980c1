import { createExecutionContext, createScheduledController, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker, { createContext } from "~/worker";
import { messages } from "~/domain/messages";
import { database } from "~/lib/db.server";
import { changePassword } from "~/services/account-security.server";
import { REPLACED_SESSION_GRACE_MS, sessionIdOf, sessionQuery, validateSessionRow } from "~/services/sessions.server";
import { hashPassword } from "~/services/passwords.server";
import { logIn } from "~/services/accounts.server";
import { isResetTokenUsable, resetPassword } from "~/services/password-reset.server";
import type { CurrentAuth } from "~/services/auth.server";
import {
  BASE,
  devFetch,
  envWithFailingTable,
  get,
  newAddress,
  newEmail,
  PASSWORD,
  post,
  read,
  SESSION_COOKIE,
  sessionCookieOf,
  signUp,
  uniqueHost,
  windowStart,
} from "./helpers";

const escaped = (text: string) => text.replaceAll("'", "&#x27;");

/** Posts a form to the Worker with a database whose statements on `failingTable` throw (D1 unavailable). */
function postWhileFailing(path: string, fields: Record<string, string>, failingTable: string) {
  const failing = envWithFailingTable(failingTable);
  return worker.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Host: new URL(BASE).host, Origin: BASE, "CF-Connecting-IP": newAddress() },
    }) as never,
    failing as never,
    createExecutionContext(),
  );
}

const DESCRIPTION = "A site made without JavaScript at all, step by step.";

describe("sign-up", () => {
  it("without JavaScript keeps step 0 on the server: step 1's page never carries the password back", async () => {
    const email = newEmail("nojs");
    const password = "Quiet-Meadow-42";
    const step0 = await post("/signup", { intent: "continue", email, password });
    expect(step0.status).toBe(200);
    const page = await read(step0);
    expect(page).not.toContain(password);
    expect(page).toContain("Tell us about your website");
    const draft = page.match(/name="draft" value="([a-z2-7]+)"/)![1]!;
    const stored = await env.DB.prepare("SELECT email, password_hash FROM signup_drafts").all<{ email: string; password_hash: string }>();
    const row = stored.results.find((r) => r.email === email)!;
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored.results)).not.toContain(password);

    // Back to step 0 and on again: the draft is kept, the password is not asked for twice nor sent back.
    const back = await read(await post("/signup", { intent: "back", email, password: "", draft }));
    expect(back).toContain(`name="draft" value="${draft}"`);
    expect(back).not.toContain(password);
    // A mistyped email on the way: its message, and the draft still kept (no password asked for).
    const mistyped = await post("/signup", { intent: "continue", email: "someone@", password: "", draft });
    expect(mistyped.status).toBe(400);
    const mistypedPage = await read(mistyped);
    expect(mistypedPage).toContain(messages.emailIncomplete);
    expect(mistypedPage).toMatch(/<span class="field-error" id="signup-password-error"[^>]*><\/span>/);
    expect(mistypedPage).toContain("Your password is kept.");
    expect(mistypedPage).toContain(`name="draft" value="${draft}"`);
    const again = await read(await post("/signup", { intent: "continue", email, password: "", draft }));
    expect(again).toContain("Tell us about your website");

    const create = await post("/signup", {
      intent: "create",
      email,
      password: "",
      draft,
      url: uniqueHost("nojs"),
      description: "A site made without JavaScript at all, step by step.",
    });
    expect(create.status).toBe(302);
    expect(create.headers.get("Location")).toBe("/market");
    expect((await post("/login", { email, password })).status).toBe(302);
    // The draft that made the account goes within a minute.
    const left = await env.DB.prepare("SELECT expires_at FROM signup_drafts WHERE email = ?").bind(email).first<{ expires_at: number }>();
    expect(left!.expires_at).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it("without JavaScript, Create Account pressed twice makes one account and signs in from either answer", async () => {
    const email = newEmail("twice");
    const page = await read(await post("/signup", { intent: "continue", email, password: "Quiet-Meadow-42" }));
    const draft = page.match(/name="draft" value="([a-z2-7]+)"/)![1]!;
    const create = () =>
      post("/signup", {
        intent: "create",
        email,
        password: "",
        draft,
        url: uniqueHost("twice"),
        description: "A site whose owner double-clicks every button.",
      });
    const answers = [...(await Promise.all([create(), create()])), await create()];
    for (const answer of answers) {
      expect(answer.status).toBe(302);
      expect(answer.headers.get("Location")).toBe("/market");
      expect((await get("/mysite", { cookie: sessionCookieOf(answer)! })).status).toBe(200);
    }
    const users = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).all();
    expect(users.results).toHaveLength(1);
    // Another person's draft for the same address is still refused.
    const other = await read(await post("/signup", { intent: "continue", email, password: "Other-Meadow-42" }));
    const otherDraft = other.match(/name="draft" value="([a-z2-7]+)"/)![1]!;
    const refused = await post("/signup", {
      intent: "create",
      email,
      password: "",
      draft: otherDraft,
      url: uniqueHost("other"),
      description: "Someone else trying the same address for a site.",
    });
    expect(refused.status).toBe(409);
    expect(await read(refused)).toContain(messages.emailInUse);
  });

  it("a kept draft makes the account with the email the page posts, changed since step 0 or not", async () => {
    const first = newEmail("first");
    const page = await read(await post("/signup", { intent: "continue", email: first, password: "Quiet-Meadow-42" }));
    const draft = page.match(/name="draft" value="([a-z2-7]+)"/)![1]!;
    // With JavaScript, Back and Continue stay in the browser: the changed email comes with Create Account.
    const second = newEmail("second");
    const create = await post("/signup", {
      intent: "create",
      email: second,
      password: "",
      draft,
      url: uniqueHost("second"),
      description: DESCRIPTION,
    });
    expect(create.status).toBe(302);
    expect(await env.DB.prepare("SELECT email FROM users WHERE email IN (?, ?)").bind(first, second).all()).toMatchObject({
      results: [{ email: second }],
    });
    expect((await post("/login", { email: second, password: "Quiet-Meadow-42" })).status).toBe(302);
  });

  it("asks for the password again when the draft of step 0 has expired", async () => {
    const email = newEmail("late");
    const page = await read(await post("/signup", { intent: "continue", email, password: "Quiet-Meadow-42" }));
    const draft = page.match(/name="draft" value="([a-z2-7]+)"/)![1]!;
    await env.DB.prepare("UPDATE signup_drafts SET expires_at = ? WHERE email = ?")
      .bind(Date.now() - 1, email)
      .run();
    const late = await post("/signup", {
      intent: "create",
      email,
      password: "",
      draft,
      url: uniqueHost("late"),
      description: "A site made without JavaScript at all, step by step.",
    });
    expect(late.status).toBe(400);
    expect(await read(late)).toContain(messages.signupDraftExpired);
    // Back on step 0 and Continue with the password field empty, as the page had said it was kept: the same answer.
    const lateContinue = await post("/signup", { intent: "continue", email, password: "", draft });
    expect(lateContinue.status).toBe(400);
    expect(await read(lateContinue)).toContain(messages.signupDraftExpired);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first()).toEqual({ n: 0 });
  });

  it("refuses a password from the list of common ones, such as Password1, with a clear message", async () => {
    const email = newEmail("common");
    const step0 = await post("/signup", { intent: "continue", email, password: "Password1" });
    expect(step0.status).toBe(400);
    const page = await read(step0);
    expect(page).toContain(messages.passwordTooCommon);
    expect(page).not.toContain("Password1");
    const create = await post("/signup", {
      intent: "create",
      email,
      password: "Password1",
      url: uniqueHost("common"),
      description: "A site with a long enough description here.",
    });
    expect(create.status).toBe(400);
    expect(await read(create)).toContain(messages.passwordTooCommon);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first()).toEqual({ n: 0 });
  });

  it("creates the user, the site (category blog), the starter connects and a session, and lands on /market", async () => {
    const email = newEmail("new");
    const response = await post("/signup", {
      intent: "create",
      email: email.toUpperCase(),
      password: PASSWORD,
      url: "https://www.Garden-Notes.com/",
      description: "A site about small-space gardening and balcony vegetables.",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/market");
    const cookie = sessionCookieOf(response);
    expect(cookie).toMatch(/^__Host-session=[a-z2-7]{32}$/);
    expect(response.headers.getSetCookie()[0]).toMatch(/HttpOnly; Secure; SameSite=Lax; Path=\//);

    const user = await env.DB.prepare("SELECT id, email, connects FROM users WHERE email = ?").bind(email).first<{ id: string; connects: number }>();
    expect(user).toMatchObject({ email, connects: 20 });
    const site = await env.DB.prepare("SELECT url, host, category, verified FROM sites WHERE user_id = ?").bind(user!.id).first();
    expect(site).toEqual({ url: "https://www.Garden-Notes.com/", host: "garden-notes.com", category: "blog", verified: 0 });
    const lot = await env.DB.prepare("SELECT source, amount, remaining FROM connect_lots WHERE user_id = ?").bind(user!.id).first();
    expect(lot).toEqual({ source: "starter", amount: 20, remaining: 20 });
    const ledger = await env.DB.prepare("SELECT kind, amount FROM connect_ledger WHERE user_id = ?").bind(user!.id).all();
    expect(ledger.results).toEqual([{ kind: "grant", amount: 20 }]);
    const credential = await env.DB.prepare("SELECT password_hash FROM password_credentials WHERE user_id = ?")
      .bind(user!.id)
      .first<{ password_hash: string }>();
    expect(credential!.password_hash).toMatch(/^scrypt\$16384\$8\$5\$/);
    expect(credential!.password_hash).not.toContain(PASSWORD);

    const market = await get("/market", { cookie });
    expect(market.status).toBe(200);
    expect(await market.text()).toContain("garden-notes.com");
  });

  it("says 'Email already in use' for a taken email and keeps what was typed", async () => {
    const { email } = await signUp();
    const response = await post("/signup", {
      intent: "create",
      email,
      password: PASSWORD,
      url: "another-site.com",
      description: "Another description that is long enough to pass.",
    });
    expect(response.status).toBe(409);
    const page = await response.text();
    // At the email field, on the step that has it; the site's fields keep what was typed.
    expect(page).toMatch(new RegExp(`id="signup-email-error"[^>]*>${messages.emailInUse}</span>`));
    expect(page).toContain("another-site.com");
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("moves between steps without JavaScript and shows each rule's message", async () => {
    const invalid = await post("/signup", { intent: "continue", email: "ana@", password: "abc" });
    expect(invalid.status).toBe(400);
    const invalidPage = await invalid.text();
    expect(invalidPage).toContain(messages.emailIncomplete);
    expect(invalidPage).not.toContain('value="abc"');

    // An address that looks whole but has a wrong part gets the catalogue's 'Invalid email', and is kept.
    const malformed = await post("/signup", { intent: "continue", email: "ann..lee@example.com", password: PASSWORD });
    expect(malformed.status).toBe(400);
    const malformedPage = await malformed.text();
    expect(malformedPage).toContain(messages.invalidEmail);
    expect(malformedPage).toContain('value="ann..lee@example.com"');
    const created = await post("/signup", {
      intent: "create",
      email: "ann@exam_ple.com",
      password: PASSWORD,
      url: uniqueHost("bad"),
      description: "A site whose owner typed a wrong address.",
    });
    expect(created.status).toBe(400);
    expect(await created.text()).toContain(messages.invalidEmail);

    const next = await post("/signup", { intent: "continue", email: "ana@example.com", password: PASSWORD });
    expect(next.status).toBe(200);
    expect(next.headers.get("Cache-Control")).toBe("no-store");
    expect(await next.text()).toContain("Create Account");

    const step1 = await post("/signup", { intent: "create", email: "ana2@example.com", password: PASSWORD, url: "nope", description: "short" });
    expect(step1.status).toBe(400);
    const step1Page = await step1.text();
    expect(step1Page).toContain(messages.linkIncomplete);
    expect(step1Page).toContain(messages.descriptionMinimum);
  });

  it("says 'There was an error creating your account' on the step sent, with what was typed, when the database fails", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    // The rate limits' table cannot be read: the first thing a sign-up asks the database.
    const send = (fields: Record<string, string>) => postWhileFailing("/signup", fields, "rate_limits");
    const email = newEmail("db-down");
    const whole = await send({
      intent: "create",
      email,
      password: PASSWORD,
      url: "db-down.example",
      description: "A long enough description of the site.",
    });
    expect(whole.status).toBe(503);
    const page = await whole.text();
    expect(page).toContain(messages.signupFailed);
    expect(page).toContain('value="db-down.example"');
    expect(page).not.toContain(PASSWORD);
    const draft = await send({ intent: "continue", email, password: PASSWORD });
    expect(draft.status).toBe(503);
    expect(await draft.text()).toContain(messages.signupFailed);
  });

  it("prefills email, site and description from the query", async () => {
    const page = await (await get("/signup?email=ana%40example.com&site=ana.blog&des=About%20Ana")).text();
    expect(page).toContain('value="ana@example.com"');
    expect(page).toContain('value="ana.blog"');
    expect(page).toContain("About Ana");
  });
});

describe("login and logout", () => {
  it("signs in with the right password and goes to /market or a safe redirectTo", async () => {
    const { email } = await signUp();
    const response = await post("/login", { email, password: PASSWORD });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/market");
    expect(sessionCookieOf(response)).not.toBeNull();

    const back = await post("/login", { email, password: PASSWORD, redirectTo: "/mysite/offers" });
    expect(back.headers.get("Location")).toBe("/mysite/offers");
    const evil = await post("/login", { email, password: PASSWORD, redirectTo: "https://evil.test/" });
    expect(evil.headers.get("Location")).toBe("/market");
    // A long address (a search's, say) is no reason to refuse the right password.
    const long = `/search?term=${"a".repeat(2100)}`;
    expect(await read(await get(`/login?redirectTo=${encodeURIComponent(long)}`))).toContain(`name="redirectTo" value="${long}"`);
    const longBack = await post("/login", { email, password: PASSWORD, redirectTo: long });
    expect(longBack.status).toBe(302);
    expect(longBack.headers.get("Location")).toBe(long);
  });

  it("signing in or up from a browser already signed in ends the session it had", async () => {
    const first = await signUp();
    const second = await signUp();
    const sessionsOf = (userId: string) => env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first<{ n: number }>();
    expect(await sessionsOf(first.userId)).toEqual({ n: 1 });
    // A login form left open in a tab, posted after this browser signed in as the first account.
    const signedIn = await post("/login", { email: second.email, password: PASSWORD }, { cookie: first.cookie });
    expect(signedIn.status).toBe(302);
    expect(await sessionsOf(first.userId)).toEqual({ n: 0 });
    expect((await get("/mysite", { cookie: first.cookie })).headers.get("Location")).toBe("/login?redirectTo=%2Fmysite");
    const email = newEmail();
    const created = await post(
      "/signup",
      {
        intent: "create",
        email,
        password: PASSWORD,
        url: uniqueHost("third"),
        description: "A site about small-space gardening and balcony vegetables.",
      },
      { cookie: sessionCookieOf(signedIn)! },
    );
    expect(created.status).toBe(302);
    expect(await sessionsOf(second.userId)).toEqual({ n: 1 });
  });

  it("answers a wrong password and an unknown email the same way", async () => {
    const { email } = await signUp();
    const wrong = await post("/login", { email, password: "Wrong-password1" });
    const unknown = await post("/login", { email: newEmail("nobody"), password: PASSWORD });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(await wrong.text()).toContain(messages.incorrectCredentials);
    expect(await unknown.text()).toContain(messages.incorrectCredentials);
    expect(sessionCookieOf(wrong)).toBeNull();
  });

  it("refuses the 11th wrong password from one address, while the owner still signs in from another", async () => {
    const { email } = await signUp();
    const at = windowStart(15 * 60_000);
    const attacker = newAddress();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const response = await post("/login", { email, password: `Wrong-${attempt}` }, { address: attacker, at });
      expect(response.status).toBe(400);
    }
    const eleventh = await post("/login", { email, password: PASSWORD }, { address: attacker, at });
    expect(eleventh.status).toBe(429);
    expect(await eleventh.text()).toContain(messages.tooManyAttempts);
    const counter = await env.DB.prepare("SELECT count FROM rate_limits WHERE key = ?")
      .bind(`login:account-ip:${email}|${attacker}`)
      .first<{ count: number }>();
    expect(counter!.count).toBe(11);
    const owner = await post("/login", { email, password: PASSWORD });
    expect(owner.status).toBe(302);
  });

  it("backs off over a quarter hour and a day per account and address, under an account-wide ceiling", async () => {
    const { email } = await signUp();
    const start = Date.UTC(2030, 0, 1, 0, 0, 0);
    const at = (ms: number) => ({ ...createContext(env as never, createExecutionContext()), now: () => start + ms });
    const attempt = async (ms: number, password = "Wrong-password1", address = "203.0.113.7") =>
      (await logIn(at(ms), { email, password }, address)).ok;
    for (let i = 0; i < 10; i += 1) expect(await attempt(i * 1000)).toBe(false);
    // Locked for the rest of the quarter hour, even with the right password; not just for a minute.
    const minute = 60_000;
    expect(await logIn(at(2 * minute), { email, password: PASSWORD }, "203.0.113.7")).toMatchObject({ ok: false, status: 429 });
    // The next quarters allow 10 more each, until 30 in the day.
    for (let i = 0; i < 10; i += 1) expect(await attempt(15 * minute + i)).toBe(false);
    for (let i = 0; i < 10; i += 1) expect(await attempt(30 * minute + i)).toBe(false);
    expect(await logIn(at(50 * minute), { email, password: PASSWORD }, "203.0.113.7")).toMatchObject({ ok: false, status: 429 });
    // The daily job's clean-up keeps the day's counter.
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: start + 4 * 60 * minute }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(await logIn(at(23 * 60 * minute), { email, password: PASSWORD }, "203.0.113.7")).toMatchObject({ ok: false, status: 429 });
    expect(await logIn(at(24 * 60 * minute), { email, password: PASSWORD }, "203.0.113.7")).toMatchObject({ ok: true });
    // All addresses together: 100 an hour for the account.
    const hour = 60 * minute;
    await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, 100)")
      .bind(`login:account:${email}`, start + 30 * hour)
      .run();
    expect(await logIn(at(30 * hour + 5), { email, password: PASSWORD }, "198.51.100.99")).toMatchObject({ ok: false, status: 429 });
  });

  it("lets the owner in from a browser they signed in from before while guesses from everywhere hold the ceiling", async () => {
    const deviceOf = (response: Response) =>
      response.headers
        .getSetCookie()
        .map((cookie) => cookie.split(";")[0]!)
        .find((pair) => pair.startsWith("__Host-device="));
    const hour = 60 * 60_000;
    const hourStart = windowStart(hour);
    const at = hourStart + 1000;
    const owner = await signUp();
    const other = await signUp();
    // Signing up remembers the browser, and so does signing in (here from a second browser of the owner's, which had
    // no cookie yet); a browser keeps its token for every account it signs in to.
    const laptop = deviceOf(await post("/login", { email: owner.email, password: PASSWORD }, { at }))!;
    expect(laptop).toMatch(/^__Host-device=[a-z2-7]{32}$/);
    const othersBrowser = deviceOf(await post("/login", { email: other.email, password: PASSWORD }, { at }))!;
    const both = deviceOf(await post("/login", { email: other.email, password: PASSWORD }, { at, cookie: laptop }));
    expect(both).toBe(laptop);

    await env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, 100)")
      .bind(`login:account:${owner.email}`, hourStart)
      .run();
    const signIn = (password: string, cookie?: string) => post("/login", { email: owner.email, password }, { at, cookie });
    // A browser that never signed in to this account, or another account's, is held by the ceiling.
    const stranger = await signIn(PASSWORD);
    expect(stranger.status).toBe(429);
    expect(await read(stranger)).toContain(escaped(messages.tooManyAttempts));
    expect((await signIn(PASSWORD, othersBrowser)).status).toBe(429);
    // The owner's laptop gets in.
    const home = await signIn(PASSWORD, laptop);
    expect(home.status).toBe(302);
    expect(sessionCookieOf(home)).not.toBeNull();

    // From the known browser, 10 wrong passwords an hour while the ceiling holds, then it is refused too.
    for (let i = 0; i < 10; i += 1) expect((await signIn("Wrong-password1", laptop)).status).toBe(400);
    expect((await signIn(PASSWORD, laptop)).status).toBe(429);

    // A year after its last sign-in the browser is forgotten, and the daily job deletes it.
    await env.DB.prepare("UPDATE known_devices SET expires_at = ? WHERE user_id = ?")
      .bind(at - 1, other.userId)
      .run();
    await env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, 100)")
      .bind(`login:account:${other.email}`, hourStart)
      .run();
    expect((await post("/login", { email: other.email, password: PASSWORD }, { at, cookie: othersBrowser })).status).toBe(429);
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: Date.now() }), env as never, ctx);
    await waitOnExecutionContext(ctx);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM known_devices WHERE user_id = ?").bind(other.userId).first()).toEqual({ n: 0 });
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM known_devices WHERE user_id = ?").bind(owner.userId).first()).toEqual({ n: 2 });
  });

  it("signs in and signs up even when the browser cannot be remembered this time", async () => {
    const { email } = await signUp();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await env.DB.prepare("ALTER TABLE known_devices RENAME TO known_devices_away").run();
    try {
      const signedIn = await post("/login", { email, password: PASSWORD });
      expect(signedIn.status).toBe(302);
      expect(sessionCookieOf(signedIn)).not.toBeNull();
      expect(signedIn.headers.getSetCookie().some((cookie) => cookie.startsWith("__Host-device="))).toBe(false);
      expect((await signUp()).cookie).toBeTruthy();
    } finally {
      await env.DB.prepare("ALTER TABLE known_devices_away RENAME TO known_devices").run();
      vi.restoreAllMocks();
    }
  });

  it("limits sign-in attempts per address", async () => {
    const address = newAddress();
    const at = windowStart();
    for (let attempt = 1; attempt <= 50; attempt += 1) {
      await post("/login", { email: newEmail("spray"), password: "x" }, { address, at });
    }
    const refused = await post("/login", { email: newEmail("spray"), password: "x" }, { address, at });
    expect(refused.status).toBe(429);
  });

  it("logout ends the session on the server", async () => {
    const { cookie } = await signUp();
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions").first<{ n: number }>();
    const response = await post("/logout", {}, { cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/");
    expect(response.headers.getSetCookie().join()).toMatch(/session=; .*Max-Age=0/);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions").first<{ n: number }>();
    expect(after!.n).toBe(before!.n - 1);
    const market = await get("/market", { cookie });
    expect(market.status).toBe(302);
    expect(market.headers.get("Location")).toBe("/login");
  });

  it("logout late in a session's idle month sends only the blank cookie (no slid one after it, which the browser would keep)", async () => {
    const { cookie, userId } = await signUp();
    const response = await post("/logout", {}, { cookie, at: Date.now() + 16 * 24 * 3600_000 });
    expect(response.status).toBe(302);
    const cookies = response.headers.getSetCookie().filter((line) => line.startsWith(`${SESSION_COOKIE}=`));
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`));
    expect(await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({ n: 0 });
  });
});

describe("who goes where", () => {
  it("sends signed-out visitors of protected pages to /login, remembering the page", async () => {
    expect((await get("/market")).headers.get("Location")).toBe("/login");
    expect((await get("/sites/new")).headers.get("Location")).toBe("/login?redirectTo=%2Fsites%2Fnew");
  });

  it("sends signed-in users from /login and /signup to /market", async () => {
    const { cookie } = await signUp();
    for (const path of ["/login", "/signup"]) {
      const response = await get(path, { cookie });
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/market");
    }
  });

  it("treats an unknown session as signed out and clears the cookie", async () => {
    const response = await get("/market", { cookie: "__Host-session=abcdefghijklmnopqrstuvwxyz234567" });
    expect(response.headers.get("Location")).toBe("/login");
    expect(response.headers.getSetCookie().join()).toContain("Max-Age=0");
  });
});

describe("session lifetime", () => {
  const DAY = 24 * 3600_000;
  const sessionOf = (userId: string) =>
    env.DB.prepare("SELECT expires_at, absolute_expires_at FROM sessions WHERE user_id = ?")
      .bind(userId)
      .first<{ expires_at: number; absolute_expires_at: number }>();

  it("does not slide a session replaced while the request read it (its old cookie would come back last)", async () => {
    const user = await signUp();
    const id = await sessionIdOf(user.cookie.slice(user.cookie.indexOf("=") + 1));
    const db = database(env.DB);
    const now = Date.now();
    // Due to slide: its idle end is two days away.
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE id = ?")
      .bind(now + 2 * DAY, id)
      .run();
    const [row] = await sessionQuery(db, id, now).all();
    // Another tab's password change replaces it between the read and the slide.
    const graceEnd = now + REPLACED_SESSION_GRACE_MS;
    await env.DB.prepare("UPDATE sessions SET expires_at = ?, absolute_expires_at = ? WHERE id = ?").bind(graceEnd, graceEnd, id).run();
    const valid = await validateSessionRow(db, row, now);
    expect(valid?.refreshedExpiresAt).toBeNull();
    expect(await sessionOf(user.userId)).toEqual({ expires_at: graceEnd, absolute_expires_at: graceEnd });
    // A session not replaced slides as before.
    const other = await signUp();
    const otherId = await sessionIdOf(other.cookie.slice(other.cookie.indexOf("=") + 1));
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE id = ?")
      .bind(now + 2 * DAY, otherId)
      .run();
    const [otherRow] = await sessionQuery(db, otherId, now).all();
    expect((await validateSessionRow(db, otherRow, now))?.refreshedExpiresAt).toBeGreaterThan(now + 29 * DAY);
  });

  it("ends a session idle past its 30 days, deleting it and clearing the cookie", async () => {
    const user = await signUp();
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1_000, user.userId)
      .run();
    const response = await get("/market", { cookie: user.cookie });
    expect(response.headers.get("Location")).toBe("/login");
    expect(response.headers.getSetCookie().join()).toContain("Max-Age=0");
    expect(await sessionOf(user.userId)).toBeNull();
  });

  it("ends a session at its 90-day absolute limit, however active", async () => {
    const user = await signUp();
    await env.DB.prepare("UPDATE sessions SET expires_at = ?, absolute_expires_at = ? WHERE user_id = ?")
      .bind(Date.now() + 20 * DAY, Date.now() - 1_000, user.userId)
      .run();
    expect((await get("/market", { cookie: user.cookie })).headers.get("Location")).toBe("/login");
    expect(await sessionOf(user.userId)).toBeNull();
  });

  it("slides the idle expiry forward when it is half used, never past the absolute limit", async () => {
    const user = await signUp();
    const start = Date.now();
    await env.DB.prepare("UPDATE sessions SET expires_at = ?, absolute_expires_at = ? WHERE user_id = ?")
      .bind(start + 10 * DAY, start + 60 * DAY, user.userId)
      .run();
    const refreshed = await get("/market", { cookie: user.cookie });
    expect(refreshed.status).toBe(200);
    const cookie = refreshed.headers.getSetCookie().find((c) => c.startsWith("__Host-session="));
    expect(cookie).toMatch(/Expires=/);
    const after = (await sessionOf(user.userId))!;
    expect(after.expires_at).toBeGreaterThanOrEqual(start + 30 * DAY);
    await env.DB.prepare("UPDATE sessions SET expires_at = ?, absolute_expires_at = ? WHERE user_id = ?")
      .bind(start + 10 * DAY, start + 12 * DAY, user.userId)
      .run();
    await get("/market", { cookie: user.cookie });
    expect((await sessionOf(user.userId))!.expires_at).toBe(start + 12 * DAY);
    // A fresh session is not written again on every request.
    await env.DB.prepare("UPDATE sessions SET expires_at = ?, absolute_expires_at = ? WHERE user_id = ?")
      .bind(start + 29 * DAY, start + 80 * DAY, user.userId)
      .run();
    const quiet = await get("/market", { cookie: user.cookie });
    expect(quiet.headers.getSetCookie().some((c) => c.startsWith("__Host-session="))).toBe(false);
    expect((await sessionOf(user.userId))!.expires_at).toBe(start + 29 * DAY);
  });
});

describe("password reset", () => {
  it("emails a single-use link, sets the new password and ends every session", async () => {
    const { email, cookie, userId } = await signUp();
    // Signing up made that browser known to the account (decision 50); a reset, which is how an owner takes an
    // account back from whoever signed up with their address, forgets it like the sessions. The browser that reset
    // the password is known from then on.
    const knownBrowsers = async () =>
      (await env.DB.prepare("SELECT id FROM known_devices WHERE user_id = ?").bind(userId).all<{ id: string }>()).results.map((row) => row.id);
    const signedUpIn = await knownBrowsers();
    expect(signedUpIn).toHaveLength(1);
    const request = await post("/reset-password", { intent: "request", email });
    expect(request.status).toBe(200);
    const page = await request.text();
    expect(page).toContain(messages.resetLinkSent);
    expect(page).toContain(messages.checkSpam);

    const mail = await env.DB.prepare("SELECT to_address, text_body FROM email_outbox WHERE to_address = ? AND kind = 'password-reset'")
      .bind(email)
      .first<{ text_body: string }>();
    const link = mail!.text_body.match(/https:\/\/market\.test\/reset-password\?token=([a-z2-7]+)/);
    expect(link).not.toBeNull();
    const token = link![1]!;
    const stored = await env.DB.prepare("SELECT id FROM password_reset_tokens").all<{ id: string }>();
    expect(stored.results.map((row) => row.id)).not.toContain(token);

    const form = await get(`/reset-password?token=${token}`);
    expect(await form.text()).toContain("Set new password");

    const weak = await post("/reset-password", { intent: "reset", token, password: "weak" });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain(messages.passwordMinLength);
    const common = await post("/reset-password", { intent: "reset", token, password: "Qwerty123" });
    expect(common.status).toBe(400);
    expect(await read(common)).toContain(messages.passwordTooCommon);

    // The database failing as the password is set: said on the form, and the link still works afterwards.
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failed = await postWhileFailing("/reset-password", { intent: "reset", token, password: "Newpassword9" }, "password_reset_tokens");
    expect(failed.status).toBe(503);
    expect(await failed.text()).toContain(messages.resetSaveFailed);

    const done = await post("/reset-password", { intent: "reset", token, password: "Newpassword9" });
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/login?notice=password-changed");
    expect((await get("/market", { cookie })).headers.get("Location")).toBe("/login");
    const afterReset = await knownBrowsers();
    expect(afterReset).toHaveLength(1);
    expect(afterReset).not.toEqual(signedUpIn);

    const again = await post("/reset-password", { intent: "reset", token, password: "Otherpassword9" });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain(escaped(messages.resetLinkInvalid));

    expect((await post("/login", { email, password: PASSWORD })).status).toBe(400);
    expect((await post("/login", { email, password: "Newpassword9" })).status).toBe(302);
  });

  it("a sign-in that checked the old password while it was reset gets no session", async () => {
    const { email, userId } = await signUp();
    await env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(userId).run();
    const context = createContext(env as never, createExecutionContext());
    // The reset lands between the sign-in's password check and its session's write (the only write it runs).
    const db = new Proxy(context.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "run") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          await env.DB.prepare("UPDATE password_credentials SET password_hash = 'reset meanwhile' WHERE user_id = ?").bind(userId).run();
          return value.apply(target, args);
        };
      },
    });
    expect(await logIn({ ...context, db }, { email, password: PASSWORD }, newAddress())).toMatchObject({
      ok: false,
      message: messages.incorrectCredentials,
    });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({ n: 0 });
  });

  async function resetLinkOf(email: string) {
    expect((await post("/reset-password", { intent: "request", email })).status).toBe(200);
    const mail = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND kind = 'password-reset' ORDER BY created_at DESC")
      .bind(email)
      .first<{ text_body: string }>();
    return mail!.text_body.match(/token=([a-z2-7]+)/)![1]!;
  }

  it("the same form sent twice (a double click without JavaScript), one after the other or at once, is done both times", async () => {
    const { email } = await signUp();
    const token = await resetLinkOf(email);
    const send = () => post("/reset-password", { intent: "reset", token, password: "Newpassword9" });
    for (const answer of [...(await Promise.all([send(), send()])), await send()]) {
      expect(answer.status).toBe(302);
      expect(answer.headers.get("Location")).toBe("/login?notice=password-changed");
    }
    const changed = await env.DB.prepare("SELECT count(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'password-changed'")
      .bind(email)
      .first();
    expect(changed).toEqual({ n: 1 });
    expect((await post("/login", { email, password: "Newpassword9" })).status).toBe(302);
  });

  it("keeps the browser that reset the password known: guesses from everywhere holding the account's ceiling do not keep the owner out", async () => {
    const hourStart = windowStart(60 * 60_000);
    const at = hourStart + 1000;
    const { email } = await signUp();
    const token = await resetLinkOf(email);
    await env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, 100)")
      .bind(`login:account:${email}`, hourStart)
      .run();
    const reset = await post("/reset-password", { intent: "reset", token, password: "Newpassword9" }, { at });
    expect(reset.headers.get("Location")).toBe("/login?notice=password-changed");
    const device = reset.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0]!)
      .find((pair) => pair.startsWith("__Host-device="));
    expect(device).toMatch(/^__Host-device=[a-z2-7]{32}$/);
    expect((await post("/login", { email, password: "Newpassword9" }, { at })).status).toBe(429);
    const signedIn = await post("/login", { email, password: "Newpassword9" }, { at, cookie: device });
    expect(signedIn.status).toBe(302);
    expect(sessionCookieOf(signedIn)).not.toBeNull();
  });

  it("the same form sent twice in the same millisecond writes once: one email, the password set", async () => {
    const { email } = await signUp();
    const token = await resetLinkOf(email);
    const at = Date.now();
    const context = () => ({ ...createContext(env as never, createExecutionContext()), now: () => at });
    const answers = await Promise.all([resetPassword(context(), token, "Newpassword9"), resetPassword(context(), token, "Newpassword9")]);
    expect(answers[0]).toBeTruthy();
    expect(answers[1]).toBe(answers[0]);
    const changed = await env.DB.prepare("SELECT count(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'password-changed'")
      .bind(email)
      .first();
    expect(changed).toEqual({ n: 1 });
    expect((await post("/login", { email, password: "Newpassword9" })).status).toBe(302);
  });

  it("a reset whose write fails leaves the link usable (it is spent only with the password written)", async () => {
    const { email } = await signUp();
    const token = await resetLinkOf(email);
    const context = createContext(env as never, createExecutionContext());
    const failing = Object.assign(Object.create(context.db), {
      batch: async () => {
        throw new Error("D1 is unavailable");
      },
    });
    await expect(resetPassword({ ...context, db: failing }, token, "Newpassword9")).rejects.toThrow("D1 is unavailable");
    expect(await isResetTokenUsable(context, token)).toBe(true);
    expect((await post("/login", { email, password: PASSWORD })).status).toBe(302);
    expect((await post("/reset-password", { intent: "reset", token, password: "Newpassword9" })).status).toBe(302);
  });

  it("refuses a link past its hour", async () => {
    const { email, userId } = await signUp();
    await post("/reset-password", { intent: "request", email });
    const mail = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND kind = 'password-reset'")
      .bind(email)
      .first<{ text_body: string }>();
    const token = mail!.text_body.match(/token=([a-z2-7]+)/)![1]!;
    await env.DB.prepare("UPDATE password_reset_tokens SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1_000, userId)
      .run();
    expect(await read(await get(`/reset-password?token=${token}`))).toContain(escaped(messages.resetLinkInvalid));
    const late = await post("/reset-password", { intent: "reset", token, password: "Newpassword9" });
    expect(late.status).toBe(400);
    expect(await late.text()).toContain(escaped(messages.resetLinkInvalid));
    expect((await post("/login", { email, password: PASSWORD })).status).toBe(302);
  });

  it("answers the same for an unknown email and sends nothing", async () => {
    const email = newEmail("ghost");
    const response = await post("/reset-password", { intent: "request", email });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(messages.resetLinkSent);
    const mail = await env.DB.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ?").bind(email).first<{ n: number }>();
    expect(mail!.n).toBe(0);
  });

  it("still sends a link to a browser the account knows when requests from elsewhere used up the account's five", async () => {
    const { email } = await signUp();
    const at = windowStart(60 * 60_000) + 1000;
    const signedIn = await post("/login", { email, password: PASSWORD }, { at });
    const laptop = signedIn.headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0]!)
      .find((pair) => pair.startsWith("__Host-device="))!;
    const ask = (cookie?: string) => post("/reset-password", { intent: "request", email }, { at, cookie });
    for (let i = 0; i < 5; i += 1) expect((await ask()).status).toBe(200);
    const elsewhere = await ask();
    expect(elsewhere.status).toBe(429);
    expect(await read(elsewhere)).toContain(escaped(messages.tooManyAttempts));
    // The owner's browser has five of its own.
    for (let i = 0; i < 5; i += 1) expect(await read(await ask(laptop))).toContain(messages.resetLinkSent);
    expect((await ask(laptop)).status).toBe(429);
    const mails = await env.DB.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'password-reset'")
      .bind(email)
      .first<{ n: number }>();
    expect(mails!.n).toBe(10);
  });

  it("invalidates an older link when a new one is asked for", async () => {
    const { email, userId } = await signUp();
    await post("/reset-password", { intent: "request", email });
    await post("/reset-password", { intent: "request", email });
    const tokens = await env.DB.prepare("SELECT COUNT(*) AS n FROM password_reset_tokens WHERE user_id = ?").bind(userId).first<{ n: number }>();
    expect(tokens!.n).toBe(1);
  });
});

describe("security baseline", () => {
  it("refuses cross-site form posts", async () => {
    const { email } = await signUp();
    const crossSite: Record<string, string>[] = [{ "Sec-Fetch-Site": "cross-site" }, { Origin: "https://evil.test", "Sec-Fetch-Site": "" }];
    for (const headers of crossSite) {
      const response = await post("/login", { email, password: PASSWORD }, { headers });
      expect(response.status).toBe(403);
      expect(await response.text()).toBe(messages.crossSiteRefused);
      expect(sessionCookieOf(response)).toBeNull();
    }
  });

  it("opens the sign-up's privacy policy in a tab of its own, so what was typed stays", async () => {
    const page = await read(await get("/signup"));
    expect(page).toContain('<a href="/privacy" target="_blank" rel="noopener">privacy policy</a>');
  });

  it("keeps signed-in pages and their data out of every cache, and lets public pages be", async () => {
    const { cookie } = await signUp();
    for (const path of ["/market", "/market.data", "/mysite", "/mysite/settings", "/search?term=a", "/sites/new", "/add-site?source=market"]) {
      const response = await get(path, { cookie });
      expect(response.headers.get("Cache-Control"), path).toBe("private, no-store");
      // And out of search indexes, pages robots.txt does not name among them.
      expect(response.headers.get("X-Robots-Tag"), path).toBe("noindex");
    }
    const failedLogin = await post("/login", { email: "nobody@example.com", password: "Wrong-password1" });
    expect(failedLogin.headers.get("Cache-Control")).not.toBe("private, no-store");
    expect((await get("/")).headers.get("Cache-Control")).not.toBe("private, no-store");
    expect((await get("/")).headers.get("X-Robots-Tag")).toBeNull();
  });

  it("runs as production unless ENVIRONMENT is development: __Host- cookie, no dev pages", async () => {
    const { cookie } = await signUp();
    expect(cookie).toMatch(/^__Host-session=/);
    expect((await SELF.fetch("http://localhost:8787/dev/mailbox")).status).toBe(404);
    const dev = await devFetch("/signup", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        intent: "create",
        email: newEmail("dev"),
        password: PASSWORD,
        url: uniqueHost("dev"),
        description: "A development sign-up with a long description.",
      }),
    });
    expect(dev.headers.getSetCookie().find((cookie) => cookie.startsWith("session="))).toMatch(/^session=[a-z2-7]{32};/);
  });

  it("sends the security headers with every page", async () => {
    const response = await get("/");
    expect(response.headers.get("Content-Security-Policy")).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(response.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("Strict-Transport-Security")).toContain("max-age=");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Cross-Origin-Opener-Policy")).toBe("same-origin");
    expect(response.headers.get("Cross-Origin-Resource-Policy")).toBe("same-origin");
    // Live connections go to this origin only, not to any ws:/wss: host.
    expect(response.headers.get("Content-Security-Policy")).toContain("connect-src 'self';");
    // The product's pages write no inline style: injected markup cannot restyle them.
    expect(response.headers.get("Content-Security-Policy")).toContain("style-src 'self';");
    const nonce = response.headers.get("Content-Security-Policy")!.match(/nonce-([^']+)/)![1];
    expect(await response.text()).toContain(`nonce="${nonce}"`);
  });

  it("answers bad input with a message and a 4xx, never a 500", async () => {
    const big = "x".repeat(10 * 1024);
    const cases: [string, Record<string, string>][] = [
      ["/login", {}],
      ["/login", { email: big, password: big }],
      ["/login", { email: "😀@例え.jp", password: "пароль" }],
      ["/signup", { intent: "create" }],
      ["/signup", { intent: "create", email: big, password: big, url: big, description: big }],
      ["/signup", { intent: "continue", email: "δοκιμή", password: "Ü1aaaaaa" }],
      ["/reset-password", { intent: "request", email: big }],
      ["/reset-password", { intent: "reset", token: big, password: PASSWORD }],
      ["/add-site?source=hero", { url: big, email: "x", category: "nope", description: "" }],
    ];
    for (const [path, fields] of cases) {
      const response = await post(path, fields);
      expect(response.status, `${path} ${JSON.stringify(fields).slice(0, 80)}`).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    const json = await post("/login", new URLSearchParams(), { headers: { "Content-Type": "application/json" } });
    expect(json.status).toBe(400);
    const files = new FormData();
    files.append("email", new File(["x"], "x.txt"));
    files.append("password", new File(["x"], "x.txt"));
    const withFiles = await post("/login", files);
    expect(withFiles.status).toBe(400);
    expect(await withFiles.text()).toContain(messages.incorrectCredentials);
  });
});

describe("account security for signed-in owners", () => {
  async function sessionIdOfCookie(cookie: string) {
    return sessionIdOf(cookie.slice(cookie.indexOf("=") + 1));
  }
  /** When the session of this cookie ends at the latest (idle or absolute). */
  async function sessionEndOf(cookie: string) {
    const row = await env.DB.prepare("SELECT min(expires_at, absolute_expires_at) AS ends FROM sessions WHERE id = ?")
      .bind(await sessionIdOfCookie(cookie))
      .first<{ ends: number }>();
    return row!.ends;
  }
  async function secondSession(email: string) {
    const response = await post("/login", { email, password: PASSWORD });
    return sessionCookieOf(response)!;
  }

  it("changes the password with the current one, ends every other session and says so by email", async () => {
    const user = await signUp();
    await post("/reset-password", { intent: "request", email: user.email });
    const resetMail = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND kind = 'password-reset'")
      .bind(user.email)
      .first<{ text_body: string }>();
    const resetToken = resetMail!.text_body.match(/token=([a-z2-7]+)/)![1]!;
    const other = await secondSession(user.email);
    const wrong = await post(
      "/mysite/settings",
      { intent: "change-password", currentPassword: "Not-my-password9", newPassword: "Fresh-Secret-77" },
      { cookie: user.cookie },
    );
    expect(wrong.status).toBe(400);
    const page = await read(wrong);
    expect(page).toContain(messages.currentPasswordWrong);
    expect(page).not.toContain("Fresh-Secret-77");
    const common = await post(
      "/mysite/settings",
      { intent: "change-password", currentPassword: PASSWORD, newPassword: "Password1" },
      { cookie: user.cookie },
    );
    expect(await read(common)).toContain(messages.passwordTooCommon);

    const done = await post(
      "/mysite/settings",
      { intent: "change-password", currentPassword: PASSWORD, newPassword: "Fresh-Secret-77" },
      { cookie: user.cookie },
    );
    expect(done.headers.get("Location")).toBe("/mysite/settings?notice=password-changed-here");
    // Sent again once the first had landed (a second click without JavaScript, whose answer the browser shows): done
    // too, with a session of its own, not "That is not your current password".
    const again = await post(
      "/mysite/settings",
      { intent: "change-password", currentPassword: PASSWORD, newPassword: "Fresh-Secret-77" },
      { cookie: user.cookie },
    );
    expect(again.headers.get("Location")).toBe("/mysite/settings?notice=password-changed-here");
    expect((await get("/mysite", { cookie: sessionCookieOf(again)! })).status).toBe(200);
    // This browser gets a new session; the old cookie (and any copy of it taken from this browser) ends within a minute.
    const renewed = sessionCookieOf(done)!;
    expect(renewed).not.toBe(user.cookie);
    expect((await get("/mysite", { cookie: renewed })).status).toBe(200);
    expect(await sessionEndOf(user.cookie)).toBeLessThanOrEqual(Date.now() + REPLACED_SESSION_GRACE_MS);
    expect(await sessionEndOf(renewed)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect((await get("/mysite", { cookie: other })).headers.get("Location")).toBe("/login?redirectTo=%2Fmysite");
    expect((await post("/login", { email: user.email, password: PASSWORD })).status).toBe(400);
    expect((await post("/login", { email: user.email, password: "Fresh-Secret-77" })).status).toBe(302);
    // A reset link asked for before the change cannot undo it.
    expect((await post("/reset-password", { intent: "reset", token: resetToken, password: "Sneaky-Reset-55" })).status).toBe(400);
    const mail = await env.DB.prepare("SELECT subject FROM email_outbox WHERE to_address = ? AND kind = 'password-changed'").bind(user.email).first();
    expect(mail).toEqual({ subject: "Your password was changed" });
  });

  it("a change whose password or session changed while it was hashed is not made over them, and says what happened", async () => {
    /** Changes the user's password, with `meanwhile` run between the check of the current password and the batch. */
    async function changeWhile(user: { userId: string }, meanwhile: D1PreparedStatement[]) {
      const session = await env.DB.prepare("SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at LIMIT 1")
        .bind(user.userId)
        .first<{ id: string }>();
      const db = database(env.DB);
      const racing: typeof db = Object.assign(Object.create(db), {
        batch: async (statements: Parameters<typeof db.batch>[0]) => {
          if (meanwhile.length > 0) await env.DB.batch(meanwhile.splice(0));
          return db.batch(statements);
        },
      });
      const context = { ...createContext(env as never, createExecutionContext()), db: racing };
      const auth = { user: { id: user.userId }, session: { id: session!.id, absoluteExpiresAt: Date.now() + 86_400_000 } } as unknown as CurrentAuth;
      return changePassword(context, auth, PASSWORD, "Fresh-Secret-77");
    }
    const count = async (sql: string, user: { userId: string }) => (await env.DB.prepare(sql).bind(user.userId).first<{ n: number }>())!.n;
    const mails = (user: { email: string }) =>
      env.DB.prepare("SELECT COUNT(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'password-changed'").bind(user.email).first("n");

    // A reset (or a change from another session) set another password: nothing of this change is made, the account's
    // other session and its reset link stay, and no email says the password was changed.
    const reset = await signUp();
    await secondSession(reset.email);
    await post("/reset-password", { intent: "request", email: reset.email });
    const setElsewhere = env.DB.prepare("UPDATE password_credentials SET password_hash = 'set-elsewhere' WHERE user_id = ?").bind(reset.userId);
    expect(await changeWhile(reset, [setElsewhere])).toEqual({
      ok: false,
      status: 409,
      field: "currentPassword",
      message: messages.currentPasswordWrong,
    });
    expect(await env.DB.prepare("SELECT password_hash AS hash FROM password_credentials WHERE user_id = ?").bind(reset.userId).first()).toEqual({
      hash: "set-elsewhere",
    });
    expect(await count("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?", reset)).toBe(2);
    expect(await count("SELECT COUNT(*) AS n FROM password_reset_tokens WHERE user_id = ?", reset)).toBe(1);
    expect(await mails(reset)).toBe(0);

    // This session ended meanwhile (signed out elsewhere): nothing is changed, and the user is asked to sign in again.
    const ended = await signUp();
    const endSessions = env.DB.prepare("DELETE FROM sessions WHERE user_id = ?").bind(ended.userId);
    expect(await changeWhile(ended, [endSessions])).toEqual({ ok: false, signedOut: true });
    expect((await post("/login", { email: ended.email, password: PASSWORD })).status).toBe(302);
    expect(await mails(ended)).toBe(0);

    // The same form sent twice: the first changed the password to this new one, so the second is done too.
    const twice = await signUp();
    const first = env.DB.prepare("UPDATE password_credentials SET password_hash = ? WHERE user_id = ?").bind(
      await hashPassword("Fresh-Secret-77"),
      twice.userId,
    );
    // This answer carries a working session of its own (the browser may have dropped the first one's), and the
    // session it came with ends within the minute.
    const second = await changeWhile(twice, [first]);
    expect(second).toMatchObject({ ok: true, session: { token: expect.any(String) as string } });
    const renewed = `${SESSION_COOKIE}=${(second as { session: { token: string } }).session.token}`;
    expect((await get("/mysite/settings", { cookie: renewed })).status).toBe(200);
    expect(await sessionEndOf(renewed)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    expect(await sessionEndOf(twice.cookie)).toBeLessThanOrEqual(Date.now() + REPLACED_SESSION_GRACE_MS);
  });

  it("signs out everywhere else, keeping this browser signed in with a new session", async () => {
    const user = await signUp();
    const others = [await secondSession(user.email), await secondSession(user.email)];
    // This session's idle end is near, so the request slides it (a cookie of the old token): the new one still wins.
    await env.DB.prepare("UPDATE sessions SET expires_at = ? WHERE id = ?")
      .bind(Date.now() + 86_400_000, await sessionIdOfCookie(user.cookie))
      .run();
    const response = await post("/mysite/settings", { intent: "sign-out-others" }, { cookie: user.cookie });
    expect(response.headers.get("Location")).toBe("/mysite/settings?notice=other-sessions-ended");
    const sessionCookies = response.headers.getSetCookie().filter((cookie) => cookie.startsWith(`${user.cookie.split("=")[0]}=`));
    expect(sessionCookies.length).toBeGreaterThan(1);
    const renewed = sessionCookies.at(-1)!.split(";")[0]!;
    expect(renewed).not.toBe(user.cookie);
    expect((await get("/mysite/settings?notice=other-sessions-ended", { cookie: renewed })).status).toBe(200);
    for (const cookie of others) expect((await get("/market", { cookie })).status).toBe(302);
    // A copy of this browser's old cookie works for a minute at most (a form of the old page sent twice still lands).
    expect(await sessionEndOf(user.cookie)).toBeLessThanOrEqual(Date.now() + REPLACED_SESSION_GRACE_MS);
    const left = await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").bind(user.userId).first();
    expect(left).toEqual({ n: 2 });

    // Pressed twice (or tried by a copy of the old cookie in its last minute): nothing more is ended or made, so the
    // first press's session stays, and the old cookie gets none.
    const again = await post("/mysite/settings", { intent: "sign-out-others" }, { cookie: user.cookie });
    expect(again.headers.get("Location")).toBe("/mysite/settings?notice=other-sessions-ended");
    expect(sessionCookieOf(again)).toBeNull();
    expect((await get("/mysite/settings", { cookie: renewed })).status).toBe(200);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").bind(user.userId).first()).toEqual({ n: 2 });
  });
});

describe("email confirmation", () => {
  async function confirmationLinkOf(email: string) {
    const mail = await env.DB.prepare(
      "SELECT text_body FROM email_outbox WHERE to_address = ? AND kind = 'email-confirmation' ORDER BY created_at DESC LIMIT 1",
    )
      .bind(email)
      .first<{ text_body: string }>();
    return mail!.text_body.match(/https:\/\/market\.test\/confirm-email\?token=([a-z2-7]+)/)![1]!;
  }

  it("sends a single-use link at sign-up; the page confirms with a button; the account works meanwhile", async () => {
    const user = await signUp();
    const token = await confirmationLinkOf(user.email);
    const stored = await env.DB.prepare("SELECT id FROM email_confirmation_tokens WHERE user_id = ?").bind(user.userId).first<{ id: string }>();
    expect(stored!.id).not.toBe(token);
    const dashboard = await read(await get("/mysite", { cookie: user.cookie }));
    expect(dashboard).toContain(`${messages.confirmEmailBanner} ${user.email}.`);

    // Opening the link (as a mail scanner would) confirms nothing; the button does, in a browser signed in to the account.
    const page = await read(await get(`/confirm-email?token=${token}`, { cookie: user.cookie }));
    expect(page).toContain("Confirm my email");
    expect(await env.DB.prepare("SELECT email_verified FROM users WHERE id = ?").bind(user.userId).first()).toEqual({ email_verified: 0 });
    const confirmed = await post("/confirm-email", { intent: "confirm", token }, { cookie: user.cookie });
    expect(confirmed.headers.get("Location")).toBe("/mysite?notice=email-confirmed");
    expect(await env.DB.prepare("SELECT email_verified FROM users WHERE id = ?").bind(user.userId).first()).toEqual({ email_verified: 1 });
    expect(await read(await get("/mysite", { cookie: user.cookie }))).not.toContain(messages.confirmEmailBanner);

    // Pressed again (a second click, another tab): done, as the first answer said, not "invalid or has expired".
    const again = await post("/confirm-email", { intent: "confirm", token }, { cookie: user.cookie });
    expect(again.headers.get("Location")).toBe("/mysite?notice=email-confirmed");
    // A link that is no good for an account still waiting to confirm is refused.
    const waiting = await signUp();
    const refused = await post("/confirm-email", { intent: "confirm", token }, { cookie: waiting.cookie });
    expect(refused.status).toBe(400);
    expect(await read(refused)).toContain(messages.confirmationLinkInvalid);
  });

  it("confirms only in a browser signed in to the account: the owner of an address a stranger signed up with cannot prove it for them", async () => {
    const stranger = await signUp();
    const token = await confirmationLinkOf(stranger.email);
    const verified = () => env.DB.prepare("SELECT email_verified FROM users WHERE id = ?").bind(stranger.userId).first();
    // The address's owner opens the link, signed out: it asks them to log in to that account first.
    const signedOut = await read(await get(`/confirm-email?token=${token}`));
    expect(signedOut).toContain("Log in to confirm");
    expect(signedOut).toContain(`href="/login?redirectTo=${encodeURIComponent(`/confirm-email?token=${token}`)}"`);
    expect(signedOut).not.toContain("Confirm my email");
    const posted = await post("/confirm-email", { intent: "confirm", token });
    expect(posted.status).toBe(302);
    expect(posted.headers.get("Location")).toBe(`/login?redirectTo=${encodeURIComponent(`/confirm-email?token=${token}`)}`);
    // Signed in to another account, the link is refused too.
    const someoneElse = await signUp();
    const otherAccount = await read(await get(`/confirm-email?token=${token}`, { cookie: someoneElse.cookie }));
    expect(otherAccount).toContain("This link confirms the email of another account.");
    // The page's own way out: log out, then log in to the link's account and come back to it.
    const logInThere = `/login?redirectTo=${encodeURIComponent(`/confirm-email?token=${token}`)}`;
    expect(otherAccount).toContain('action="/logout"');
    expect(otherAccount).toContain(`name="redirectTo" value="${logInThere.replaceAll("&", "&amp;")}"`);
    const elsewhere = await signUp();
    const loggedOut = await post("/logout", { redirectTo: logInThere }, { cookie: elsewhere.cookie });
    expect(loggedOut.headers.get("Location")).toBe(logInThere);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(elsewhere.userId).first()).toEqual({ n: 0 });
    // Another site's address is not followed; the landing page.
    expect((await post("/logout", { redirectTo: "https://elsewhere.example/" }, { cookie: (await signUp()).cookie })).headers.get("Location")).toBe(
      "/",
    );
    const refused = await post("/confirm-email", { intent: "confirm", token }, { cookie: someoneElse.cookie });
    expect(refused.status).toBe(400);
    expect(await verified()).toEqual({ email_verified: 0 });
    // The account's own browser confirms it.
    expect((await post("/confirm-email", { intent: "confirm", token }, { cookie: stranger.cookie })).headers.get("Location")).toBe(
      "/mysite?notice=email-confirmed",
    );
    expect(await verified()).toEqual({ email_verified: 1 });
  });

  it("refuses an expired link, and sends a new one on request, which replaces the old", async () => {
    const user = await signUp();
    const first = await confirmationLinkOf(user.email);
    const resent = await post("/confirm-email", { intent: "resend" }, { cookie: user.cookie });
    expect(resent.headers.get("Location")).toBe("/mysite?notice=confirmation-sent");
    const second = await confirmationLinkOf(user.email);
    expect(second).not.toBe(first);
    expect(await read(await get(`/confirm-email?token=${first}`))).toContain(messages.confirmationLinkInvalid);
    await env.DB.prepare("UPDATE email_confirmation_tokens SET expires_at = ? WHERE user_id = ?")
      .bind(Date.now() - 1, user.userId)
      .run();
    expect((await post("/confirm-email", { intent: "confirm", token: second }, { cookie: user.cookie })).status).toBe(400);
    expect(await env.DB.prepare("SELECT email_verified FROM users WHERE id = ?").bind(user.userId).first()).toEqual({ email_verified: 0 });
    // Signed out, the expired link's page leads to a log-in that comes back here, where a new one is sent.
    expect(await read(await get(`/confirm-email?token=${second}`))).toContain(`href="/login?redirectTo=${encodeURIComponent("/confirm-email")}"`);
  });
});
