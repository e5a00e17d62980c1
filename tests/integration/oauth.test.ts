import { createExecutionContext, env } from "cloudflare:test";
import worker from "~/worker";
import { afterEach, describe, expect, it, vi } from "vitest";
import { devFetch, envWithFailingTable, get, newEmail, PASSWORD, post, read, sessionCookieOf, signUp } from "./helpers";

/** Answers the providers' token and profile endpoints; anything else is a test failure. */
function mockProviders(profile: { google?: object; githubUser?: object; githubEmails?: object[]; delayMs?: number }, bodies: string[] = []) {
  const calls: string[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    calls.push(url);
    if (profile.delayMs) await new Promise((resolve) => setTimeout(resolve, profile.delayMs));
    if (input instanceof Request && input.method === "POST") bodies.push(await input.clone().text());
    const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });
    if (url === "https://oauth2.googleapis.com/token") return json({ access_token: "google-token", token_type: "Bearer", expires_in: 3600 });
    if (url === "https://openidconnect.googleapis.com/v1/userinfo") return json(profile.google);
    if (url === "https://github.com/login/oauth/access_token") return json({ access_token: "github-token", token_type: "bearer" });
    if (url === "https://api.github.com/user") return json(profile.githubUser);
    if (url === "https://api.github.com/user/emails") return json(profile.githubEmails);
    throw new Error(`unexpected fetch ${url}`);
  });
  return calls;
}

/** The button's post, from the login page. */
const start = (path: string) => post(path, {});

async function startAndReturn(provider: "google" | "github", code = "the-code") {
  const start = await post(`/auth/${provider}`, {});
  expect(start.status).toBe(302);
  const location = new URL(start.headers.get("Location")!);
  const state = location.searchParams.get("state")!;
  const stateCookie = start.headers.getSetCookie()[0]!.split(";")[0]!;
  return {
    location,
    state,
    stateCookie,
    callback: (query = `code=${code}&state=${state}`) => get(`/auth/${provider}/callback?${query}`, { cookie: stateCookie }),
  };
}

/**
 * The same Google sign-in, for a user with this verified address, finished in two tabs at once: both must land on the
 * market. The provider answers slowly, so both callbacks look the user up before either writes.
 */
async function bothLandOnTheMarket(email: string) {
  mockProviders({ google: { sub: `g-${crypto.randomUUID()}`, email, email_verified: true }, delayMs: 50 });
  const first = await startAndReturn("google");
  const second = await startAndReturn("google");
  const answers = await Promise.all([first.callback(), second.callback()]);
  expect(answers.map((answer) => [answer.status, answer.headers.get("Location")])).toEqual([
    [302, "/market"],
    [302, "/market"],
  ]);
}

afterEach(() => vi.restoreAllMocks());

/** Requests to the Worker with these variables changed (set to undefined: unset), as another deploy would have them. */
function askWith(vars: Record<string, string | undefined>) {
  const changed = { ...(env as unknown as Record<string, unknown>), ...vars };
  return (path: string) =>
    worker.fetch(new Request(`https://market.test${path}`, { redirect: "manual" }) as never, changed as never, createExecutionContext());
}

describe("OAuth sign-in", () => {
  it("sends the browser to Google with state and PKCE", async () => {
    const { location } = await startAndReturn("google");
    expect(location.origin).toBe("https://accounts.google.com");
    expect(location.searchParams.get("client_id")).toBe("google-client");
    expect(location.searchParams.get("redirect_uri")).toBe("https://market.test/auth/google/callback");
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
  });

  it("starts only with the buttons' post from this site: a link (another site's, a planted one, or none at all) opens the login page", async () => {
    // The login and sign-up pages' buttons are forms posting here.
    for (const page of ["/login", "/signup"]) {
      const html = await read(await get(page));
      expect(html).toContain('<form method="post" action="/auth/google">');
      expect(html).toContain('<form method="post" action="/auth/github">');
    }
    const started = await start("/auth/google");
    expect(new URL(started.headers.get("Location")!).origin).toBe("https://accounts.google.com");
    // Opened as an address, with or without a referrer, from any site: the login page, the way back kept.
    const linked: Record<string, string>[] = [
      {},
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-origin" },
      { Referer: "https://market.test/login" },
    ];
    for (const headers of linked) {
      const opened = await get("/auth/google?redirectTo=%2Fmysite%2Foffers", { headers });
      expect(opened.status).toBe(302);
      expect(opened.headers.get("Location")).toBe("/login?redirectTo=%2Fmysite%2Foffers");
      expect(opened.headers.getSetCookie().some((cookie) => cookie.includes("oauth_state="))).toBe(false);
    }
    // Another site's post (its form, or its script) is refused before the route.
    const elsewhere: Record<string, string>[] = [
      { Origin: "https://elsewhere.example" },
      { "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
    ];
    for (const headers of elsewhere) {
      const refused = await post("/auth/google", {}, { headers });
      expect(refused.status).toBe(403);
      expect(refused.headers.getSetCookie().some((cookie) => cookie.includes("oauth_state="))).toBe(false);
    }
    // Every page may send a form on to the providers (browsers hold its redirect to the list of the page's first
    // document, and the app reaches the login page from others without loading one), and to nowhere else but the
    // payment links.
    for (const page of ["/", "/login", "/signup", "/Login/", "/privacy"]) {
      const formAction = /form-action ([^;]*)/.exec((await get(page)).headers.get("Content-Security-Policy")!)![1]!.split(" ");
      expect(formAction.filter((origin) => !origin.includes("stripe.com"))).toEqual(["'self'", "https://accounts.google.com", "https://github.com"]);
    }
  });

  it("never lands a sign-in on an address that acts: a password sign-in asked to go on to Google goes to the market", async () => {
    const { email } = await signUp();
    for (const planted of ["/auth/google", "/AUTH/github?x=1", "/%61uth/google", "/logout"]) {
      const page = await read(await get(`/login?redirectTo=${encodeURIComponent(planted)}`));
      expect(page).not.toContain(`value="${planted}"`);
      const signedIn = await post("/login", { email, password: PASSWORD, redirectTo: planted });
      expect(signedIn.headers.get("Location")).toBe("/market");
    }
    const started = await start(`/auth/google?redirectTo=${encodeURIComponent("/auth/github")}`);
    expect(decodeURIComponent(started.headers.getSetCookie()[0]!)).toContain('"redirectTo":"/market"');
  });

  it("keeps a way back that fits a cookie: a too-long one goes to the market, so the sign-in still works", async () => {
    // Long as typed, or short as typed but long once encoded in the cookie ("&" and "=" take three characters each).
    for (const long of [`/search?term=${"a".repeat(5000)}`, `/search?${"&=".repeat(1000)}`]) {
      const started = await start(`/auth/google?redirectTo=${encodeURIComponent(long)}`);
      const cookie = started.headers.getSetCookie()[0]!;
      expect(cookie.length).toBeLessThan(4096);
      expect(decodeURIComponent(cookie)).toContain('"redirectTo":"/market"');
    }
    const short = (await start(`/auth/google?redirectTo=${encodeURIComponent("/mysite/offers")}`)).headers.getSetCookie()[0]!;
    expect(decodeURIComponent(short)).toContain('"redirectTo":"/mysite/offers"');
  });

  it("sends the browser to GitHub with PKCE too, and proves the verifier when it comes back", async () => {
    const bodies: string[] = [];
    const { email } = await signUp();
    mockProviders({ githubUser: { id: 5151 }, githubEmails: [{ email, primary: true, verified: true }] }, bodies);
    const { location, callback, stateCookie } = await startAndReturn("github");
    expect(location.origin).toBe("https://github.com");
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    expect(location.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Production: the state cookie can only be set by this origin over https.
    expect(stateCookie).toMatch(/^__Host-oauth_state=/);
    expect((await callback()).headers.get("Location")).toBe("/market");
    const verifier = new URLSearchParams(bodies[0]).get("code_verifier");
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    const challenge = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier!)))))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
    expect(challenge).toBe(location.searchParams.get("code_challenge"));
  });

  it("the same new Google user coming back twice at once gets one account, and both tabs sign in to it", async () => {
    const email = newEmail("google-twice");
    await bothLandOnTheMarket(email);
    const users = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).all<{ id: string }>();
    expect(users.results).toHaveLength(1);
    const sessions = await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(users.results[0]!.id).first();
    expect(sessions).toEqual({ n: 2 });
  });

  it("the owner coming back twice at once to an account a stranger made with their address takes it back once", async () => {
    const { email, userId } = await signUp(newEmail("taken-back-twice"));
    await bothLandOnTheMarket(email);
    // Both tabs are signed in (the second take-back did not end the first's session), and one email says what happened.
    expect(await env.DB.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ?").bind(userId).first()).toEqual({ n: 2 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM oauth_accounts WHERE user_id = ?").bind(userId).first()).toEqual({ n: 1 });
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'account-joined'").bind(email).first(),
    ).toEqual({ n: 1 });
    expect(await env.DB.prepare("SELECT count(*) AS n FROM password_credentials WHERE user_id = ?").bind(userId).first()).toEqual({ n: 0 });
  });

  it("creates an account for a new Google user, with the starter connects, and signs in", async () => {
    const email = newEmail("google");
    const calls = mockProviders({ google: { sub: "g-123", email, email_verified: true } });
    const { callback } = await startAndReturn("google");
    const response = await callback();
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/market");
    expect(sessionCookieOf(response)).not.toBeNull();
    expect(calls).toContain("https://oauth2.googleapis.com/token");
    const user = await env.DB.prepare("SELECT id, connects, email_verified FROM users WHERE email = ?").bind(email).first<{ id: string }>();
    expect(user).toMatchObject({ connects: 20, email_verified: 1 });
    const link = await env.DB.prepare("SELECT provider, provider_user_id FROM oauth_accounts WHERE user_id = ?").bind(user!.id).first();
    expect(link).toEqual({ provider: "google", provider_user_id: "g-123" });

    // Without a site yet, every signed-in page sends the user to add one, and that dialog cannot be closed.
    const market = await get("/market", { cookie: sessionCookieOf(response) });
    expect(market.status).toBe(302);
    expect(market.headers.get("Location")).toBe("/sites/new");
    const settings = await get("/mysite/settings", { cookie: sessionCookieOf(response) });
    expect(settings.headers.get("Location")).toBe("/sites/new");
    const addSite = await get("/sites/new", { cookie: sessionCookieOf(response) });
    expect(addSite.status).toBe(200);
    const page = await addSite.text();
    expect(page).toContain("Add your website to start trading.");
    expect(page).not.toContain('aria-label="Close"');
  });

  it("joins an existing account when GitHub says the email is verified", async () => {
    const { email, userId } = await signUp();
    mockProviders({ githubUser: { id: 4242 }, githubEmails: [{ email, primary: true, verified: true }] });
    const { callback } = await startAndReturn("github");
    const response = await callback();
    expect(response.headers.get("Location")).toBe("/market");
    const link = await env.DB.prepare("SELECT user_id FROM oauth_accounts WHERE provider = 'github' AND provider_user_id = '4242'").first();
    expect(link).toEqual({ user_id: userId });
    const users = await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first<{ n: number }>();
    expect(users!.n).toBe(1);
  });

  it("joining an account whose email was never confirmed ends its password and sessions, and says so", async () => {
    const squatter = await signUp();
    // Signing up made the squatter's browser known to the account (decision 50).
    const knownBrowsers = () => env.DB.prepare("SELECT COUNT(*) AS n FROM known_devices WHERE user_id = ?").bind(squatter.userId).first();
    expect(await knownBrowsers()).toEqual({ n: 1 });
    // A provider identity the squatter attached earlier must not survive the owner's arrival.
    await env.DB.prepare("INSERT INTO oauth_accounts (provider, provider_user_id, user_id, email) VALUES ('github', ?, ?, ?)")
      .bind(`squatter-${crypto.randomUUID()}`, squatter.userId, squatter.email)
      .run();
    mockProviders({ google: { sub: "g-owner", email: squatter.email, email_verified: true } });
    const { callback } = await startAndReturn("google");
    const response = await callback();
    expect(response.headers.get("Location")).toBe("/market");
    const owner = sessionCookieOf(response)!;
    expect((await get("/market", { cookie: owner })).status).toBe(200);
    // The squatter's session, password and known browser are gone.
    expect(await knownBrowsers()).toEqual({ n: 0 });
    expect((await get("/market", { cookie: squatter.cookie })).headers.get("Location")).toBe("/login");
    expect((await post("/login", { email: squatter.email, password: PASSWORD })).status).toBe(400);
    expect(await env.DB.prepare("SELECT email_verified FROM users WHERE id = ?").bind(squatter.userId).first()).toEqual({ email_verified: 1 });
    const links = await env.DB.prepare("SELECT provider, provider_user_id FROM oauth_accounts WHERE user_id = ?").bind(squatter.userId).all();
    expect(links.results).toEqual([{ provider: "google", provider_user_id: "g-owner" }]);
    const mail = await env.DB.prepare("SELECT subject FROM email_outbox WHERE to_address = ? AND kind = 'account-joined'")
      .bind(squatter.email)
      .first();
    expect(mail).toEqual({ subject: "Your account now signs in with Google" });
  });

  it("joining an account whose email was confirmed keeps its password and sessions", async () => {
    const user = await signUp();
    await env.DB.prepare("UPDATE users SET email_verified = 1 WHERE id = ?").bind(user.userId).run();
    mockProviders({ google: { sub: "g-confirmed", email: user.email, email_verified: true } });
    const { callback } = await startAndReturn("google");
    expect((await callback()).headers.get("Location")).toBe("/market");
    expect((await get("/market", { cookie: user.cookie })).status).toBe(200);
    expect((await post("/login", { email: user.email, password: PASSWORD })).status).toBe(302);
  });

  it("never creates an account with an address the provider has not verified", async () => {
    const email = newEmail("unverified");
    mockProviders({ google: { sub: "g-unverified", email, email_verified: false } });
    const { callback } = await startAndReturn("google");
    const response = await callback();
    expect(response.headers.get("Location")).toBe("/login?notice=oauth-unverified");
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM users WHERE email = ?").bind(email).first()).toEqual({ n: 0 });
  });

  it("does not join an existing account when the provider has not verified the email", async () => {
    const { email } = await signUp();
    mockProviders({ githubUser: { id: 777 }, githubEmails: [{ email, primary: true, verified: false }] });
    const { callback } = await startAndReturn("github");
    const response = await callback();
    expect(response.headers.get("Location")).toBe("/login?notice=oauth-unverified");
    expect(sessionCookieOf(response)).toBeNull();
    const link = await env.DB.prepare("SELECT COUNT(*) AS n FROM oauth_accounts WHERE provider_user_id = '777'").first<{ n: number }>();
    expect(link!.n).toBe(0);
  });

  it("sends the user back to the login page with the message when the database fails during the callback", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    mockProviders({ google: { sub: `g-${crypto.randomUUID()}`, email: newEmail("oauth-down"), email_verified: true } });
    const { state, stateCookie } = await startAndReturn("google");
    const failing = envWithFailingTable("oauth_accounts");
    const response = await worker.fetch(
      new Request(`https://market.test/auth/google/callback?code=the-code&state=${state}`, {
        redirect: "manual",
        headers: { Cookie: stateCookie, Host: "market.test" },
      }) as never,
      failing as never,
      createExecutionContext(),
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/login?notice=oauth-failed");
    expect(sessionCookieOf(response as unknown as Response)).toBeNull();
  });

  it("refuses a callback whose state does not match", async () => {
    const calls = mockProviders({});
    const { callback } = await startAndReturn("google");
    const response = await callback("code=x&state=forged");
    expect(response.headers.get("Location")).toBe("/login?notice=oauth-failed");
    expect(calls).toEqual([]);
  });

  it("is not offered for a provider that is not configured", async () => {
    const ask = askWith({ GITHUB_CLIENT_ID: undefined, GITHUB_CLIENT_SECRET: undefined });
    expect((await ask("/auth/github")).status).toBe(404);
    expect((await ask("/auth/google")).status).toBe(302);
    const login = await (await ask("/login")).text();
    expect(login).toContain("Continue with Google");
    expect(login).not.toContain("Continue with GitHub");
    expect((await get("/auth/facebook")).status).toBe(404);
  });

  it("is not offered in production while APP_URL is left at localhost (the provider would send the browser there)", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const ask = askWith({ APP_URL: "http://localhost:8787" });
    expect((await ask("/auth/google")).status).toBe(404);
    expect((await ask("/auth/github/callback?code=c&state=s")).status).toBe(404);
    const login = await (await ask("/login")).text();
    expect(login).toContain("Log in");
    expect(login).not.toContain("Continue with Google");
    expect(login).not.toContain("Continue with GitHub");
    expect(logged.mock.calls.flat().join(" ")).toContain("APP_URL must be the public https origin");
    // In development (npm start) the local address is the point.
    const started = await devFetch("/auth/google", { method: "POST" }, { APP_URL: "http://localhost:8787" });
    expect(started.status).toBe(302);
    expect(new URL(started.headers.get("Location")!).searchParams.get("redirect_uri")).toBe("http://localhost:8787/auth/google/callback");
  });
});
