import { createExecutionContext, env, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "~/worker";
import { BASE, listSite, newAddress, SESSION_COOKIE, signUp } from "./helpers";

afterEach(() => vi.restoreAllMocks());

/** Every page and data address a browser can ask for, with odd query values where a route reads one. */
const PAGES = [
  "/",
  "/?slide=abc",
  "/login",
  "/login?email=%E0%A4%A&redirectTo=//evil.com",
  // Names every object inherits, where a page looks a notice's words up by name.
  "/login?notice=__proto__",
  "/login?notice=constructor",
  "/login.data?notice=toString",
  "/signup",
  "/signup?step=9&email=a%00b",
  "/reset-password",
  "/reset-password?token=%00%00",
  "/finish-signup",
  "/send-email-link",
  "/briefs",
  "/newbeta",
  "/privacy",
  "/add-site",
  "/add-site?source=market&url=%E0%A4%A",
  "/add-site?source=hero",
  "/add-site?source=nonsense",
  "/market",
  "/market?post=not-a-listing",
  "/market?post=",
  "/market?feedback=true",
  "/market?notice=__proto__",
  "/market.data?notice=constructor",
  "/mysite?notice=hasOwnProperty",
  "/market?after=garbage",
  "/market.data",
  "/search",
  "/search?term=%25%5F%22'%3B--",
  "/search?term=a&tag=nonsense&band=nonsense&after=zzz",
  "/search?term=%25%5F%22'%3B--&sort=record&after=r1_x",
  "/search?term=%22&sort=record",
  "/search?term=%22%22%22%22&tag=seo&sort=record&after=zzz",
  "/search/%E0%A4%A",
  "/search/x.data",
  "/search?term=a&post=",
  "/search/a?post=not-a-listing",
  `/search?post=${"x".repeat(100)}`,
  "/mysite",
  "/mysite?feedback=1",
  "/mysite/offers",
  "/mysite/offers?offer=nope&view=profile",
  "/mysite/offers?offersAfter=garbage&tradesAfter=%00",
  "/mysite/offers.data?offersAfter=1_%E0%A4%A",
  "/mysite/settings",
  "/mysite/verify",
  "/mysite/icon",
  "/mysite/connects",
  "/mysite/connects?checkout=success&session_id=%E0%A4%A",
  "/mysite/messages",
  "/mysite/messages?chatId=%00&before=-1",
  "/mysite/your-score",
  "/unsubscribe",
  "/unsubscribe?token=%E0%A4%A",
  "/webhooks/stripe",
  "/mysite/no-such-page",
  "/sites/new?back=javascript:alert(1)",
  "/sites/active",
  "/auth/google",
  "/auth/github",
  "/auth/unknown",
  "/auth/google/callback?code=x&state=y",
  "/auth/github/callback",
  "/dev/mailbox",
  "/dev/sites",
  "/feedback",
  "/logout",
  "/confirm-email",
  "/confirm-email?token=%E0%A4%A",
  "/confirm-email?token=abc",
  "/no/such/address",
];

/** Every address that accepts a form post. */
const ACTIONS = [
  "/login",
  "/signup",
  "/reset-password",
  "/reset-password?token=abc",
  "/add-site?source=hero",
  "/add-site?source=market",
  "/add-site?source=other",
  "/market",
  "/market?post=x",
  "/market.data",
  "/feedback",
  "/mysite/offers?offer=x",
  "/mysite/offers?offer=x&offersAfter=zzz&tradesAfter=",
  "/mysite/settings",
  "/mysite/verify",
  "/mysite/verify.data",
  "/mysite/connects",
  "/mysite/messages",
  "/mysite/messages?chatId=x",
  "/unsubscribe?token=abc",
  "/webhooks/stripe",
  "/mysite/icon",
  "/sites/new",
  "/sites/active",
  "/logout",
  "/confirm-email",
  "/dev/sites",
];

const long = "x".repeat(100 * 1024);

/** Bodies no form of ours sends: empty, wrong shapes, huge, broken escapes, NUL bytes, JSON, multipart, text. */
const BODIES: { name: string; body: BodyInit; type?: string }[] = [
  { name: "empty", body: "", type: "application/x-www-form-urlencoded" },
  {
    name: "arrays for scalars",
    body: "intent=propose&intent=trash&listingId=a&listingId=b&email=x&email=y&connects=1&connects=2",
    type: "application/x-www-form-urlencoded",
  },
  {
    name: "wrong types",
    body: "connects=abc&listed=maybe&myContentType=42&siteId=&redirectTo=%2F%2Fevil.com&intent=%00",
    type: "application/x-www-form-urlencoded",
  },
  { name: "100 KB field", body: `description=${long}&email=${long}&password=${long}`, type: "application/x-www-form-urlencoded" },
  { name: "invalid escapes", body: "email=%E0%A4%A&password=%ZZ&url=%&intent=%C0%80", type: "application/x-www-form-urlencoded" },
  {
    name: "NUL bytes",
    body: "email=a%00b%40c.com&password=Abc%00defg1&description=%00%00%00&url=exa%00mple.com",
    type: "application/x-www-form-urlencoded",
  },
  { name: "JSON", body: JSON.stringify({ email: "a@b.com", password: "Abcdefg1", intent: "propose" }), type: "application/json" },
  {
    name: "multipart",
    body: (() => {
      const form = new FormData();
      form.set("intent", "check");
      form.set("email", "a@b.com");
      return form;
    })(),
  },
  {
    name: "names Conform reads itself",
    body: "__intent__=x&__state__=%7B&intent=decline&email=a%40b.com&password=Abcdefg1",
    type: "application/x-www-form-urlencoded",
  },
  {
    name: "names with paths",
    body: "intent=accept&materials%5B20000000%5D=logo&theirMaterials%5B20000000%5D=logo&myMaterials.x=logo&tag%5B9%5D=blog",
    type: "application/x-www-form-urlencoded",
  },
  { name: "text", body: "just some text", type: "text/plain" },
  { name: "no content type", body: "intent=check" },
];

const COOKIES = [
  `${SESSION_COOKIE}=%E0%A4%A`,
  `${SESSION_COOKIE}=%`,
  `${SESSION_COOKIE}=${"a".repeat(8000)}`,
  SESSION_COOKIE,
  `=;;;${SESSION_COOKIE}=;__Host-oauth_state=%E0%A4%A`,
  `__Host-oauth_state={not json}; ${SESSION_COOKIE}=abc`,
  // JSON, but not an object.
  "__Host-oauth_state=null",
  "__Host-oauth_state=42",
];

async function send(path: string, init: RequestInit & { headers?: Record<string, string> }) {
  const response = await SELF.fetch(`${BASE}${path}`, {
    redirect: "manual",
    ...init,
    headers: { Host: new URL(BASE).host, "CF-Connecting-IP": newAddress(), Origin: BASE, "Sec-Fetch-Site": "same-origin", ...init.headers },
  });
  await response.arrayBuffer();
  return response.status;
}

describe("malformed input never reaches a 5xx", () => {
  it("pages and data, signed out, signed in, and with malformed cookies", async () => {
    const user = await signUp();
    const owner = await signUp();
    await listSite(owner.userId, { host: `malformed-${crypto.randomUUID().slice(0, 6)}.com` });
    const failures: string[] = [];
    for (const cookie of [null, user.cookie, ...COOKIES, `${user.cookie}; ${SESSION_COOKIE}=%E0%A4%A`]) {
      for (const path of PAGES) {
        const status = await send(path, { headers: cookie ? { Cookie: cookie } : {} });
        if (status >= 500) failures.push(`GET ${path} [${cookie?.slice(0, 24)}] -> ${status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("every action, with every malformed body, signed out and in", async () => {
    const user = await signUp();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const failures: string[] = [];
    for (const cookie of [null, user.cookie, `${SESSION_COOKIE}=%E0%A4%A; __Host-device=%E0%A4%A`]) {
      for (const path of ACTIONS) {
        for (const { name, body, type } of BODIES) {
          const status = await send(path, {
            method: "POST",
            body,
            headers: { ...(type ? { "Content-Type": type } : {}), ...(cookie ? { Cookie: cookie } : {}) },
          });
          if (status >= 500) failures.push(`POST ${path} ${name} [${cookie?.slice(0, 12)}] -> ${status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("refuses bodies over 64 KB with 413 and non-form bodies with 415, before reading them", async () => {
    const user = await signUp();
    const huge = await send("/mysite/settings", {
      method: "POST",
      body: `description=${long}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: user.cookie },
    });
    expect(huge).toBe(413);
    const lying = await send("/login", {
      method: "POST",
      body: "email=a",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": "99999999" },
    });
    expect(lying).toBe(413);
    for (const type of ["application/json", "text/plain", "application/xml"]) {
      expect(await send("/login", { method: "POST", body: "{}", headers: { "Content-Type": type } }), type).toBe(415);
    }
    expect(
      await send("/login", { method: "POST", body: "email=a%40b.com&password=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
    ).toBe(400);
  });
});

describe("form bodies without a declared length", () => {
  it("are read up to 64 KB and refused past it", async () => {
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 8192) controller.enqueue(bytes.slice(i, i + 8192));
          controller.close();
        },
      });
    const request = (text: string) =>
      new Request(`${BASE}/login`, {
        method: "POST",
        body: chunked(text),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Host: new URL(BASE).host, Origin: BASE, "CF-Connecting-IP": newAddress() },
      });
    const small = await worker.fetch(request("email=nobody%40example.com&password=Wrong-password1") as never, env as never, createExecutionContext());
    expect(small.status).toBe(400);
    expect(await small.text()).toContain("Incorrect email or password");
    const large = await worker.fetch(request(`email=${"x".repeat(70 * 1024)}`) as never, env as never, createExecutionContext());
    expect(large.status).toBe(413);
  });
});
