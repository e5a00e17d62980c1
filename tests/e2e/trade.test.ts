import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import {
  baseURL,
  createAccount,
  logIn,
  modes,
  openPage,
  proposeInBrowser,
  publishPage,
  sharedChromium,
  sql,
  twoVerifiedTraders,
  verifyActiveSite,
  unexpected,
} from "./browser";

const chromium = sharedChromium();

describe.each(modes)("a trade between two users $name", ({ js }) => {
  it("A and B verify their sites, A proposes from the market, B accepts choosing materials, both complete, both see it completed", async () => {
    const a = await createAccount("sender");
    const b = await createAccount("receiver");
    const listed = `listed-${crypto.randomUUID().slice(0, 6)}.com`;

    const bSide = await openPage(chromium(), js);
    const bPage = bSide.page;
    await logIn(bPage, b.email);
    await bPage.goto("/add-site?source=market");
    await bPage.fill('input[name="url"]', listed);
    await bPage.check('input[value="blog"]');
    await bPage.fill('textarea[name="description"]', "A listed site that wants features.");
    await bPage.fill('input[name="connects"]', "5");
    await bPage.getByRole("button", { name: "Complete" }).click();
    await bPage.getByRole("status").filter({ hasText: messages.siteListedUnverified }).waitFor();
    expect(new URL(bPage.url()).pathname).toBe("/market");
    await verifyActiveSite(bPage, listed);

    const aSide = await openPage(chromium(), js);
    const aPage = aSide.page;
    await logIn(aPage, a.email);
    await verifyActiveSite(aPage, a.host);
    await aPage.goto(`/search?term=${listed}`);
    await aPage.locator('[data-testid="post-card"]', { hasText: listed }).click();
    await aPage.getByRole("heading", { name: "Your proposal" }).waitFor();
    if (js) expect(await aPage.getByRole("button", { name: /Send offer/ }).isDisabled()).toBe(true);
    const proposal = aPage.locator(".proposal");
    await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
    await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
    await aPage.getByRole("button", { name: "Send offer for 5 connects" }).click();
    await aPage.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    expect(await aPage.locator(".slide-out").count()).toBe(0);
    // Back on the results the panel was opened over.
    expect(new URL(aPage.url()).pathname).toBe("/search");
    expect(new URL(aPage.url()).searchParams.get("term")).toBe(listed);
    const [offer] = sql<{ id: string }>(`SELECT o.id FROM offers o JOIN sites s ON s.id = o.receiver_site_id WHERE s.host = '${listed}'`);

    // Each side's content page, published in the dev web sandbox. B's links to A's site only once B fixes it.
    await publishPage(listed, "/feature-about-them", `<h1>A feature</h1><p>Nothing about the partner yet.</p>`);
    await publishPage(a.host, "/blog-post-about-them", `<h1>A post</h1><p>Read <a href="https://${listed}/">${listed}</a>.</p>`);

    await bPage.goto("/mysite/offers");
    await bPage.locator(".offer-list a", { hasText: a.host }).click();
    await bPage.getByRole("button", { name: "Accept" }).waitFor();
    await bPage.locator("fieldset", { hasText: "Materials you want from them" }).locator("label.chip", { hasText: "Long description" }).click();
    await bPage.getByRole("button", { name: "Accept" }).click();
    await bPage.getByRole("button", { name: "Start" }).click();
    await bPage.getByRole("button", { name: "Mark completed" }).waitFor();
    // Refused by the server: the page shows why and keeps the saved state (In Progress).
    await bPage.getByRole("button", { name: "Mark completed" }).click();
    await bPage.getByText(messages.enterContentUrl).waitFor();
    expect(await bPage.getByRole("dialog").getByText("In Progress").count()).toBeGreaterThan(0);
    await bPage.fill('input[name="contentUrl"]', `https://${listed}/feature-about-them`);
    await bPage.getByRole("button", { name: "Mark completed" }).click();
    // The page does not link to A yet: the side cannot complete, and the page says why.
    await bPage.getByText(`We could not find a link to ${a.host} on that page.`).waitFor();
    // With JavaScript the pressed button was hidden while the page was read: the keyboard goes on from the panel.
    if (js) await expect.poll(() => bPage.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
    // The field is described by the refusal, so a screen reader reads why with it.
    expect(await bPage.getByRole("textbox", { name: "Content url" }).getAttribute("aria-describedby")).toBe("offer-error");
    await publishPage(listed, "/feature-about-them", `<h1>A feature</h1><p>Thanks to <a href="https://${a.host}/">our partner</a>.</p>`);
    // What was typed is still there, with or without JavaScript.
    expect(await bPage.inputValue('input[name="contentUrl"]')).toBe(`https://${listed}/feature-about-them`);
    await bPage.getByRole("button", { name: "Mark completed" }).click();
    await expect.poll(() => bPage.getByText("your content").count()).toBe(1);
    await bPage.getByText(`Link to ${a.host}: followed`).waitFor();
    const [senderEntry] = sql<{ provide_materials: string }>(
      `SELECT provide_materials FROM offer_entries WHERE offer_id = '${offer!.id}' AND role = 'sender'`,
    );
    expect(JSON.parse(senderEntry!.provide_materials)).toContain("long-description");

    await aPage.goto("/mysite/offers");
    await aPage.locator("#trades-title + .offer-list a", { hasText: listed }).click();
    await aPage.getByRole("button", { name: "Start" }).click();
    await aPage.getByRole("button", { name: "Mark completed" }).waitFor();
    // Typed without https:// (as a site is typed): the browser sends it, the server reads it as https.
    await aPage.fill('input[name="contentUrl"]', `${a.host}/blog-post-about-them`);
    await aPage.getByRole("button", { name: "Mark completed" }).click();
    await aPage.getByRole("dialog").locator(".panel-head .status", { hasText: "Completed" }).waitFor();

    await bPage.goto(`/mysite/offers?offer=${offer!.id}`);
    await bPage.getByRole("dialog").locator(".panel-head .status", { hasText: "Completed" }).waitFor();
    expect(await bPage.getByRole("link", { name: "their content" }).getAttribute("href")).toBe(`https://${a.host}/blog-post-about-them`);
    // B takes the link down; the five-minute job, when B's link is due, flags it on both dashboards.
    await publishPage(listed, "/feature-about-them", `<h1>A feature</h1><p>The partner link was removed.</p>`);
    sql(`UPDATE offer_entries SET link_due_at = 0 WHERE offer_id = '${offer!.id}'`);
    const job = await fetch(`${baseURL()}/__scheduled?cron=${encodeURIComponent("*/5 * * * *")}`);
    expect(job.status).toBe(200);
    await expect
      .poll(
        () =>
          sql<{ s: string }>(
            `SELECT link_status AS s FROM offer_entries WHERE offer_id = '${offer!.id}' AND content_url LIKE '%feature-about-them'`,
          )[0]?.s,
      )
      .toBe("lost");
    for (const page of [aPage, bPage]) {
      await page.goto("/mysite");
      await page.getByRole("heading", { name: "Delivered links to look at" }).waitFor();
      await page.getByRole("link", { name: `${listed}: the link is gone from the page` }).waitFor();
    }
    expect(unexpected(aSide.errors, 400)).toEqual([]);
    expect(unexpected(bSide.errors, 400, 422)).toEqual([]);
    await aSide.close();
    await bSide.close();
  });
});

/** An offer proposed from the buyer's browser, and the seller's browser with its panel open: where an answer starts. */
async function offerOpenedByReceiver(prefix: string, js: boolean) {
  const { buyer, seller, listingId } = await twoVerifiedTraders(prefix);
  const buyerSide = await openPage(chromium(), js);
  await logIn(buyerSide.page, buyer.email);
  const offerId = await proposeInBrowser(buyerSide.page, listingId);
  await buyerSide.close();
  const receiver = await openPage(chromium(), js);
  await logIn(receiver.page, seller.email);
  await receiver.page.goto(`/mysite/offers?offer=${offerId}`);
  return { ...receiver, offerId, seller };
}

describe.each(modes)("an answer to an offer that changed meanwhile $name", ({ js }) => {
  it("is refused, and the panel shows the offer as it is now", async () => {
    const { page, errors, close, offerId } = await offerOpenedByReceiver("meanwhile", js);
    await page.getByRole("dialog").locator(".panel-head .status", { hasText: "Pending" }).waitFor();
    // The sender rescinds it in another browser.
    sql(`UPDATE offers SET status = 'rescind', updated_at = ${Date.now()} WHERE id = '${offerId}'`);
    await page.getByRole("button", { name: "Accept" }).click();
    await page.getByText(messages.offerChangeRefused).waitFor();
    await page.getByRole("dialog").locator(".panel-head .status", { hasText: "Rescinded" }).waitFor();
    expect(await page.getByRole("button", { name: "Accept" }).count()).toBe(0);
    expect(unexpected(errors, 409)).toEqual([]);
    await close();
  });
});

describe.each(modes)("an Accept refused because the receiving site lost its verification $name", ({ js }) => {
  it("says how to get verified and keeps the materials chosen, so pressing Accept again asks for them", async () => {
    const { page, errors, close, offerId, seller } = await offerOpenedByReceiver("lostverify", js);
    const panel = page.getByRole("dialog");
    const chip = (label: string) => panel.getByRole("checkbox", { name: label });
    await chip("Logo").waitFor();
    await chip("Long description").check();
    // Another account proved control of the receiving site meanwhile.
    sql(`UPDATE sites SET verified = 0 WHERE host = '${seller.host}'`);
    await panel.getByRole("button", { name: "Accept" }).click();
    const refusal = panel.getByRole("alert").filter({ hasText: messages.verifyYourWebsite });
    await refusal.waitFor();
    expect(await refusal.getByRole("link", { name: "Get verified" }).getAttribute("href")).toBe("/mysite/verify");
    expect(await chip("Long description").isChecked()).toBe(true);

    sql(`UPDATE sites SET verified = 1 WHERE host = '${seller.host}'`);
    await panel.getByRole("button", { name: "Accept" }).click();
    await panel.locator(".panel-head .status", { hasText: "Accepted" }).waitFor();
    // "Accepted" shows as the answer is sent: the database has it once the server has answered.
    const asked = () =>
      sql<{ materials: string }>(`SELECT provide_materials AS materials FROM offer_entries WHERE offer_id = '${offerId}' AND role = 'sender'`);
    await expect.poll(() => JSON.parse(asked()[0]!.materials)).toContain("long-description");
    expect(unexpected(errors, 403)).toEqual([]);
    await close();
  });
});
