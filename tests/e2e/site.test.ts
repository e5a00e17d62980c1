import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { baseURL, createAccount, sharedChromium, logIn, modes, openPage, unexpected, untilHydrated } from "./browser";

const chromium = sharedChromium();

describe.each(modes)("public site and signed-in shell $name", ({ js }) => {
  it("rotates the Popular Sites carousel both ways", async () => {
    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto("/");
    const firstUrl = () => page.locator('[data-testid="popular-card"] .popular-url').first().textContent();
    expect(await firstUrl()).toBe("wanderingnotes.blog");
    await page.getByRole("link", { name: "Next sites" }).click();
    await expect.poll(firstUrl).toBe("tasktide.app");
    await page.getByRole("link", { name: "Previous sites" }).click();
    await page.getByRole("link", { name: "Previous sites" }).click();
    await expect.poll(firstUrl).toBe("pixelquestreviews.net");
    // A screen reader hears which card comes first now, not every card again (with JavaScript; without, a new page).
    if (js) expect(await page.getByRole("status").filter({ hasText: "First now: pixelquestreviews.net" }).count()).toBe(1);
    expect(await page.locator('[aria-live="polite"]:has([data-testid="popular-card"])').count()).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });

  it("adds a website from the site switcher's dialog", async () => {
    const { email } = await createAccount("addsite");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.click(".site-switcher summary");
    await page.getByRole("link", { name: "New site", exact: true }).click();
    await page.getByRole("heading", { name: messages.growthStartsHere }).waitFor();
    const host = `added-${crypto.randomUUID().slice(0, 6)}.com`;
    await page.fill('.modal input[name="url"]', host);
    await page.fill('.modal textarea[name="description"]', "short");
    if (js) {
      // As the site-add form: grey with what is missing beside it, a field's message once the user leaves it, then live.
      const add = page.getByRole("button", { name: "Add website" });
      expect(await add.isDisabled()).toBe(true);
      await expect.poll(() => page.locator("#add-website-missing").textContent()).toBe("Still to fill in: description.");
      expect(await page.getByText(messages.descriptionMinimum).count()).toBe(0);
      await page.press('.modal textarea[name="description"]', "Tab");
      await page.getByText(messages.descriptionMinimum).waitFor();
      // Said as it appears, though focus has gone on to the next control.
      expect(await page.getByText(messages.descriptionMinimum).getAttribute("aria-live")).toBe("polite");
      await page.fill('.modal input[name="url"]', "nope");
      await page.getByText(messages.linkIncomplete).waitFor();
      expect(await page.getByRole("textbox", { name: "Website url", exact: true }).count()).toBe(1);
      await page.fill('.modal input[name="url"]', host);
      await expect.poll(() => page.getByText(messages.linkIncomplete).count()).toBe(0);
    }
    await page.fill('.modal textarea[name="description"]', "A second site about e2e tests and their flakes.");
    await page.getByRole("button", { name: "Add website" }).click();
    await page.waitForURL("**/market");
    await expect.poll(() => page.locator(".site-switcher-name").textContent()).toBe(host);
    expect(errors).toEqual([]);
    await close();
  });

  it("joins the waitlist from the hero's site-add form", async () => {
    const { page, errors, close } = await openPage(chromium(), js, 375);
    await page.goto("/");
    await page.fill("#hero-url", "my-hero-site.com");
    await page.getByRole("button", { name: "Start matching" }).click();
    await page.getByRole("heading", { name: "Let the matching begin..." }).waitFor();
    expect(await page.inputValue('input[name="url"]')).toBe("my-hero-site.com");
    if (js) {
      // Grey until every field passes; a field's message shows once the user leaves it.
      expect(await page.getByRole("button", { name: "Complete" }).isDisabled()).toBe(true);
      await page.fill('input[name="email"]', "hero@");
      await page.press('input[name="email"]', "Tab");
    } else {
      await page.getByRole("button", { name: "Complete" }).click();
    }
    await page.getByText(messages.invalidEmailAddress).waitFor();
    // The message, after the field's caption, describes the field; its name is the caption alone.
    const email = page.getByRole("textbox", { name: "Email", exact: true });
    expect(await email.getAttribute("aria-describedby")).toBe("site-add-email-error");
    expect(await page.locator("#site-add-email-error").textContent()).toBe(messages.invalidEmailAddress);
    await page.fill('input[name="email"]', "hero@example.com");
    await page.check('input[value="blog"]');
    await page.fill('textarea[name="description"]', "Hero description");
    if (js) expect(await page.getByText(messages.invalidEmailAddress).count()).toBe(0);
    await page.getByRole("button", { name: "Complete" }).click();
    await page.waitForURL("**/newbeta");
    await page.getByText(messages.launchText).waitFor();
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });
});

describe("the owner's area with JavaScript", () => {
  it("shows the site another tab switched to once the user goes on to another of its pages", async () => {
    const { email, host } = await createAccount("twotabs");
    const { page, errors, close } = await openPage(chromium(), true);
    await logIn(page, email);
    await page.goto("/mysite");
    expect(await page.locator("h1.site-name").textContent()).toBe(host);

    // Another tab of the same browser adds a second website, which becomes the active one.
    const other = await page.context().newPage();
    await other.goto("/add-site?source=market");
    await untilHydrated(other);
    const second = `second-${crypto.randomUUID().slice(0, 6)}.com`;
    await other.fill('input[name="url"]', second);
    await other.check('input[value="blog"]');
    await other.fill('textarea[name="description"]', "A second site, added from another tab of the same browser.");
    await other.fill('input[name="connects"]', "5");
    await other.getByRole("button", { name: "Complete" }).click();
    await other.waitForURL(/\/market/);
    await expect.poll(() => other.locator(".site-switcher-name").textContent()).toBe(second);
    await other.close();

    await page.getByRole("navigation", { name: "My site" }).getByRole("link", { name: "Offers" }).click();
    await page.waitForURL("**/mysite/offers");
    // The site's header names the site whose offers the page lists.
    await expect.poll(() => page.locator("h1.site-name").textContent()).toBe(second);
    expect(await page.locator(".site-switcher-name").textContent()).toBe(second);
    expect(errors).toEqual([]);
    await close();
  });
});

describe("static files", () => {
  it("hashed assets are immutable for a year; logos and the favicon are cached", async () => {
    const home = await (await fetch(`${baseURL()}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(home)?.[1] ?? /href="(\/assets\/[^"]+\.js)"/.exec(home)?.[1];
    expect(script).toBeTruthy();
    expect((await fetch(`${baseURL()}${script}`)).headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect((await fetch(`${baseURL()}/logos/blog.svg`)).headers.get("Cache-Control")).toBe("public, max-age=604800");
    expect((await fetch(`${baseURL()}/favicon.svg`)).headers.get("Cache-Control")).toBe("public, max-age=86400");
  });
});
