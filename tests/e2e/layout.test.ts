import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { logIn, modes, openPage, proposeInBrowser, PUBLIC_PAGES, sharedChromium, signedInPages, sql, twoVerifiedTraders } from "./browser";

const chromium = sharedChromium();

/** What sticks out past the right edge of the window: the page's width and the outermost elements that overflow. */
async function overflowOn(page: Page, state: string) {
  return page.evaluate((state) => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const sticking = [...document.querySelectorAll("body *")].filter((element) => {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.right <= width + 0.5) return false;
      // Inside a box that scrolls sideways on purpose (a tab row), nothing pushes the page.
      for (let parent = element.parentElement; parent; parent = parent.parentElement) {
        const { overflowX } = getComputedStyle(parent);
        if (overflowX === "auto" || overflowX === "scroll" || overflowX === "hidden") return false;
      }
      return true;
    });
    const outermost = sticking.filter((element) => !sticking.some((other) => other !== element && other.contains(element)));
    return [
      `${state}: ${document.documentElement.scrollWidth} px wide in ${width} px: ${outermost.map((e) => e.outerHTML.slice(0, 120)).join(" | ")}`,
    ];
  }, state);
}

/** What sticks out past the right edge of its card (a field, a button, a table), except inside a box that scrolls sideways. */
async function outOfCards(page: Page, state: string) {
  return page.evaluate((state) => {
    const found: string[] = [];
    for (const card of document.querySelectorAll(".card, .post-card, .counter, .test-purchase")) {
      const edge = card.getBoundingClientRect().right;
      for (const element of card.querySelectorAll("*")) {
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.right <= edge + 0.5) continue;
        let scrolls = false;
        for (let parent = element.parentElement; parent && parent !== card; parent = parent.parentElement) {
          if (["auto", "scroll", "hidden"].includes(getComputedStyle(parent).overflowX)) scrolls = true;
        }
        if (!scrolls) found.push(`${state}: ${Math.round(box.right - edge)} px out of its card: ${element.outerHTML.slice(0, 120)}`);
      }
    }
    return found.slice(0, 3);
  }, state);
}

/**
 * Words of up to 15 letters broken across two lines: a label squeezed narrower than itself ("Edi" above "t"). Text a
 * user typed (`.user-text`) may break, where one word is longer than its line.
 */
async function brokenWords(page: Page, state: string) {
  return page.evaluate((state) => {
    const found = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest(".visually-hidden, .user-text")) continue;
      for (const word of (node.textContent ?? "").matchAll(/[\p{L}\p{N}'’]{2,15}/gu)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
        if (lines.size > 1) found.add(`${state}: "${word[0]}" broken in ${node.parentElement?.outerHTML.slice(0, 100)}`);
      }
    }
    return [...found].slice(0, 3);
  }, state);
}

describe.each(modes)("no page scrolls sideways, nothing sticks out of its card and no label breaks mid-word, on a narrow phone $name", ({ js }) => {
  it.each([320, 375])("at %i px: public pages, signed-in pages and the open panels", async (width) => {
    const { buyer, seller, listingId } = await twoVerifiedTraders(`narrow${width}`);
    // A description with a word longer than a phone's line (a pasted address, say): its card and its panel must wrap it.
    sql(`UPDATE sites SET description = 'Pasted ${"x".repeat(120)} here' WHERE host = '${seller.host}'`);
    const { page, close } = await openPage(chromium(), js, width);
    const found: string[] = [];
    const visit = async (path: string) => {
      await page.goto(path);
      found.push(...(await overflowOn(page, path)), ...(await outOfCards(page, path)), ...(await brokenWords(page, path)));
    };
    for (const path of [...PUBLIC_PAGES, "/no-such-page"]) {
      await visit(path);
    }
    await logIn(page, buyer.email);
    // An offer, so its panel can be looked at too.
    const offerId = await proposeInBrowser(page, listingId);
    for (const path of [...signedInPages(listingId), `/mysite/offers?offer=${offerId}`]) {
      await visit(path);
    }
    await close();
    expect(found).toEqual([]);
  });
});
