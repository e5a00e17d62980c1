import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  baseURL,
  hydratingGoto,
  logIn,
  modes,
  PASSWORD,
  PUBLIC_PAGES,
  sharedChromium,
  signedInPages,
  sql,
  twoVerifiedTraders,
  untilHydrated,
} from "./browser";

const chromium = sharedChromium();
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Without JavaScript, Chromium runs no script at all, axe included (its queue waits on timers that never fire).
 * So a page "without JavaScript" is the server's HTML with every script taken out, in a context where axe can run:
 * nothing hydrates, links and forms are plain navigations, as for a visitor with JavaScript off. (The only
 * `<noscript>` content is a meta refresh, which has nothing to check.)
 */
async function withoutScripts(context: BrowserContext) {
  await context.route("**/*", async (route) => {
    if (route.request().resourceType() !== "document") return route.continue();
    const response = await route.fetch({ maxRedirects: 0 });
    const html = (await response.text()).replace(/<script\b[\s\S]*?<\/script>/gi, "").replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "");
    await route.fulfill({ response, body: html });
  });
}

interface Violation {
  state: string;
  rule: string;
  impact: string | null | undefined;
  help: string;
  targets: string[];
  why: string | undefined;
}

/**
 * Every violation axe finds on the page at rest, of any impact (best practices included). Animations are stopped
 * first: caught in the middle of a modal's fade-in, text reads lighter than it ends up.
 */
async function violationsOn(page: Page, state: string): Promise<Violation[]> {
  await page.addStyleTag({ content: "*, *::before, *::after { animation: none !important; transition: none !important; }" });
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const results = await page.evaluate(() =>
    (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe.run(document, {
      resultTypes: ["violations"],
      // The visible label of a control must be part of its accessible name (experimental in axe, checked by Lighthouse).
      rules: { "label-content-name-mismatch": { enabled: true } },
    }),
  );
  return results.violations.map((violation) => ({
    state,
    rule: violation.id,
    impact: violation.impact,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(" ")),
    why: violation.nodes[0]?.failureSummary,
  }));
}
interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

const widths = [375, 1280];
const isMarketOrSearch = (path: string) => path.startsWith("/market") || path.startsWith("/search");

/** A browser at one width, with or without JavaScript, and what axe found on each page it was asked to check. */
async function axeSession(js: boolean, width: number) {
  const context = await chromium().newContext({ baseURL: baseURL(), bypassCSP: true, viewport: { width, height: 900 } });
  if (!js) await withoutScripts(context);
  const page = await context.newPage();
  if (js) hydratingGoto(page);
  const found: Violation[] = [];
  const check = async (state: string) => {
    await untilHydrated(page);
    found.push(...(await violationsOn(page, `${state} (${page.url().replace(baseURL(), "")})`)));
  };
  const visit = async (path: string, state = path) => {
    await page.goto(path);
    await check(state);
  };
  /** Closes the browser context and returns every violation found, for one assertion at the end. */
  const finish = async () => {
    await context.close();
    return found;
  };
  return { page, check, visit, finish };
}

/** An axe session signed in as the buyer of two new verified traders, the seller's site listed. */
async function signedInAxeSession(js: boolean, width: number) {
  const session = await axeSession(js, width);
  const traders = await twoVerifiedTraders("a11y");
  await logIn(session.page, traders.buyer.email);
  return { ...session, ...traders };
}

// Each page is checked in its own state; the pages are split over three tests per width so that none comes near the
// test timeout on a loaded machine (one test for all of them took 60 s once in CI, without JavaScript at 375 px).
describe.each(modes)("axe finds no violation $name", ({ js }) => {
  describe.each(widths)("at %i px", (width) => {
    it("on the public pages, and the login and sign-up forms with their messages", async () => {
      const { page, check, visit, finish } = await axeSession(js, width);
      for (const path of PUBLIC_PAGES) {
        await visit(path);
      }
      await visit("/no-such-page", "not found");
      await visit("/reset-password?token=not-a-token", "reset with a bad link");
      await visit("/unsubscribe?token=not-a-token", "unsubscribe with a bad link");

      await page.goto("/login");
      await page.fill('.modal input[name="email"]', "nobody@example.com");
      await page.fill('.modal input[name="password"]', "wrong-password");
      await page.click('.modal button[type="submit"]');
      await page.locator(".modal .form-error").waitFor();
      await check("login refused");

      // A field's message (with JavaScript beside a grey Continue; without it, the server's answer).
      await page.goto("/signup");
      await page.fill('.modal input[name="email"]', "ann..lee@example.com");
      await page.fill('.modal input[name="password"]', PASSWORD);
      if (!js) await page.getByRole("button", { name: "Continue" }).click();
      await page.locator("#signup-email-error", { hasText: /./ }).waitFor();
      await check("sign-up, a field's message");
      await page.fill('.modal input[name="email"]', `a11y-${crypto.randomUUID().slice(0, 8)}@example.com`);
      await page.fill('.modal input[name="password"]', PASSWORD);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.locator('.modal input[name="url"]').waitFor();
      await check("sign-up, second step");

      expect(await finish()).toEqual([]);
    });

    it("on the market's and search's pages signed in, with the site switcher and the menu open", async () => {
      const { page, check, visit, finish, listingId } = await signedInAxeSession(js, width);
      await check("market");
      for (const path of signedInPages(listingId).filter((path) => path !== "/market" && isMarketOrSearch(path))) {
        await visit(path);
      }
      await visit("/market?post=no-such-post", "a post no longer available");

      await page.click(".site-switcher summary");
      await check("site switcher open");
      if (width < 700) {
        await page.goto("/market");
        await page.click(".app-menu summary");
        await check("menu open");
      }

      expect(await finish()).toEqual([]);
    });

    it("on every other signed-in page, with the description editor open", async () => {
      const { page, check, visit, finish, listingId } = await signedInAxeSession(js, width);
      for (const path of signedInPages(listingId).filter((path) => !isMarketOrSearch(path))) {
        await visit(path);
      }

      await page.goto("/mysite/settings");
      await page.click(".description-edit summary");
      await page.getByRole("textbox", { name: "Description" }).waitFor();
      await check("settings, description open");

      expect(await finish()).toEqual([]);
    });

    it("on a proposal refused or not ready, the offer sent, its panel and a chat with the seller", async () => {
      const { page, check, visit, finish, seller, listingId } = await signedInAxeSession(js, width);

      // With JavaScript a proposal with nothing chosen has a grey button, what is missing beside it, and a message in
      // a group the user left; without it, the refused proposal shows the server's messages in the groups.
      await page.goto(`/market?post=${listingId}`);
      const proposal = page.locator(".proposal");
      if (js) {
        const blogPost = proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" });
        await blogPost.click();
        await blogPost.click();
        await page.locator(".slide-out .field-error", { hasText: /./ }).waitFor();
        await check("proposal not ready");
      } else {
        await page.getByRole("button", { name: /^Send offer/ }).click();
        await page.locator(".slide-out .field-error", { hasText: /./ }).first().waitFor();
        await check("proposal refused");
      }

      await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
      await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
      await page.getByRole("button", { name: /^Send offer/ }).click();
      await page.waitForURL(/notice=offer-sent/);
      // The address changes before the page does: the notice is what was sent to be checked.
      await page.getByRole("status").filter({ hasText: "Offer sent" }).waitFor();
      await check("offer sent notice");
      const [offer] = sql<{ id: string }>(`SELECT id FROM offers WHERE listing_id = '${listingId}' ORDER BY created_at DESC LIMIT 1`);
      await visit(`/mysite/offers?offer=${offer!.id}`, "offer panel");
      await page
        .getByRole("button", { name: /Message/ })
        .first()
        .click();
      await page.waitForURL(/chatId=/);
      await page.locator("#chat-text").waitFor();
      await check("chat");

      expect(await finish(), `seller ${seller.host}`).toEqual([]);
    });
  });
});
