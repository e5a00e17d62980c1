import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import {
  createAccount,
  logIn,
  modes,
  openPage,
  PASSWORD,
  proposeInBrowser,
  publishPage,
  sharedChromium,
  sql,
  twoVerifiedTraders,
  unexpected,
} from "./browser";

const chromium = sharedChromium();

/** What a screen reader would call the focused control, with its field name: enough to find it by. */
function focusedControl(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLInputElement | null;
    if (!element || element === document.body) return "";
    const own = element.tagName === "INPUT" || element.tagName === "TEXTAREA" ? "" : element.textContent;
    return [element.getAttribute("aria-label"), own, element.closest("label")?.textContent, element.getAttribute("name")]
      .filter(Boolean)
      .join(" | ")
      .replace(/\s+/g, " ")
      .trim();
  });
}

/** Presses Tab until the focused control matches, as a keyboard user does. */
async function tabTo(page: Page, control: RegExp, key = "Tab") {
  for (let presses = 0; presses < 200; presses++) {
    await page.keyboard.press(key);
    if (control.test(await focusedControl(page))) return;
  }
  throw new Error(`${key} never reached ${control}`);
}

/** In a radio group, the arrow keys move the choice until the focused radio matches (Space picks the first one). */
async function arrowTo(page: Page, choice: RegExp) {
  for (let presses = 0; presses < 12; presses++) {
    if (choice.test(await focusedControl(page))) {
      if (!(await page.evaluate(() => (document.activeElement as HTMLInputElement).checked))) await page.keyboard.press("Space");
      return;
    }
    await page.keyboard.press("ArrowRight");
  }
  throw new Error(`the arrow keys never reached ${choice}`);
}

async function logInByKeyboard(page: Page, email: string) {
  await page.goto("/login");
  await tabTo(page, /email/);
  await page.keyboard.type(email);
  await tabTo(page, /password/);
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Enter");
  await page.waitForURL("**/market");
}

async function tradersWithPages() {
  const { buyer: a, seller: b, listingId } = await twoVerifiedTraders("k", { contentTypes: ["feature"] }); // short hosts: cards show at most 19 characters of one
  await publishPage(a.host, "/post", `<h1>A post</h1><p>Read <a href="https://${b.host}/">${b.host}</a>.</p>`);
  await publishPage(b.host, "/feature", `<h1>A feature</h1><p>Thanks to <a href="https://${a.host}/">our partner</a>.</p>`);
  return { a, b, listingId };
}

/**
 * With JavaScript the page shows In Progress at once, before the server has saved it; a test types faster than
 * anyone, so it waits for the saved state before completing.
 */
async function startSaved(host: string) {
  const status = () =>
    sql<{ status: string }>(`SELECT e.status FROM offer_entries e JOIN sites s ON s.id = e.site_id WHERE s.host = '${host}'`)[0]?.status;
  await expect.poll(status).toBe("in_progress");
}

/** In an open accepted trade: Start, then the content url and Mark completed, all from the keyboard. */
async function deliverByKeyboard(page: Page, host: string, contentUrl: string) {
  await page.getByRole("button", { name: "Start" }).waitFor();
  await tabTo(page, /^Start( \||$)/);
  await page.keyboard.press("Enter");
  await startSaved(host);
  await tabTo(page, /contentUrl/);
  await page.keyboard.type(contentUrl);
  await tabTo(page, /^Mark completed( \||$)/);
  await page.keyboard.press("Enter");
}

describe.each(modes)("by keyboard alone $name", ({ js }) => {
  it("a whole trade: proposal, acceptance, both deliveries, Completed", async () => {
    const { a, b } = await tradersWithPages();

    const aSide = await openPage(chromium(), js);
    const aPage = aSide.page;
    await logInByKeyboard(aPage, a.email);
    await aPage.goto(`/search?term=${b.host}`);
    await tabTo(aPage, new RegExp(b.host.replace(/\./g, "\\.")));
    await aPage.keyboard.press("Enter");
    await aPage.getByRole("heading", { name: "Your proposal" }).waitFor();
    await tabTo(aPage, /myContentType/);
    await arrowTo(aPage, /Blog post/);
    await tabTo(aPage, /theirContentType/);
    await arrowTo(aPage, /Feature/);
    await tabTo(aPage, /Send offer for 5 connects/);
    await aPage.keyboard.press("Enter");
    const toast = aPage.getByRole("status").filter({ hasText: messages.offerSent });
    await toast.waitFor();
    // The toast can be dismissed from the keyboard.
    await tabTo(aPage, /Dismiss/);
    await aPage.keyboard.press("Enter");
    await expect.poll(() => toast.count()).toBe(0);

    const bSide = await openPage(chromium(), js);
    const bPage = bSide.page;
    await logInByKeyboard(bPage, b.email);
    await bPage.goto("/mysite/offers");
    await tabTo(bPage, new RegExp(a.host.replace(/\./g, "\\.")));
    await bPage.keyboard.press("Enter");
    await bPage.getByRole("button", { name: "Accept" }).waitFor();
    await tabTo(bPage, /Long description/);
    await bPage.keyboard.press("Space");
    await tabTo(bPage, /^Accept( \||$)/);
    await bPage.keyboard.press("Enter");
    if (js) {
      // Accept is gone with the pending state: focus is on the panel's title (not lost to the page) and the saved
      // state is announced.
      await bPage.getByRole("status").filter({ hasText: "Saved. Offer: Accepted. Your side: Not Started." }).waitFor({ state: "attached" });
      await expect.poll(() => bPage.evaluate(() => document.activeElement?.id)).toBe("offer-title");
    }
    await deliverByKeyboard(bPage, b.host, `https://${b.host}/feature`);
    await bPage.getByText(`Link to ${a.host}: followed`).waitFor();

    await aPage.goto("/mysite/offers");
    await tabTo(aPage, new RegExp(b.host.replace(/\./g, "\\.")));
    await aPage.keyboard.press("Enter");
    await deliverByKeyboard(aPage, a.host, `https://${a.host}/post`);
    await aPage.getByRole("dialog").locator(".panel-head .status", { hasText: "Completed" }).waitFor();

    const entries = sql<{ status: string }>(
      `SELECT e.status FROM offer_entries e JOIN offers o ON o.id = e.offer_id JOIN sites s ON s.id = o.receiver_site_id WHERE s.host = '${b.host}'`,
    );
    expect(entries.map((entry) => entry.status)).toEqual(["completed", "completed"]);
    const [sender] = sql<{ provide_materials: string }>(
      `SELECT e.provide_materials FROM offer_entries e JOIN offers o ON o.id = e.offer_id JOIN sites s ON s.id = o.receiver_site_id WHERE s.host = '${b.host}' AND e.role = 'sender'`,
    );
    expect(JSON.parse(sender!.provide_materials)).toContain("long-description");
    expect(unexpected(aSide.errors)).toEqual([]);
    expect(unexpected(bSide.errors)).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

describe.each(modes)("the skip link $name", ({ js }) => {
  it("is the first stop on a page with a header and takes the keyboard past the header to the page's content", async () => {
    const account = await createAccount("skip");
    const { page, errors, close } = await openPage(chromium(), js);
    const insideMain = () => page.evaluate(() => Boolean(document.activeElement?.closest("main#main")));
    for (const path of ["/", "/market", "/mysite/connects"]) {
      if (path === "/market") await logIn(page, account.email);
      await page.goto(path);
      await page.keyboard.press("Tab");
      expect(await focusedControl(page)).toBe("Skip to content");
      // On screen while it has the focus (it waits above the page otherwise).
      expect((await page.getByRole("link", { name: "Skip to content" }).boundingBox())!.y).toBeGreaterThanOrEqual(0);
      await page.keyboard.press("Enter");
      // With JavaScript the focus moves without a new address (a "#main" navigation would show a notice again).
      if (js) expect(page.url()).not.toContain("#main");
      await page.keyboard.press("Tab");
      expect(await insideMain()).toBe(true);
      // The main took focus only for the skip: a click on its text must not focus it and send Tab back to its top.
      expect(await page.locator("main#main").getAttribute("tabindex")).toBeNull();
    }
    expect(errors).toEqual([]);
    await close();
  });
});

describe.each(modes)("a page that is a dialog over the header $name", ({ js }) => {
  it("keeps the keyboard inside the dialog, out of the header and the page behind it, and has no skip link", async () => {
    const account = await createAccount("behind");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, account.email);
    for (const path of ["/feedback", "/sites/new?back=/market", "/market?feedback=true", "/mysite?feedback=true"]) {
      await page.goto(path);
      await page.getByRole("dialog").waitFor();
      expect(await page.getByRole("link", { name: "Skip to content" }).count()).toBe(0);
      for (let presses = 0; presses < 12; presses++) {
        await page.keyboard.press("Tab");
        const where = await page.evaluate(() => (document.activeElement?.closest('[role="dialog"]') ? "dialog" : document.activeElement?.tagName));
        expect(["dialog", "BODY"], path).toContain(where);
      }
    }
    // Without a website the first one cannot be skipped: the dialog itself offers the way out.
    sql(`DELETE FROM sites WHERE host = '${account.host}'`);
    await page.goto("/market");
    await page.getByRole("dialog").waitFor();
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    expect(errors).toEqual([]);
    await close();
  });
});

describe.each(modes)("a panel over a page $name", ({ js }) => {
  it("keeps the keyboard in the trade terms and the offer, out of the header, the navigation and the list behind them", async () => {
    const { buyer, listingId } = await twoVerifiedTraders("kpanel", { contentTypes: ["feature"] });
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    const offerId = await proposeInBrowser(page, listingId);
    const where = () => page.evaluate(() => (document.activeElement?.closest('[role="dialog"]') ? "dialog" : document.activeElement?.tagName));
    for (const path of [`/market?post=${listingId}`, `/search?post=${listingId}`, `/mysite/offers?offer=${offerId}`]) {
      await page.goto(path);
      await page.getByRole("dialog").waitFor();
      expect(await page.getByRole("link", { name: "Skip to content" }).count(), path).toBe(0);
      for (const key of ["Tab", "Shift+Tab"]) {
        for (let presses = 0; presses < 10; presses++) {
          await page.keyboard.press(key);
          expect(["dialog", "BODY"], `${path} ${key}`).toContain(await where());
        }
      }
      // Closed, the header is in reach again.
      await page.getByRole("link", { name: "Close", exact: true }).click();
      await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
      await tabTo(page, /^Backlink Market home/);
    }
    expect(unexpected(errors)).toEqual([]);
    await close();
  });
});

describe.each(modes)("Settings by keyboard alone $name", ({ js }) => {
  it("opens the description from its text, edits it and saves", async () => {
    const { a } = await tradersWithPages();
    const { page, errors, close } = await openPage(chromium(), js);
    await logInByKeyboard(page, a.email);
    await page.goto("/mysite/settings");
    await tabTo(page, /Edit$/);
    await page.keyboard.press("Enter");
    // With JavaScript the field takes the focus as it opens; without, the next Tab reaches it.
    if (!js) await page.keyboard.press("Tab");
    await expect.poll(() => focusedControl(page)).toBe("Description | description");
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Typed from the keyboard, saved from the keyboard.");
    await tabTo(page, /^Save$/);
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Settings saved" }).waitFor();
    const [site] = sql<{ description: string }>(`SELECT description FROM sites WHERE host = '${a.host}'`);
    expect(site!.description).toBe("Typed from the keyboard, saved from the keyboard.");
    expect(errors).toEqual([]);
    await close();
  });
});

describe("dialogs and panels with JavaScript", () => {
  it("keep focus inside while open, close on Escape, and give focus back to what opened them", async () => {
    const { a, b, listingId } = await tradersWithPages();
    const { page, errors, close } = await openPage(chromium(), true, 375);
    await logInByKeyboard(page, a.email);
    // Focus moves in an effect after the dialog renders (after hydration, for one opened by its address): polled.
    const insideDialog = () => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')));

    // The trade panel, opened from a post card.
    await tabTo(page, new RegExp(b.host.replace(/\./g, "\\.")));
    const card = await page.evaluate(() => (document.activeElement as HTMLAnchorElement).getAttribute("href"));
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Your proposal" }).waitFor();
    await expect.poll(insideDialog).toBe(true);
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press(presses % 3 === 0 ? "Shift+Tab" : "Tab");
      expect(await insideDialog()).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".slide-out").count()).toBe(0);
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLAnchorElement).getAttribute("href"))).toBe(card);

    // The feedback modal, opened from its button.
    await tabTo(page, /^Feedback$/);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Send us feedback" }).waitFor();
    await expect.poll(insideDialog).toBe(true);
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press("Tab");
      expect(await insideDialog()).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".modal").count()).toBe(0);
    await expect.poll(() => focusedControl(page)).toBe("Feedback");

    // A panel opened by its address gets focus too.
    await page.goto(`/market?post=${listingId}`);
    await expect.poll(insideDialog).toBe(true);
    expect(errors).toEqual([]);
    await close();
  });

  it("the offer panel keeps the keyboard's place as it turns to the profile and back, and after its offer goes to the trash", async () => {
    const { buyer: a, seller: b, listingId } = await twoVerifiedTraders("kp", { contentTypes: ["feature"] });
    const { page, errors, close } = await openPage(chromium(), true);
    await logInByKeyboard(page, a.email);
    const offerId = await proposeInBrowser(page, listingId);
    const focusedId = () => page.evaluate(() => document.activeElement?.id ?? "");
    // A page loaded without a panel leaves the keyboard at the page's start.
    await page.goto("/mysite/offers");
    await page.waitForTimeout(300);
    expect(await focusedId()).toBe("");
    await page.goto(`/mysite/offers?offer=${offerId}`);
    const focusedText = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");

    await tabTo(page, /^View profile$/);
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "← Back to the offer" }).waitFor();
    await expect.poll(focusedId).toBe("offer-title");
    expect(await focusedText()).toBe(b.host);
    await tabTo(page, /Back to the offer/, "Shift+Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "View profile" }).waitFor();
    await expect.poll(focusedId).toBe("offer-title");

    // Rescinded, then moved to the trash: the panel closes over a list without it.
    await tabTo(page, /^Rescind offer( \||$)/);
    await page.keyboard.press("Enter");
    await tabTo(page, /^Move to trash( \||$)/);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator(".slide-out").count()).toBe(0);
    await expect.poll(focusedId).toBe("offers-title");
    expect(errors).toEqual([]);
    await close();
  });

  it("header menus close after a choice, on Escape (focus back on their button) and on a click outside", async () => {
    const { email } = await createAccount("menus");
    const { page, errors, close } = await openPage(chromium(), true, 375);
    await logIn(page, email);
    const menuOpen = () => page.evaluate(() => document.querySelector<HTMLDetailsElement>(".app-menu")!.open);
    await page.click(".app-menu summary");
    await page.locator(".app-menu").getByRole("link", { name: "Offers" }).click();
    await page.waitForURL("**/mysite/offers");
    await expect.poll(menuOpen).toBe(false);

    await page.click(".app-menu summary");
    expect(await menuOpen()).toBe(true);
    await page.keyboard.press("Escape");
    expect(await menuOpen()).toBe(false);
    expect(await focusedControl(page)).toBe("Menu");

    await page.click(".app-menu summary");
    // A press on the page outside the menu (the open panel covers the top of the page at this width).
    await page.evaluate(() => document.querySelector("main")!.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true })));
    expect(await menuOpen()).toBe(false);
    await page.click(".site-switcher summary");
    await page.keyboard.press("Escape");
    expect(await page.evaluate(() => document.querySelector<HTMLDetailsElement>(".site-switcher")!.open)).toBe(false);
    expect(errors).toEqual([]);
    await close();
  });
});
