import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { allow, clientAddress, network48Of, NETWORK_48_SCALE } from "~/services/rate-limit.server";
import { createContext } from "~/worker";
import { get, newEmail, PASSWORD, post, read, signUp, uniqueHost, windowStart } from "./helpers";

const HOUR = 60 * 60_000;
const description = "A site about small-space gardening and balcony vegetables.";

describe("per-address limits", () => {
  it("count an IPv6 client by its /64", async () => {
    const keyOf = (address: string) => clientAddress(new Request("https://market.test/", { headers: { "CF-Connecting-IP": address } }));
    expect(keyOf("2001:db8:abcd:12:1::5")).toBe("2001:db8:abcd:12::/64");
    expect(keyOf("2001:db8:abcd:12:ffff:ffff:ffff:1")).toBe("2001:db8:abcd:12::/64");
    expect(keyOf("2001:db8:abcd:13::1")).toBe("2001:db8:abcd:13::/64");
    expect(keyOf("198.51.100.7")).toBe("198.51.100.7");
    // IPv4 clients seen through IPv6 are their IPv4 address, not one shared /64.
    expect(keyOf("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(keyOf("::ffff:c633:6408")).toBe("198.51.100.8");

    const at = windowStart();
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    for (let i = 1; i <= 10; i += 1) {
      const response = await post(
        "/signup",
        { intent: "create", email: newEmail("v6"), password: PASSWORD, url: uniqueHost("v6"), description },
        { address: `${prefix}:${i}::${i}`, at },
      );
      expect(response.status).toBe(302);
    }
    const eleventh = await post(
      "/signup",
      { intent: "create", email: newEmail("v6"), password: PASSWORD, url: uniqueHost("v6"), description },
      { address: `${prefix}:ffff::1`, at },
    );
    expect(eleventh.status).toBe(429);
  });
});

describe("per-network limits", () => {
  it("count an IPv6 client's /48 too, at ten times the limit of its /64", async () => {
    const context = createContext(env as never, createExecutionContext());
    const rule = { name: `test-network:${crypto.randomUUID()}`, limit: 2, windowMs: HOUR, perAddress: true };
    const network = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    expect(network48Of(`${network}:1::/64`)).toBe(`${network}::/48`);
    expect(network48Of("198.51.100.7")).toBeNull();
    // Ten /64s of one /48 use their two each; an eleventh /64 of it is refused, one of another /48 is not.
    for (let i = 1; i <= NETWORK_48_SCALE; i += 1) {
      for (const _use of [1, 2]) expect(await allow(context, rule, `${network}:${i.toString(16)}::/64`)).toBe(true);
    }
    expect(await allow(context, rule, `${network}:ff::/64`)).toBe(false);
    expect(await allow(context, rule, `2001:db9:1:ff::/64`)).toBe(true);
    expect(await allow(context, rule, "198.51.100.7")).toBe(true);
  });

  it("apply to sign-ups and reset links: a /48 that has used its budget is refused from a /64 never seen", async () => {
    const at = windowStart();
    const network = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}`;
    for (const rule of ["signup:ip", "reset:ip"]) {
      await env.DB.prepare("INSERT INTO rate_limits (key, window_start, count) VALUES (?, ?, ?)").bind(`${rule}/48:${network}::/48`, at, 100).run();
    }
    const fresh = `${network}:beef::1`;
    const signup = await post(
      "/signup",
      { intent: "create", email: newEmail("v6-48"), password: PASSWORD, url: uniqueHost("v6-48"), description },
      { address: fresh, at },
    );
    expect(signup.status).toBe(429);
    const reset = await post("/reset-password", { intent: "request", email: newEmail("v6-48") }, { address: fresh, at });
    expect(reset.status).toBe(429);
  });
});

describe("the waitlist (site-add form, sources hero and other)", () => {
  it("stores each email once, keeping the first entry, and limits entries per address", async () => {
    const at = windowStart(HOUR);
    const address = "203.0.113.50";
    const email = newEmail("wait");
    const join = (url: string, mail = email) =>
      post("/add-site?source=hero", { url, email: mail, category: "blog", description: "First version of it." }, { address, at });
    expect((await join("first-site.com")).status).toBe(302);
    expect((await join("second-site.com", email.toUpperCase())).status).toBe(302);
    const rows = await env.DB.prepare("SELECT url FROM beta_signups WHERE email = ?").bind(email).all();
    expect(rows.results).toEqual([{ url: "first-site.com" }]);
    for (let i = 0; i < 8; i += 1) expect((await join(`more-${i}.com`, newEmail("wait"))).status).toBe(302);
    const refused = await join("one-too-many.com", newEmail("wait"));
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyAttempts);
  });
});

describe("limits of signed-in actions", () => {
  it("feedback: 10 an hour", async () => {
    const at = windowStart(HOUR);
    const { cookie } = await signUp();
    for (let i = 0; i < 10; i += 1) expect((await post("/feedback", { feedback: `Note ${i}` }, { cookie, at })).status).toBe(302);
    const refused = await post("/feedback", { feedback: "One more" }, { cookie, at });
    expect(refused.status).toBe(429);
    const page = await read(refused);
    expect(page).toContain(messages.tooManyAttempts);
    expect(page).toContain("One more");
  });

  it("adding sites: 10 an hour, from the dialog and the market form together", async () => {
    const at = windowStart(HOUR);
    const { cookie } = await signUp();
    for (let i = 0; i < 5; i += 1) expect((await post("/sites/new", { url: uniqueHost("added"), description }, { cookie, at })).status).toBe(302);
    for (let i = 0; i < 5; i += 1) {
      expect(
        (await post("/add-site?source=market", { url: uniqueHost("listed"), category: "blog", description, connects: "5" }, { cookie, at })).status,
      ).toBe(302);
    }
    const refused = await post("/sites/new", { url: uniqueHost("extra"), description }, { cookie, at });
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyAttempts);
  });

  it("settings: 60 saves an hour", async () => {
    const at = windowStart(HOUR);
    const { cookie } = await signUp();
    for (let i = 0; i < 60; i += 1) expect((await post("/mysite/settings", { description: `${description} ${i}` }, { cookie, at })).status).toBe(302);
    const refused = await post("/mysite/settings", { description: `${description} again` }, { cookie, at });
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyAttempts);
  });

  it("search: 120 a minute per user, then a message instead of results", async () => {
    const { cookie } = await signUp();
    let refused: Response | null = null;
    // The limiter counts in windows of a minute aligned to the clock, so the searches may straddle two: 241 in under a
    // minute put 121 in one of them (125 missed the refusal when a window ended mid-loop).
    for (let i = 0; i < 2 * 120 + 1 && !refused; i += 1) {
      const response = await get(`/search?term=garden${i}`, { cookie });
      if (response.status === 429) refused = response;
      else await response.arrayBuffer();
    }
    expect(refused).not.toBeNull();
    const page = await read(refused!);
    expect(page).toContain(messages.tooManySearches);
    // A refused search is not a search without matches.
    expect(page).not.toContain("No sites match this search");
  });

  it("search: browsing without a term, tag or band is the market's list, and not counted", async () => {
    const { cookie } = await signUp();
    for (let i = 0; i < 125; i += 1) {
      for (const path of ["/search", "/search?sort=record"]) {
        const response = await get(i % 2 ? path : `${path}${path.includes("?") ? "&" : "?"}term=`, { cookie });
        expect(response.status, path).toBe(200);
        await response.arrayBuffer();
      }
    }
    const searched = await get("/search?term=garden", { cookie });
    expect(searched.status).toBe(200);
    expect(await read(searched)).not.toContain(messages.tooManySearches);
  });
});

describe("sign-up drafts without JavaScript", () => {
  it("are limited per address: each one hashes a password and stores a row", async () => {
    const at = windowStart();
    const address = `203.0.113.${Math.floor(Math.random() * 200) + 20}`;
    const step0 = () => post("/signup", { intent: "continue", email: newEmail("draft"), password: "Quiet-Meadow-42" }, { address, at });
    for (let i = 0; i < 20; i += 1) expect((await step0()).status).toBe(200);
    const refused = await step0();
    expect(refused.status).toBe(429);
    expect(await read(refused)).toContain(messages.tooManyAttempts);
  });
});
