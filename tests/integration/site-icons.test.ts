import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { messages } from "~/domain/messages";
import { get, post, read, signUp, windowStart } from "./helpers";
import { html, image, mockWeb, unreachable, type Page } from "./web-mock";

afterEach(() => vi.restoreAllMocks());

async function iconOf(userId: string) {
  return (await env.DB.prepare("SELECT icon FROM sites WHERE user_id = ? ORDER BY created_at LIMIT 1").bind(userId).first<{ icon: string | null }>())!
    .icon;
}

const head = (links: string) => html(`<!doctype html><html><head><title>Home</title>${links}</head><body><h1>Hi</h1></body></html>`);

/** Signs up with the site's pages in place (the lookup after sign-up finds the same), then presses the icon control. */
async function updateIconWith(pages: (host: string) => Record<string, Page>) {
  const host = `icons-${crypto.randomUUID().slice(0, 8)}.com`;
  const web = mockWeb(pages(host));
  const user = await signUp(undefined, host);
  const response = await post("/mysite/icon", { redirectTo: "/mysite/settings" }, { cookie: user.cookie });
  return { user, web, response, icon: await iconOf(user.userId) };
}

describe("the site icon edit control", () => {
  it("stores the page's icon link as an absolute https address, shows it and confirms it", async () => {
    const { user, response, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head('<link rel="stylesheet" href="/a.css"><link rel="icon" href="/static/fav.png" sizes="32x32">'),
      [`https://${host}/static/fav.png`]: image(),
    }));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/mysite/settings?notice=icon-updated");
    expect(icon).toBe(`https://${user.url}/static/fav.png`);
    const page = await read(await get("/mysite/settings?notice=icon-updated", { cookie: user.cookie }));
    expect(page).toContain(`src="https://${user.url}/static/fav.png"`);
    expect(page).toContain(messages.iconUpdated);
  });

  it("updates the site its page showed, even after another tab switched to another site", async () => {
    const hostA = `icons-a-${crypto.randomUUID().slice(0, 8)}.com`;
    const hostB = `icons-b-${crypto.randomUUID().slice(0, 8)}.com`;
    mockWeb({
      [`https://${hostA}/`]: head('<link rel="icon" href="/a.png">'),
      [`https://${hostA}/a.png`]: image(),
      [`https://${hostB}/`]: head('<link rel="icon" href="/b.png">'),
      [`https://${hostB}/b.png`]: image(),
    });
    const user = await signUp(undefined, hostA);
    const siteA = (await env.DB.prepare("SELECT id FROM sites WHERE host = ?").bind(hostA).first<{ id: string }>())!.id;
    expect(await read(await get("/mysite", { cookie: user.cookie }))).toContain(`name="siteId" value="${siteA}"`);
    // Another tab adds site B, which becomes the active site.
    await post("/sites/new", { url: hostB, description: "A second site, added from another tab of the browser." }, { cookie: user.cookie });
    const siteB = (await env.DB.prepare("SELECT id FROM sites WHERE host = ?").bind(hostB).first<{ id: string }>())!.id;
    const response = await post("/mysite/icon", { siteId: siteA, redirectTo: "/mysite" }, { cookie: user.cookie });
    expect(response.headers.get("Location")).toBe("/mysite?notice=icon-updated");
    // The update counted against A's hourly ten, not B's, and A is the active site again.
    const updatesOf = (siteId: string) =>
      env.DB.prepare("SELECT coalesce(sum(count), 0) AS n FROM rate_limits WHERE key = ?").bind(`icon:site:${siteId}`).first();
    expect(await updatesOf(siteA)).toEqual({ n: 1 });
    expect(await updatesOf(siteB)).toEqual({ n: 0 });
    expect(await env.DB.prepare("SELECT active_site_id AS id FROM sessions WHERE user_id = ?").bind(user.userId).first()).toEqual({ id: siteA });
  });

  it("says which hourly limit held an update back: the site's ten icon updates, or the account's reads of its sites", async () => {
    const host = `icons-limit-${crypto.randomUUID().slice(0, 8)}.com`;
    mockWeb({ [`https://${host}/`]: head('<link rel="icon" href="/i.png">'), [`https://${host}/i.png`]: image() });
    const user = await signUp(undefined, host);
    const siteId = (await env.DB.prepare("SELECT id FROM sites WHERE host = ?").bind(host).first<{ id: string }>())!.id;
    const hour = windowStart(60 * 60_000);
    const spend = (key: string) =>
      env.DB.prepare("INSERT OR REPLACE INTO rate_limits (key, window_start, count) VALUES (?, ?, 1000)").bind(key, hour).run();
    const update = async () => (await post("/mysite/icon", { siteId, redirectTo: "/mysite" }, { cookie: user.cookie })).headers.get("Location");

    await spend(`site-fetch:user:${user.userId}`);
    expect(await update()).toBe("/mysite?notice=site-fetches-limited");
    expect(await read(await get("/mysite?notice=site-fetches-limited", { cookie: user.cookie }))).toContain(messages.tooManySiteFetches);
    await spend(`icon:site:${siteId}`);
    expect(await update()).toBe("/mysite?notice=icon-limited");
    expect(await read(await get("/mysite?notice=icon-limited", { cookie: user.cookie }))).toContain(messages.tooManyIconUpdates);
  });

  it.each([
    ["shortcut icon", '<link rel="shortcut icon" href="favicon.png">', (host: string) => `https://${host}/favicon.png`],
    ["apple-touch-icon only", '<link rel="apple-touch-icon" href="/apple.png">', (host: string) => `https://${host}/apple.png`],
    ["a protocol-relative CDN address", '<link rel="icon" href="//cdn.iconhost.com/i.png">', () => "https://cdn.iconhost.com/i.png"],
    ["an http address, read over https", '<link rel="icon" href="http://cdn.iconhost.com/i.png">', () => "https://cdn.iconhost.com/i.png"],
    [
      "a relative address under <base>",
      '<base href="https://cdn.iconhost.com/assets/"><link rel="icon" href="i.png">',
      () => "https://cdn.iconhost.com/assets/i.png",
    ],
    [
      "the page's own icon before the apple one",
      '<link rel="apple-touch-icon" href="/apple.png"><link rel="icon" href="/own.png">',
      (host: string) => `https://${host}/own.png`,
    ],
  ])("finds %s", async (_, links, expected) => {
    const { user, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head(links),
      [`https://${host}/favicon.png`]: image(),
      [`https://${host}/apple.png`]: image(),
      [`https://${host}/own.png`]: image(),
      "https://cdn.iconhost.com/i.png": image(),
      "https://cdn.iconhost.com/assets/i.png": image(),
    }));
    expect(icon).toBe(expected(user.url));
  });

  it("still tries /favicon.ico when the page names many icons that all fail", async () => {
    const links = [1, 2, 3, 4, 5].map((n) => `<link rel="icon" href="/gone-${n}.png" sizes="${n * 16}x${n * 16}">`).join("");
    const { user, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head(links),
      [`https://${host}/favicon.ico`]: image(new Uint8Array([0, 0, 1, 0, 1, 0, 16, 16]), "image/x-icon"),
    }));
    expect(icon).toBe(`https://${user.url}/favicon.ico`);
  });

  it("falls back to /favicon.ico when the page names no icon and it answers with an image", async () => {
    const { user, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head(""),
      [`https://${host}/favicon.ico`]: image(new Uint8Array([0, 0, 1, 0, 1, 0, 16, 16]), "application/octet-stream"),
    }));
    expect(icon).toBe(`https://${user.url}/favicon.ico`);
  });

  it("skips an icon address over 2,048 characters (sent with every card that shows the site), named or redirected to", async () => {
    const long = `/i.png?${"v".repeat(20_000)}`;
    const { user, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head(`<link rel="icon" href="${long}"><link rel="apple-touch-icon" href="/touch.png">`),
      [`https://${host}${long}`]: image(),
      [`https://${host}/touch.png`]: () => new Response(null, { status: 302, headers: { Location: long } }),
      [`https://${host}/favicon.ico`]: image(),
    }));
    expect(icon).toBe(`https://${user.url}/favicon.ico`);
  });

  it("skips a named icon that is not an image, and keeps the product favicon when nothing answers with one", async () => {
    const { user, icon, response } = await updateIconWith((host) => ({
      [`https://${host}/`]: head('<link rel="icon" href="/missing.png">'),
      [`https://${host}/missing.png`]: html("<h1>Not found</h1>"),
      [`https://${host}/favicon.ico`]: html("Not found", { status: 404 }),
    }));
    expect(icon).toBeNull();
    expect(response.headers.get("Location")).toBe("/mysite/settings?notice=icon-missing");
    const page = await read(await get("/mysite/settings?notice=icon-missing", { cookie: user.cookie }));
    expect(page).toContain(messages.iconNotFound);
    expect(page).toMatch(/<img[^>]*src="\/favicon.svg"[^>]*class="site-icon"/);
  });

  it.each([
    ["cannot be reached for now", unreachable],
    ["names no icon any more", head("")],
  ])("keeps the icon the site had when its home page %s, and says so", async (_, homePage) => {
    const { user, icon } = await updateIconWith((host) => ({
      [`https://${host}/`]: head('<link rel="icon" href="/fav.png">'),
      [`https://${host}/fav.png`]: image(),
    }));
    expect(icon).toBe(`https://${user.url}/fav.png`);
    mockWeb({ [`https://${user.url}/`]: homePage, [`https://${user.url}/favicon.ico`]: html("Not found", { status: 404 }) });
    const again = await post("/mysite/icon", { redirectTo: "/mysite" }, { cookie: user.cookie });
    expect(again.headers.get("Location")).toBe("/mysite?notice=icon-missing");
    expect(await iconOf(user.userId)).toBe(`https://${user.url}/fav.png`);
    const page = await read(await get("/mysite?notice=icon-missing", { cookie: user.cookie }));
    expect(page).toContain(messages.iconNotFound);
    expect(page).toContain(`src="https://${user.url}/fav.png"`);
  });

  it("never stores an icon from a private address the page points to", async () => {
    const { icon, web } = await updateIconWith((host) => ({
      [`https://${host}/`]: head('<link rel="icon" href="http://169.254.169.254/icon.png">'),
    }));
    expect(icon).toBeNull();
    expect(web.urls().some((url) => url.includes("169.254"))).toBe(false);
  });

  it("updates only the signed-in owner's active site", async () => {
    const response = await post("/mysite/icon", { redirectTo: "/mysite" });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toMatch(/^\/login/);

    const owner = await signUp();
    await env.DB.prepare("UPDATE sites SET icon = 'https://owner.example/icon.png' WHERE user_id = ?").bind(owner.userId).run();
    const other = await signUp();
    const ownerSite = (await env.DB.prepare("SELECT id FROM sites WHERE user_id = ?").bind(owner.userId).first<{ id: string }>())!;
    expect((await post("/sites/active", { siteId: ownerSite.id }, { cookie: other.cookie })).status).toBe(403);
    mockWeb({});
    await post("/mysite/icon", { redirectTo: "/mysite" }, { cookie: other.cookie });
    expect(await iconOf(owner.userId)).toBe("https://owner.example/icon.png");
  });
});

describe("the icon at sign-up", () => {
  it("is looked up after the response: the redirect does not wait for the site", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const host = `slow-${crypto.randomUUID().slice(0, 6)}.com`;
    mockWeb({
      [`https://${host}/`]: async () => {
        await gate;
        return new Response('<html><head><link rel="icon" href="/i.png"></head></html>', { headers: { "Content-Type": "text/html" } });
      },
      [`https://${host}/i.png`]: image(),
    });
    // The home page answers only after the sign-up has answered; waiting for it there would never finish.
    const user = await signUp(undefined, host);
    expect(await iconOf(user.userId)).toBeNull();
    release();
    await vi.waitFor(async () => expect(await iconOf(user.userId)).toBe(`https://${host}/i.png`), { timeout: 5_000 });
  });
});

describe("one icon component everywhere", () => {
  it("resolves logo names and https addresses, and falls back to the product favicon, in the site switcher too", async () => {
    const user = await signUp();
    await env.DB.prepare("UPDATE sites SET icon = 'blog' WHERE user_id = ?").bind(user.userId).run();
    const market = await read(await get("/market", { cookie: user.cookie }));
    expect(market).toMatch(/<summary><img[^>]*src="\/logos\/blog.svg"/);
    await env.DB.prepare("UPDATE sites SET icon = 'javascript:alert(1)' WHERE user_id = ?").bind(user.userId).run();
    const fallback = await read(await get("/market", { cookie: user.cookie }));
    expect(fallback).toMatch(/<summary><img[^>]*src="\/favicon.svg"/);
  });
});
