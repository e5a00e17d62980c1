import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { modes, newEmail, openPage, sharedChromium, signUpInBrowser, sql, unexpected, untilHydrated } from "./browser";

const chromium = sharedChromium();

const ICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" fill="#0a7"/></svg>';

describe.each(modes)("verifying a new site through the dev web sandbox $name", ({ js }) => {
  it("a new user signs up, publishes the tag, verifies, sees Verified, picks up the icon and sends a proposal", async () => {
    const { page, errors, close } = await openPage(chromium(), js, js ? 1280 : 375);
    const host = `verify-${crypto.randomUUID().slice(0, 6)}.com`;
    await signUpInBrowser(page, newEmail("verify"), host);

    // Unverified: the market says so above the posts, and so does a post's panel, which leads to the Verify Site page.
    await page.locator("main").getByText(messages.verifyBanner).first().waitFor();
    await page.locator('[data-testid="post-card"]').first().click();
    const panel = page.getByRole("dialog");
    await panel.getByText(messages.verifyBanner).waitFor();
    await panel.getByRole("link", { name: "Get verified" }).click();
    await page.waitForURL("**/mysite/verify");
    await page.getByRole("link", { name: "Not verified" }).waitFor();
    const tag = await page.inputValue("#verification-tag");
    expect(tag).toMatch(/^<meta name="backlink-verification" content="[a-z2-7]+">$/);

    // The copy button needs JavaScript; the field can be selected either way.
    expect(await page.getByRole("button", { name: "Copy" }).count()).toBe(js ? 1 : 0);
    if (js) {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
      await page.getByRole("button", { name: "Copy" }).click();
      await page.getByRole("status").filter({ hasText: "Copied" }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tag);
    }

    // Nothing is published for the host yet: the check says what went wrong, and the button reads Check again.
    if (js) {
      // Hold the checks' answers a moment, so the spinner they show can be seen.
      await page.route("**/mysite/verify**", async (route) => {
        if (route.request().method() === "POST") await new Promise((resolve) => setTimeout(resolve, 700));
        await route.continue();
      });
    }
    await page.getByRole("button", { name: "Check", exact: true }).click();
    if (js) await page.getByRole("status", { name: "Checking" }).waitFor();
    await page.getByText(messages.fetchNameNotFound).waitFor();
    await page.getByRole("button", { name: messages.checkAgain }).waitFor();

    // Publish a home page with the tag and an icon in the sandbox, from the link on the Verify page.
    await page.getByRole("link", { name: `Publish a home page for ${host} with your tag` }).click();
    await page.waitForURL("**/dev/sites?**");
    // A full page load: typed before React hydrates the box, the text would be put back to its draft.
    await untilHydrated(page);
    expect(await page.inputValue('input[name="host"]')).toBe(host);
    const body = await page.inputValue('textarea[name="body"]');
    expect(body).toContain(tag);
    await page.fill('textarea[name="body"]', body.replace("</head>", '  <link rel="icon" href="/icon.svg">\n</head>'));
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText(`Published ${host}/`).waitFor();
    await page.fill('input[name="path"]', "/icon.svg");
    await page.selectOption('select[name="contentType"]', "image/svg+xml");
    await page.fill('textarea[name="body"]', ICON_SVG);
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText(`Published ${host}/icon.svg`).waitFor();

    await page.goto("/mysite/verify");
    await page.getByRole("button", { name: messages.checkAgain }).click();
    await page.getByRole("status").filter({ hasText: messages.siteVerified }).waitFor();
    await page.getByRole("link", { name: "Verified", exact: true }).waitFor();
    expect(sql<{ verified: number }>(`SELECT verified FROM sites WHERE host = '${host}'`)[0]?.verified).toBe(1);
    await page.goto("/dev/sites");
    expect(await page.getByTestId("sandbox-requests").textContent()).toContain(`https://${host}/`);

    // The icon control reads the home page and keeps the icon it names.
    await page.goto("/mysite");
    expect(await page.getByText(messages.verifyBanner).count()).toBe(0);
    if (js) {
      await page.route("**/mysite/icon**", async (route) => {
        if (route.request().method() === "POST") await new Promise((resolve) => setTimeout(resolve, 700));
        await route.continue();
      });
    }
    await page.getByRole("button", { name: "Update icon" }).click();
    if (js) await page.getByRole("status", { name: "Updating icon" }).waitFor();
    await page.getByRole("status").filter({ hasText: messages.iconUpdated }).waitFor();
    expect(sql<{ icon: string }>(`SELECT icon FROM sites WHERE host = '${host}'`)[0]?.icon).toBe(`https://${host}/icon.svg`);
    const icon = page.locator(".site-header img.site-icon");
    if (js) {
      // The browser cannot reach a sandbox host, so the image fails and the product favicon takes its place.
      await expect.poll(() => icon.getAttribute("src")).toBe("/favicon.svg");
    } else {
      expect(await icon.getAttribute("src")).toBe(`https://${host}/icon.svg`);
    }

    // Verified, the new user can send a proposal from the market.
    await page.goto("/market");
    const affordable = page
      .locator('[data-testid="post-card"]')
      .filter({ hasText: /Trade for ([5-9]|1\d|20) connects/ })
      .first();
    await affordable.click();
    const proposal = page.locator(".proposal");
    await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
    await page.getByRole("button", { name: /^Send offer for \d+ connects$/ }).click();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(sql<{ n: number }>(`SELECT COUNT(*) AS n FROM offers o JOIN sites s ON s.id = o.sender_site_id WHERE s.host = '${host}'`)[0]?.n).toBe(1);

    // Only the sandbox host's unreachable icon may fail to load in the browser.
    expect(
      unexpected(errors).filter((error) => !/net::ERR_(NAME_NOT_RESOLVED|CONNECTION_REFUSED|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE)/.test(error)),
    ).toEqual([]);
    await close();
  });
});
