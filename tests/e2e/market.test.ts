import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { createAccount, logIn, modes, openPage, sharedChromium, sql, twoVerifiedTraders, unexpected } from "./browser";

const chromium = sharedChromium();

describe.each(modes)("market and my site $name", ({ js }) => {
  it("opens a post's panel and closes it", async () => {
    const { email } = await createAccount("panel");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    const firstCard = page.locator('[data-testid="post-card"]').first();
    const host = await firstCard.locator(".post-url").textContent();
    await firstCard.click();
    await page.getByRole("dialog").getByText("Trade terms").waitFor();
    expect(page.url()).toMatch(/\/market\?post=/);
    expect(await page.locator("#trade-title").textContent()).toBe(host);
    await page.getByRole("dialog").getByText(messages.verifyBanner).waitFor();
    await page.getByRole("dialog").getByRole("link", { name: "Close" }).click();
    await expect.poll(() => page.locator(".slide-out").count()).toBe(0);
    expect(new URL(page.url()).search).toBe("");
    expect(errors).toEqual([]);
    await close();
  });

  it("loads more posts: in place with JavaScript, as the next page without", async () => {
    const { email } = await createAccount("more");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    const cards = page.locator('[data-testid="post-card"]');
    await cards.first().waitFor();
    expect(await cards.count()).toBe(24);
    const firstHost = await cards.first().locator(".post-url").textContent();
    await page.getByRole("link", { name: "More posts" }).click();
    if (js) {
      await expect.poll(() => cards.count()).toBeGreaterThan(24);
      expect(new URL(page.url()).search).toBe("");
      expect(await cards.first().locator(".post-url").textContent()).toBe(firstHost);
      // Away to another page and Back: the posts loaded are there again, and so is the place in them.
      const loaded = await cards.count();
      await cards.last().scrollIntoViewIfNeeded();
      const scrolled = await page.evaluate(() => window.scrollY);
      const awayToOffersAndBack = async (whileAway?: () => Promise<unknown>) => {
        await page.getByRole("link", { name: "Offers", exact: true }).first().click();
        await page.waitForURL("**/mysite/offers");
        await whileAway?.();
        await page.goBack();
        await page.waitForURL((url) => url.pathname === "/market");
      };
      await awayToOffersAndBack();
      await expect.poll(() => cards.count()).toBe(loaded);
      await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(scrolled);
      // What this tab keeps, changed into something else (by hand, or by another release): the first page, no error.
      await awayToOffersAndBack(() =>
        page.evaluate(() => {
          for (const key of Object.keys(sessionStorage)) {
            if (!key.startsWith("more:")) continue;
            const kept = JSON.parse(sessionStorage.getItem(key)!) as { pages: unknown[] };
            sessionStorage.setItem(key, JSON.stringify({ ...kept, pages: [{ after: "1_x" }] }));
          }
        }),
      );
      await expect.poll(() => cards.count()).toBe(24);
    } else {
      await page.waitForURL(/after=/);
      expect(await cards.first().locator(".post-url").textContent()).not.toBe(firstHost);
    }
    // Choosing the order again starts the list over from its first page.
    await page.getByRole("navigation", { name: "Sort posts" }).getByRole("link", { name: "Newest" }).click();
    await expect.poll(() => cards.count()).toBe(24);
    expect(await cards.first().locator(".post-url").textContent()).toBe(firstHost);
    expect(errors).toEqual([]);
    await close();
  });

  it("keeps the user's place in the list after sending an offer and feedback from a later page", async () => {
    const { buyer, listingId } = await twoVerifiedTraders("place");
    // The oldest post, so it is on a later page than the first.
    sql(`UPDATE listings SET created_at = 1 WHERE id = '${listingId}'`);
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    const cards = page.locator('[data-testid="post-card"]');
    const offered = page.locator(`[data-testid="post-card"][href*="post=${listingId}"]`);
    await cards.first().waitFor();
    // "More posts" until the oldest post shows: more than once, so that with JavaScript pages are appended twice.
    let loads = 0;
    while ((await offered.count()) === 0 && loads < 5) {
      const [before, at] = [await cards.count(), page.url()];
      await page.getByRole("link", { name: "More posts" }).click();
      loads += 1;
      if (js) await expect.poll(() => cards.count()).toBeGreaterThan(before);
      else await page.waitForURL((url) => url.href !== at);
    }
    expect(loads).toBeGreaterThanOrEqual(2);
    await offered.waitFor();
    const shown = await cards.count();
    if (js) expect(shown).toBeGreaterThan(48);
    else expect(new URL(page.url()).searchParams.get("after")).not.toBeNull();
    const listAddress = new URL(page.url()).search;

    // With JavaScript, whether the header is out of reach in the first frame painted with the panel.
    if (js)
      await page.evaluate(() => {
        const seen = new MutationObserver(() => {
          if (!document.querySelector(".slide-out")) return;
          seen.disconnect();
          requestAnimationFrame(
            () => (document.body.dataset.headerInertAtPanel = String(document.querySelector<HTMLElement>("header.app-header")?.inert)),
          );
        });
        seen.observe(document.body, { childList: true, subtree: true });
      });
    await offered.click();
    // A post of an appended page: the header behind its trade terms is out of reach too, from the panel's first frame.
    await expect.poll(() => page.locator("header.app-header").getAttribute("inert")).toBe("");
    if (js) await expect.poll(() => page.locator("body").getAttribute("data-header-inert-at-panel")).toBe("true");
    expect(await page.getByRole("link", { name: "Skip to content" }).count()).toBe(0);
    const proposal = page.locator(".proposal");
    await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await page.getByRole("button", { name: /^Send offer/ }).click();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    // The panel closed, the header is in reach again.
    expect(await page.locator("header.app-header").getAttribute("inert")).toBeNull();
    expect(await page.getByRole("link", { name: "Skip to content" }).count()).toBe(1);
    await offered.waitFor();
    expect(await cards.count()).toBe(shown);
    expect(new URL(page.url()).searchParams.get("after")).toBe(new URLSearchParams(listAddress).get("after"));

    await page.getByRole("link", { name: "Feedback" }).click();
    await page.getByLabel("Your feedback").fill("Paging is easy.");
    await page.getByRole("button", { name: "Send feedback" }).click();
    await page.getByRole("status").filter({ hasText: "Thanks for your feedback!" }).waitFor();
    await offered.waitFor();
    expect(await cards.count()).toBe(shown);
    expect(errors).toEqual([]);
    await close();
  });

  it("stays on the best records after sending an offer from them", async () => {
    const { buyer, listingId } = await twoVerifiedTraders("record-place");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    await page.goto(`/market?sort=record&post=${listingId}`);
    const proposal = page.locator(".proposal");
    await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await page.getByRole("button", { name: /^Send offer/ }).click();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(new URL(page.url()).searchParams.get("sort")).toBe("record");
    expect(await page.getByRole("navigation", { name: "Sort posts" }).locator('[aria-current="page"]').textContent()).toBe("Best record");
    expect(errors).toEqual([]);
    await close();
  });

  it("opens a post's panel over the search results and closes back to them", async () => {
    const { email } = await createAccount("results-panel");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.goto("/search/blog?sort=record");
    const heading = page.getByRole("heading", { name: "Results for blog" });
    await heading.waitFor();
    const card = page.locator('[data-testid="post-card"]').first();
    const host = await card.locator(".post-url").textContent();
    await card.click();
    await page.getByRole("dialog").getByText("Trade terms").waitFor();
    expect(await page.locator("#trade-title").textContent()).toBe(host);
    expect(new URL(page.url()).pathname).toBe("/search/blog");
    expect(await heading.count()).toBe(1);
    await page.getByRole("dialog").getByRole("link", { name: "Close" }).click();
    await expect.poll(() => page.locator(".slide-out").count()).toBe(0);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/search/blog?sort=record");
    expect(await heading.count()).toBe(1);
    expect(errors).toEqual([]);
    await close();
  });

  it("searches from the header and filters by category and authority", async () => {
    const { email } = await createAccount("search");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.fill("#header-search", "blog");
    await page.press("#header-search", "Enter");
    await page.getByRole("heading", { name: "Results for blog" }).waitFor();
    const before = await page.locator(".count-line").textContent();
    expect(before).toMatch(/^\d+\+ sites available$/);
    await page.locator("summary", { hasText: "Category" }).click();
    await page.getByLabel("Blog", { exact: true }).check();
    await page.locator("summary", { hasText: "Authority" }).click();
    await page.getByLabel("70 and above").check();
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/tag=blog/);
    // With JavaScript the address changes before React shows the new results; the Clear link is only on filtered ones.
    await page.getByRole("link", { name: "Clear" }).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.getAll("tag")).toEqual(["blog"]);
    expect(url.searchParams.getAll("band")).toEqual(["hi"]);
    const scores = await page.locator('[data-testid="post-card"] .score').allTextContents();
    expect(scores.length).toBeGreaterThan(0);
    for (const score of scores) expect(Number(score)).toBeGreaterThanOrEqual(70);
    await page.getByRole("link", { name: "Clear" }).click();
    await page.waitForURL((next) => !next.search.includes("tag="));
    // Cleared, no box stays ticked (with JavaScript the form was kept across the search before), and Apply searches
    // without them.
    await page.getByRole("link", { name: "Clear" }).waitFor({ state: "detached" });
    expect(await page.locator('.filters input[type="checkbox"]:checked').count()).toBe(0);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/sort=newest/);
    expect(new URL(page.url()).searchParams.getAll("tag")).toEqual([]);
    expect(errors).toEqual([]);
    await close();
  });

  it("switches the active site", async () => {
    const { email, host } = await createAccount("switch");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.goto("/sites/new?back=/market");
    const second = `second-${crypto.randomUUID().slice(0, 6)}.com`;
    await page.fill('.modal input[name="url"]', second);
    await page.fill('.modal textarea[name="description"]', "The second site of this owner, about e2e tests.");
    await page.getByRole("button", { name: "Add website" }).click();
    await page.waitForURL("**/market");
    await expect.poll(() => page.locator(".site-switcher-name").textContent()).toBe(second);
    await page.click(".site-switcher summary");
    await page.getByRole("button", { name: host, exact: true }).click();
    await expect.poll(() => page.locator(".site-switcher-name").textContent()).toBe(host);
    await page.goto("/mysite");
    await page.getByRole("heading", { name: `Happy trading with ${host}` }).waitFor();
    // Switched while on Settings (it comes back there), the page shows the other site's description, and a save keeps
    // each site's own.
    await page.goto("/mysite/settings");
    const [first] = sql<{ description: string }>(`SELECT description FROM sites WHERE host = '${host}'`);
    await page.locator(".description-edit summary", { hasText: first!.description }).waitFor();
    await page.click(".site-switcher summary");
    await page.getByRole("button", { name: second, exact: true }).click();
    await page.locator(".description-edit summary", { hasText: "The second site of this owner, about e2e tests." }).waitFor();
    expect(page.url()).toContain("/mysite/settings");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved" }).waitFor();
    const descriptions = sql<{ host: string; description: string }>(
      `SELECT host, description FROM sites WHERE host IN ('${host}', '${second}') ORDER BY host = '${host}' DESC`,
    );
    expect(descriptions.map((site) => site.description)).toEqual([first!.description, "The second site of this owner, about e2e tests."]);
    expect(errors).toEqual([]);
    await close();
  });

  it("saves settings", async () => {
    const { email, host } = await createAccount("settings");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.goto("/mysite/settings");
    const description = page.getByRole("textbox", { name: "Description" });
    const saved = () => sql<{ description: string }>(`SELECT description FROM sites WHERE host = '${host}'`)[0]!.description;
    const before = saved();
    const focused = () => description.evaluate((field) => field === document.activeElement);
    // The description shows as text, with JavaScript and without, and a save that does not open it keeps it; a refusal
    // about another field (listed without a price) leaves it closed.
    expect(await description.isVisible()).toBe(false);
    await page.locator("label.chip", { hasText: "Long description" }).click();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved" }).waitFor();
    expect(saved()).toBe(before);
    expect(await description.isVisible()).toBe(false);
    await page.getByRole("checkbox", { name: /in the market/ }).check();
    // Out of range: the server's message, not the browser's own check of the number field.
    await page.fill('input[name="connects"]', "0");
    await page.locator("label.chip", { hasText: "Travel" }).click();
    // With JavaScript the refusal shows while the page's data loads again (on a slow network, for a while): the last
    // save's notice is gone from then on, not only once that data has come.
    const slowReload = /\/mysite\/settings\.data/;
    if (js) await page.route(slowReload, async (route) => setTimeout(() => void route.continue(), route.request().method() === "GET" ? 1500 : 0));
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("alert").filter({ hasText: messages.connectsRange }).waitFor();
    // The message is the price field's (it says so to a screen reader), and has the focus with JavaScript.
    expect(await page.locator('input[name="connects"]').getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator('input[name="connects"]').getAttribute("aria-describedby")).toBe("settings-error-connects");
    if (js) await expect.poll(() => page.locator('input[name="connects"]').evaluate((input) => input === document.activeElement)).toBe(true);
    // Refused, it does not come back beside the last save's notice.
    expect(await page.getByRole("status").filter({ hasText: "Settings saved" }).count()).toBe(0);
    await expect.poll(() => page.url()).not.toContain("notice=");
    await page.unroute(slowReload);
    expect(await description.isVisible()).toBe(false);
    expect(saved()).toBe(before);
    // Refused, the form is as it was sent, with JavaScript and without.
    expect(await page.getByRole("checkbox", { name: /in the market/ }).isChecked()).toBe(true);
    expect(await page.locator("label.chip", { hasText: "Travel" }).locator("input").isChecked()).toBe(true);
    // "Edit" opens its field (focused, with JavaScript); refused, the description stays open with what was typed.
    await page.locator("summary", { hasText: /Edit$/ }).click();
    if (js) await expect.poll(focused).toBe(true);
    await description.fill("   ");
    await page.fill('input[name="connects"]', "5");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("alert").filter({ hasText: messages.enterDescription }).waitFor();
    expect(await description.isVisible()).toBe(true);
    // The field takes the focus in an effect after the message renders: wait for it, as for "Edit" above.
    if (js) await expect.poll(focused).toBe(true);
    expect(saved()).toBe(before);
    await description.fill("Updated in a browser test.");
    await page.locator("label.chip", { hasText: "SEO" }).click();
    await page.locator("label.chip", { hasText: "Feature" }).click();
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(saved).toBe("Updated in a browser test.");
    await page.getByRole("status").filter({ hasText: "Settings saved" }).waitFor();
    await page.goto("/mysite/settings");
    expect(await page.locator("label.chip", { hasText: "SEO" }).locator("input").isChecked()).toBe(true);
    expect(await page.locator("label.chip", { hasText: "Feature" }).locator("input").isChecked()).toBe(true);
    expect(await page.locator("label.chip", { hasText: "AI" }).locator("input").isChecked()).toBe(false);
    expect(await page.locator("label.chip", { hasText: "Travel" }).locator("input").isChecked()).toBe(true);
    await page.getByText("Updated in a browser test.").first().waitFor();
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });

  it("sends feedback", async () => {
    const { email } = await createAccount("feedback");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.getByRole("link", { name: "Feedback" }).click();
    await page.getByRole("heading", { name: "Send us feedback" }).waitFor();
    const send = page.getByRole("button", { name: "Send feedback" });
    if (js) {
      // Grey until there is something to send, with what is missing beside it; blank text is nothing.
      expect(await send.isDisabled()).toBe(true);
      expect(await page.locator("#feedback-missing").textContent()).toBe("Still to fill in: your feedback.");
      await page.getByLabel("Your feedback").fill("   ");
      await page.getByLabel("Your feedback").press("Tab");
      await page.getByText(messages.feedbackEmpty).waitFor();
      expect(await send.isDisabled()).toBe(true);
    } else {
      // Without JavaScript the button is enabled and the server answers.
      expect(await send.isDisabled()).toBe(false);
      await send.click();
      await page.getByText(messages.feedbackEmpty).waitFor();
    }
    await page.getByLabel("Your feedback").fill("The market is easy to use.");
    if (js) {
      await expect.poll(() => send.isDisabled()).toBe(false);
      expect(await page.getByText(messages.feedbackEmpty).count()).toBe(0);
      expect(await page.locator("#feedback-missing").count()).toBe(0);
    }
    await page.getByRole("button", { name: "Send feedback" }).click();
    await page.getByRole("status").filter({ hasText: "Thanks for your feedback!" }).waitFor();
    expect(await page.getByRole("heading", { name: "Send us feedback" }).count()).toBe(0);
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });
  it("after a proposal refused because the price changed meanwhile, shows the new price and sends at it", async () => {
    const { buyer, listingId } = await twoVerifiedTraders("repriced");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    await page.goto(`/market?post=${listingId}`);
    const proposal = page.locator(".proposal");
    const chip = (side: string, type: string) => proposal.locator("fieldset", { hasText: side }).locator("label.chip", { hasText: type });
    await chip("You will create", "Blog post").click();
    await chip("They will create", "Feature").click();
    // The owner changes the price while the panel is open.
    sql(`UPDATE listings SET connects = 7 WHERE id = '${listingId}'`);
    await page.getByRole("button", { name: "Send offer for 5 connects" }).click();
    await page.locator(".slide-out .form-error", { hasText: messages.priceChanged(7) }).waitFor();
    // The panel now shows the new price, with the choices kept, and sends at it.
    const send = page.getByRole("button", { name: "Send offer for 7 connects" });
    await send.waitFor();
    expect(await chip("They will create", "Feature").locator("input").isChecked()).toBe(true);
    await send.click();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(sql(`SELECT connects FROM offers WHERE listing_id = '${listingId}'`)).toEqual([{ connects: 7 }]);
    expect(unexpected(errors, 409)).toEqual([]);
    await close();
  });

  it("keeps the proposal's button grey until both content types are chosen; without JavaScript the server answers", async () => {
    const { buyer, seller, listingId } = await twoVerifiedTraders("grey");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    await page.goto(`/market?post=${listingId}`);
    await page.getByRole("heading", { name: "Your proposal" }).waitFor();
    const proposal = page.locator(".proposal");
    const send = page.getByRole("button", { name: "Send offer for 5 connects" });
    const chip = (side: string, type: string) => proposal.locator("fieldset", { hasText: side }).locator("label.chip", { hasText: type });
    if (js) {
      expect(await send.isDisabled()).toBe(true);
      expect(await page.locator("#proposal-missing").textContent()).toBe("Still to fill in: what you will create, what they will create.");
      await chip("You will create", "Blog post").click();
      await expect.poll(() => page.locator("#proposal-missing").textContent()).toBe("Still to fill in: what they will create.");
      expect(await send.isDisabled()).toBe(true);
      // Tapping the chosen type again clears it, and the group says why the button is grey.
      await chip("You will create", "Blog post").click();
      await proposal.locator("fieldset", { hasText: "You will create" }).getByText(messages.selectContentType).waitFor();
      expect(await send.isDisabled()).toBe(true);
    } else {
      expect(await send.isDisabled()).toBe(false);
      await send.click();
      // Each group without a choice says so, as it does with JavaScript.
      const groupMessage = (side: string) => proposal.locator("fieldset", { hasText: side }).locator(".field-error");
      await expect.poll(() => groupMessage("You will create").textContent()).toBe(messages.selectContentType);
      expect(await groupMessage("They will create").textContent()).toBe(messages.selectContentType);
      // A refused proposal comes back with what was chosen.
      await chip("They will create", "Feature").click();
      await chip("You will provide", "Logo").click();
      await send.click();
      await expect.poll(() => groupMessage("They will create").textContent()).toBe("");
      expect(await groupMessage("You will create").textContent()).toBe(messages.selectContentType);
      expect(await chip("They will create", "Feature").locator("input").isChecked()).toBe(true);
      expect(await chip("You will provide", "Logo").locator("input").isChecked()).toBe(true);
    }
    await chip("You will create", "Blog post").click();
    await chip("They will create", "Feature").click();
    await expect.poll(() => send.isDisabled()).toBe(false);
    expect(await page.locator("#proposal-missing").count()).toBe(0);
    await send.click();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(unexpected(errors, 400), `seller ${seller.host}`).toEqual([]);
    await close();
  });
});

describe("the market's pages appended with JavaScript", () => {
  it("back on the list after new posts pushed the first page's last ones down and one was taken down: each post once, in order", async () => {
    // The newest post when the list is read: on its first page.
    const withdrawn = await twoVerifiedTraders("pushed-gone");
    const { email } = await createAccount("pushed");
    const { page, errors, close } = await openPage(chromium(), true);
    await logIn(page, email);
    const cards = page.locator('[data-testid="post-card"]');
    await cards.first().waitFor();
    await page.getByRole("link", { name: "More posts" }).click();
    await expect.poll(() => cards.count()).toBeGreaterThan(24);
    const postIds = () =>
      cards.evaluateAll((links) => links.map((link) => new URL(link.getAttribute("href")!, location.href).searchParams.get("post")));
    const before = await postIds();
    expect(before.indexOf(withdrawn.listingId)).toBeLessThan(24);

    await page.getByRole("link", { name: "Offers", exact: true }).first().click();
    await page.waitForURL("**/mysite/offers");
    // Meanwhile its owner takes that post down, and three sites are listed: the newest, they come first.
    sql(`UPDATE listings SET active = 0 WHERE id = '${withdrawn.listingId}'`);
    const listed = [];
    for (const n of [1, 2, 3]) listed.push((await twoVerifiedTraders(`pushed-${n}`)).listingId);
    await page.goBack();
    await page.waitForURL((url) => url.pathname === "/market");
    const expected = [...listed.reverse(), ...before.filter((id) => id !== withdrawn.listingId)];
    await expect.poll(postIds).toEqual(expected);
    expect(errors).toEqual([]);
    await close();
  });
});
