import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";

import { applyMigrations, queryLocal, startWorker } from "../../scripts/lib.mjs";

export const baseURL = () => inject("baseURL");

/** Runs SQL on the e2e database: setting up what a test is not about, and reading what the database holds. */
export function sql<T = Record<string, unknown>>(statement: string): T[] {
  return queryLocal(statement, inject("persistTo")) as T[];
}
export const PASSWORD = "Tr4de-Links-Now";

/**
 * A Worker of its own for the tests of a `describe`, with its own database and these variables (what the shared one
 * does not have configured), on `E2E_PORT + offset` (clear of the bench, Lighthouse and search-load ports, 8793 to
 * 8797): its origin.
 */
export function workerOfItsOwn(offset: number, vars: Record<string, string>): string {
  const port = Number(process.env.E2E_PORT ?? 8791) + offset;
  const origin = `http://localhost:${port}`;
  let worker: { stop: () => void } | undefined;
  let persistTo = "";
  beforeAll(async () => {
    persistTo = mkdtempSync(join(tmpdir(), "e2e-own-"));
    applyMigrations(persistTo);
    worker = await startWorker({ port, persistTo, vars: { APP_URL: origin, SIGNUP_DELAY_MS: "0", ...vars } });
  }, 120_000);
  afterAll(() => {
    worker?.stop();
    rmSync(persistTo, { recursive: true, force: true });
  });
  return origin;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run"],
  });
}

/** One Chromium per test file: launched before its tests, closed after them. */
export function sharedChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error("Chromium is not running");
    return browser;
  };
}

/** The browser contexts with JavaScript (`openPage`, `hydratingGoto`): their pages wait to hydrate after a navigation. */
const scriptedContexts = new WeakSet<BrowserContext>();

/**
 * With JavaScript, waits until the page shown has hydrated (`html[data-hydrated]`, set by app/root.tsx). After a
 * navigation React made, it has; after a full page load (a form the server answered with a redirect, a link clicked
 * before React listened) the page's own scripts may still be starting, and a click then would be the browser's. Any
 * page of a context made with JavaScript counts, a second tab too.
 */
export async function untilHydrated(page: Page) {
  if (scriptedContexts.has(page.context())) await page.waitForSelector("html[data-hydrated]", { state: "attached" });
}

/** From now on the page's `goto` waits until the page has hydrated, so a test never clicks before React listens. */
export function hydratingGoto(page: Page) {
  scriptedContexts.add(page.context());
  const goto = page.goto.bind(page);
  page.goto = async (...args: Parameters<Page["goto"]>) => {
    const response = await goto(...args);
    await untilHydrated(page);
    return response;
  };
}

/**
 * A page in a fresh context; errors on the page and in the console (every one, 4xx answers included) fail the
 * test that reads `errors`. With JavaScript, `goto` waits until the page has hydrated.
 */
export async function openPage(browser: Browser, javaScriptEnabled: boolean, width = 1280, timezoneId?: string) {
  const context = await browser.newContext({ baseURL: baseURL(), javaScriptEnabled, viewport: { width, height: 900 }, timezoneId });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`${message.text()} (${message.location().url})`);
  });
  if (javaScriptEnabled) hydratingGoto(page);
  return { page, errors, close: () => context.close() };
}

/** The console errors of answers a test caused on purpose (a refused form answers 4xx), and nothing else. */
export function unexpected(errors: string[], ...statuses: number[]) {
  return errors.filter((error) => !statuses.some((status) => error.includes(`status of ${status}`)));
}

export function newEmail(prefix: string) {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

/** Creates an account through the real sign-up form post (no browser needed), on the shared Worker or at `base`. */
export async function createAccount(prefix = "e2e", base = baseURL()) {
  const email = newEmail(prefix);
  const host = `${prefix}-${crypto.randomUUID().slice(0, 6)}.com`;
  const response = await fetch(`${base}/signup`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({
      intent: "create",
      email,
      password: PASSWORD,
      url: host,
      description: "An e2e test site with a long enough description.",
    }),
  });
  if (response.status !== 302) throw new Error(`sign-up failed with ${response.status}`);
  return { email, host };
}

/**
 * Two accounts whose sites are verified, the seller's listed at `connects` (made in the database: the setup a test
 * is not about).
 */
export async function twoVerifiedTraders(prefix: string, { connects = 5, contentTypes = ["blog-post"] } = {}) {
  const buyer = await createAccount(`${prefix}-buyer`);
  const seller = await createAccount(`${prefix}-seller`);
  const listingId = crypto.randomUUID();
  sql(
    `UPDATE sites SET verified = 1, verified_at = ${Date.now()} WHERE host IN ('${buyer.host}', '${seller.host}');
     INSERT INTO listings (id, site_id, user_id, connects, content_types, materials)
     SELECT '${listingId}', id, user_id, ${connects}, '${JSON.stringify(contentTypes)}', '["logo"]' FROM sites WHERE host = '${seller.host}';`,
  );
  return { buyer, seller, listingId };
}

export async function logIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/login");
  await page.fill('.modal input[name="email"]', email);
  await page.fill('.modal input[name="password"]', password);
  await page.click('.modal button[type="submit"]');
  await page.waitForURL("**/market");
  await untilHydrated(page);
}

export const modes = [
  { name: "with JavaScript", js: true },
  { name: "without JavaScript", js: false },
];

/** Signs up through the two steps of the sign-up modal, as a new user does, and lands on /market. */
export async function signUpInBrowser(page: Page, email: string, host: string) {
  await page.goto("/signup");
  await page.fill('.modal input[name="email"]', email);
  await page.fill('.modal input[name="password"]', PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.fill('.modal input[name="url"]', host);
  await page.fill('.modal textarea[name="description"]', "A new site that wants to trade links with others.");
  await page.getByRole("button", { name: "Create Account" }).click();
  await page.waitForURL("**/market");
  await untilHydrated(page);
}

/** Verifies the page's active site as its owner does offline: tag from /mysite/verify, published in the sandbox, checked. */
export async function verifyActiveSite(page: Page, host: string) {
  await page.goto("/mysite/verify");
  const tag = await page.inputValue("#verification-tag");
  await page.goto(`/dev/sites?host=${encodeURIComponent(host)}&tag=${encodeURIComponent(tag)}`);
  await page.getByRole("button", { name: "Publish" }).click();
  await page.getByText(`Published ${host}/`).waitFor();
  await page.goto("/mysite/verify");
  await page.getByRole("button", { name: /^Check/ }).click();
  await page.getByRole("link", { name: "Verified", exact: true }).waitFor();
}

/** Publishes a page in the development web sandbox (what the product reads for that address), as /dev/sites does. */
export async function publishPage(host: string, path: string, body: string, contentType = "text/html; charset=utf-8") {
  const response = await fetch(`${baseURL()}/dev/sites`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ intent: "publish", host, path, contentType, body }),
  });
  if (response.status >= 400) throw new Error(`publishing ${host}${path} failed with ${response.status}`);
}

export async function removePage(host: string, path: string) {
  const response = await fetch(`${baseURL()}/dev/sites`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ intent: "remove", host, path }),
  });
  if (response.status >= 400) throw new Error(`removing ${host}${path} failed with ${response.status}`);
}

/** The public pages a sweep (axe, the narrow-screen check) opens. */
export const PUBLIC_PAGES = ["/", "/?slide=1", "/login", "/signup", "/reset-password", "/add-site?source=hero", "/newbeta", "/privacy", "/briefs"];

/** The signed-in pages a sweep opens, with the panel of the listing given and the feedback dialog open. */
export function signedInPages(listingId: string) {
  return [
    "/market",
    "/market?sort=record",
    "/market?feedback=true",
    `/market?post=${listingId}`,
    "/search",
    "/search/blog",
    "/search?term=blog&sort=record",
    // The panel over the results.
    `/search/blog?post=${listingId}`,
    // No match, and a long word in the title that must wrap on a phone.
    "/search?term=zzzzqqqzzzzqqqzzzzqqqzzzzqqqzzzzqqq",
    "/mysite",
    "/mysite?feedback=true",
    "/mysite/offers",
    "/mysite/messages",
    "/mysite/connects",
    "/mysite/settings",
    "/mysite/verify",
    "/mysite/your-score",
    "/add-site?source=market",
    "/sites/new?back=%2Fmarket",
  ];
}

/** Sends a proposal from the post's panel on the market (a blog post for a feature), as a signed-in buyer does; its offer id. */
export async function proposeInBrowser(page: Page, listingId: string): Promise<string> {
  await page.goto(`/market?post=${listingId}`);
  const proposal = page.locator(".proposal");
  await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
  await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
  await page.getByRole("button", { name: /^Send offer/ }).click();
  await page.waitForURL(/notice=offer-sent/);
  const [offer] = sql<{ id: string }>(`SELECT id FROM offers WHERE listing_id = '${listingId}' ORDER BY created_at DESC LIMIT 1`);
  return offer!.id;
}
