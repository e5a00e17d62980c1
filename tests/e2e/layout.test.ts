import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { logIn, modes, openPage, PUBLIC_PAGES, sharedChromium, signedInPages, sql, twoVerifiedTraders } from "./browser";

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

describe.each(modes)("no page scrolls sideways on a narrow phone $name", ({ js }) => {
  it.each([320, 375])("at %i px: public pages, signed-in pages and the open panels", async (width) => {
    const { buyer, seller, listingId } = await twoVerifiedTraders(`narrow${width}`);
    // A description with a word longer than a phone's line (a pasted address, say): its card and its panel must wrap it.
    sql(`UPDATE sites SET description = 'Pasted ${"x".repeat(120)} here' WHERE host = '${seller.host}'`);
    const { page, close } = await openPage(chromium(), js, width);
    const found: string[] = [];
    const visit = async (path: string) => {
      await page.goto(path);
      found.push(...(await overflowOn(page, path)));
    };
    for (const path of [...PUBLIC_PAGES, "/no-such-page"]) {
      await visit(path);
    }
    await logIn(page, buyer.email);
    // An offer, so its panel can be looked at too.
    await page.goto(`/market?post=${listingId}`);
    const proposal = page.locator(".proposal");
    await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
    await page.getByRole("button", { name: /^Send offer/ }).click();
    await page.waitForURL(/notice=offer-sent/);
    const [offer] = sql<{ id: string }>(`SELECT id FROM offers WHERE listing_id = '${listingId}'`);
    for (const path of [...signedInPages(listingId), `/mysite/offers?offer=${offer!.id}`]) {
      await visit(path);
    }
    await close();
    expect(found).toEqual([]);
  });
});
