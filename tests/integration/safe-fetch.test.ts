import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { messages } from "~/domain/messages";
import { database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { isWebSandboxOn, readText, safeFetch, SAFE_FETCH_LIMITS, safeFetchOptionsFor, WorkerLimitError } from "~/lib/safe-fetch.server";
import { publishSandboxPage } from "~/lib/web-sandbox.server";
import { endlessBytes, hangingBody, html, mockWeb, redirectTo } from "./web-mock";

const options = { userAgent: "BacklinkMarket/1.0 (+https://market.test)" };

afterEach(() => vi.restoreAllMocks());

describe("the safe fetch", () => {
  it("answers the Worker's own subrequest limit as unreachable, or throws it for a job that asks", async () => {
    mockWeb({
      "https://garden-notes.com/": () => {
        throw new Error("Too many subrequests.");
      },
    });
    expect(await safeFetch("https://garden-notes.com/", options)).toMatchObject({ ok: false, reason: "unreachable" });
    await expect(safeFetch("https://garden-notes.com/", { ...options, throwOnWorkerLimit: true })).rejects.toBeInstanceOf(WorkerLimitError);
  });

  it.each([
    ["loopback", "http://127.0.0.1/"],
    ["a private range", "http://10.1.2.3/admin"],
    ["another private range", "http://192.168.0.1/"],
    ["link-local", "http://169.254.10.10/"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/iam/"],
    ["IPv6 loopback", "http://[::1]/"],
    ["an IPv4-mapped IPv6 address", "http://[::ffff:127.0.0.1]/"],
    ["a decimal IP", "http://2130706433/"],
    ["an octal IP", "http://0177.0.0.01/"],
    ["a hex IP", "http://0x7f000001/"],
  ])("refuses %s without sending anything", async (_, address) => {
    const web = mockWeb({});
    const result = await safeFetch(address, options);
    expect(result).toMatchObject({ ok: false, reason: "private_network", message: messages.fetchPrivateNetwork });
    expect(web.requests).toHaveLength(0);
  });

  it.each([
    ["file:///etc/passwd", messages.fetchScheme],
    ["data:text/html,<meta name=backlink-verification>", messages.fetchScheme],
    ["ftp://garden-notes.com/", messages.fetchScheme],
    ["https://admin:pw@garden-notes.com/", messages.fetchCredentials],
    ["https://garden-notes.com:8443/", messages.fetchPort],
    ["http://localhost/", messages.fetchLocalName],
    ["http://router.internal/", messages.fetchLocalName],
    ["http://93.184.215.14/", messages.fetchIpLiteral],
  ])("refuses %s with its reason", async (address, message) => {
    const web = mockWeb({});
    const result = await safeFetch(address, options);
    expect(result).toMatchObject({ ok: false, message });
    expect(web.requests).toHaveLength(0);
  });

  it("names the product and its address in the User-Agent and reads the page", async () => {
    const web = mockWeb({ "https://garden-notes.com/": html("<title>Garden notes</title>") });
    const result = await safeFetch("https://garden-notes.com/", options);
    if (!result.ok) throw new Error(result.message);
    expect(await readText(result)).toEqual({ ok: true, text: "<title>Garden notes</title>" });
    expect(web.requests[0]!.headers.get("User-Agent")).toBe("BacklinkMarket/1.0 (+https://market.test)");
  });

  it("follows up to three redirects by hand, checking each hop", async () => {
    const web = mockWeb({
      "http://garden-notes.com/": redirectTo("https://garden-notes.com/"),
      "https://garden-notes.com/": redirectTo("/home", 302),
      "https://garden-notes.com/home": redirectTo("https://www.garden-notes.com/home", 307),
      "https://www.garden-notes.com/home": html("home"),
    });
    const result = await safeFetch("http://garden-notes.com/", options);
    expect(result).toMatchObject({
      ok: true,
      url: "https://www.garden-notes.com/home",
      redirects: ["http://garden-notes.com/", "https://garden-notes.com/", "https://garden-notes.com/home"],
    });
    expect(web.requests.every((request) => request.redirect === "manual")).toBe(true);
  });

  it("refuses a redirect to a private address before following it", async () => {
    const web = mockWeb({ "https://bouncer.com/": redirectTo("http://169.254.169.254/latest/meta-data/", 302) });
    const result = await safeFetch("https://bouncer.com/", options);
    expect(result).toMatchObject({ ok: false, reason: "private_network", url: "http://169.254.169.254/latest/meta-data/" });
    expect(web.urls()).toEqual(["https://bouncer.com/"]);
  });

  it("stops an endless redirect chain after three redirects", async () => {
    const pages: Record<string, ReturnType<typeof redirectTo>> = {};
    for (let i = 0; i < 20; i += 1) pages[`https://loop.com/${i}`] = redirectTo(`https://loop.com/${i + 1}`, 302);
    const web = mockWeb(pages);
    const result = await safeFetch("https://loop.com/0", options);
    expect(result).toMatchObject({ ok: false, reason: "too_many_redirects", message: messages.fetchTooManyRedirects });
    expect(web.requests).toHaveLength(4);
  });

  it("reads at most 2 MiB of a 50 MiB body and cancels the rest", async () => {
    const body = endlessBytes(50 * 1024 * 1024);
    mockWeb({ "https://huge.com/": () => new Response(body.stream, { headers: { "Content-Type": "text/html" } }) });
    const result = await safeFetch("https://huge.com/", options);
    if (!result.ok) throw new Error(result.message);
    expect(await readText(result)).toMatchObject({ ok: false, reason: "too_large", message: messages.fetchTooLarge });
    expect(body.state.pulled).toBeLessThanOrEqual(SAFE_FETCH_LIMITS.maxBytes + 2 * 64 * 1024);
    expect(body.state.cancelled).toBe(true);
  });

  it("reads a body declared larger than 2 MiB only up to the cap", async () => {
    const body = endlessBytes(50 * 1024 * 1024);
    mockWeb({ "https://declared.com/": () => new Response(body.stream, { headers: { "Content-Length": String(50 * 1024 * 1024) } }) });
    const result = await safeFetch("https://declared.com/", options);
    if (!result.ok) throw new Error(result.message);
    expect(await readText(result)).toMatchObject({ ok: false, reason: "too_large" });
    expect(body.state.pulled).toBeLessThanOrEqual(SAFE_FETCH_LIMITS.maxBytes + 2 * 64 * 1024);
    expect(body.state.cancelled).toBe(true);
  });

  it("shares one deadline across calls when given one", async () => {
    mockWeb({ "https://silent.com/": () => new Promise<Response>(() => undefined) });
    const started = Date.now();
    const result = await safeFetch("https://silent.com/", { ...options, deadline: Date.now() + 300 });
    expect(result).toMatchObject({ ok: false, reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("cuts a body that never ends at the deadline", async () => {
    const body = hangingBody();
    mockWeb({ "https://slow.com/": () => new Response(body.stream, { headers: { "Content-Type": "text/html" } }) });
    const started = Date.now();
    const result = await safeFetch("https://slow.com/", { ...options, timeoutMs: 400 });
    if (!result.ok) throw new Error(result.message);
    expect(await readText(result)).toMatchObject({ ok: false, reason: "timeout", message: messages.fetchTimeout });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(body.state.cancelled).toBe(true);
  });

  it("gives up on a site that never answers at the deadline", async () => {
    mockWeb({ "https://silent.com/": () => new Promise<Response>(() => undefined) });
    const started = Date.now();
    const result = await safeFetch("https://silent.com/", { ...options, timeoutMs: 400 });
    expect(result).toMatchObject({ ok: false, reason: "timeout", message: messages.fetchTimeout });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("tells a name that does not resolve from a site that cannot be reached", async () => {
    mockWeb({
      "https://down.com/": () => Promise.reject(new TypeError("Network connection lost")),
      "https://cert.com/": () => Promise.reject(new TypeError("TLS peer's certificate name mismatch")),
      // What Cloudflare's network answers a Worker when a name does not resolve (error 1016).
      "https://unresolved.com/": () => new Response("error code: 1016", { status: 530 }),
    });
    expect(await safeFetch("https://unresolved.com/", options)).toMatchObject({ ok: false, reason: "name_not_found" });
    expect(await safeFetch("https://cert.com/", options)).toMatchObject({ ok: false, reason: "unreachable" });
    expect(await safeFetch("https://nowhere-at-all.com/", options)).toMatchObject({
      ok: false,
      reason: "name_not_found",
      message: messages.fetchNameNotFound,
    });
    expect(await safeFetch("https://down.com/", options)).toMatchObject({ ok: false, reason: "unreachable", message: messages.fetchUnreachable });
  });
});

describe("the dev web sandbox as the safe fetch's transport", () => {
  it("answers published pages, 404 for other paths of a known host, and an unknown host as a name that does not resolve", async () => {
    const db = database(env.DB);
    const base = { ...(env as unknown as Env) };
    expect(isWebSandboxOn({ ...base, ENVIRONMENT: "development" })).toBe(true);
    expect(isWebSandboxOn({ ...base, ENVIRONMENT: "development", DEV_WEB_SANDBOX: "0" })).toBe(false);
    expect(isWebSandboxOn({ ...base, ENVIRONMENT: "test" })).toBe(false);
    expect(isWebSandboxOn({ ...base, ENVIRONMENT: "production", DEV_WEB_SANDBOX: "1" })).toBe(false);

    const host = `box-${crypto.randomUUID().slice(0, 6)}.com`;
    await publishSandboxPage(db, { host, path: "/", contentType: "redirect", body: `https://${host}/home` }, Date.now());
    await publishSandboxPage(db, { host, path: "/home", contentType: "text/html", body: "<title>Boxed</title>" }, Date.now());
    const web = mockWeb({});
    const sandbox = safeFetchOptionsFor({ ...base, ENVIRONMENT: "development", DEV_WEB_SANDBOX: "1" }, db);
    const page = await safeFetch(`http://${host}/`, sandbox);
    if (!page.ok) throw new Error(page.message);
    expect(page.url).toBe(`https://${host}/home`);
    expect(await readText(page)).toEqual({ ok: true, text: "<title>Boxed</title>" });
    expect(await safeFetch(`https://${host}/other`, sandbox)).toMatchObject({ ok: true, status: 404 });
    expect(await safeFetch("https://unpublished-host.com/", sandbox)).toMatchObject({ ok: false, reason: "name_not_found" });
    expect(await safeFetch("http://127.0.0.1/", sandbox)).toMatchObject({ ok: false, reason: "private_network" });
    expect(web.requests).toHaveLength(0);
    const logged = await env.DB.prepare("SELECT url, status FROM dev_sandbox_requests WHERE url LIKE ? ORDER BY rowid").bind(`%${host}%`).all();
    expect(logged.results).toEqual([
      { url: `http://${host}/`, status: 301 },
      { url: `https://${host}/home`, status: 200 },
      { url: `https://${host}/other`, status: 404 },
    ]);
  });
});
