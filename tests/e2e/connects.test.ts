import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import {
  createAccount,
  hydratingGoto,
  logIn,
  modes,
  openPage,
  sharedChromium,
  sql,
  twoVerifiedTraders,
  unexpected,
  untilHydrated,
  workerOfItsOwn,
} from "./browser";

const chromium = sharedChromium();

describe.each(modes)("buying connects $name", ({ js }) => {
  it("a user with too few connects makes a test purchase, sees the new balance, and sends the proposal that failed before", async () => {
    // Both sites verified, the seller's listed at 30 connects: more than the 20 a new account starts with.
    const { buyer, listingId } = await twoVerifiedTraders("connects", { connects: 30 });

    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, buyer.email);
    const propose = async () => {
      await page.goto(`/market?post=${listingId}`);
      const proposal = page.locator(".proposal");
      await proposal.locator("fieldset", { hasText: "You will create" }).locator("label.chip", { hasText: "Blog post" }).click();
      await proposal.locator("fieldset", { hasText: "They will create" }).locator("label.chip", { hasText: "Feature" }).click();
      await page.getByRole("button", { name: "Send offer for 30 connects" }).click();
    };
    await propose();
    await page.getByText(messages.notEnoughConnects).waitFor();

    await page.getByRole("link", { name: "Get connects" }).click();
    await page.waitForURL("**/mysite/connects");
    expect(await page.getByTestId("available-connects").textContent()).toBe("20");
    await page.getByText("Development only").waitFor();
    await page.getByRole("button", { name: "Make a test purchase" }).click();
    await page.getByRole("status").filter({ hasText: messages.testPurchaseDone }).waitFor();
    expect(await page.getByTestId("available-connects").textContent()).toBe("50");
    await page.getByTestId("connects-history").getByText("Purchase (receipt: $20.00 paid)").waitFor();

    await propose();
    await page.getByRole("status").filter({ hasText: messages.offerSent }).waitFor();
    const [offer] = sql<{ connects: number }>(`SELECT connects FROM offers WHERE listing_id = '${listingId}'`);
    expect(offer).toEqual({ connects: 30 });
    expect(unexpected(errors, 402)).toEqual([]);
    await close();
  });
});

describe("Stripe's pricing table, configured", () => {
  // A Worker of its own: the shared one has no table (its connects page offers test purchases).
  const tableURL = workerOfItsOwn(8, { STRIPE_PRICING_TABLE_ID: "prctbl_e2e", STRIPE_PUBLISHABLE_KEY: "pk_test_e2e" });

  it("loads its script when the page is reached from another page of the app, under the page's own policy", async () => {
    const { email } = await createAccount("table", tableURL);
    const context = await chromium().newContext({ baseURL: tableURL, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    hydratingGoto(page);
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") blocked.push(message.text());
    });
    // Stripe's script, served here (no network): it marks that it ran.
    await page.route("https://js.stripe.com/**", (route) =>
      route.fulfill({ contentType: "text/javascript", body: "window.pricingTableScriptRan = true;" }),
    );
    await logIn(page, email);
    await page.goto("/mysite");
    await untilHydrated(page);
    await page.getByRole("navigation", { name: "My site" }).getByRole("link", { name: "Connects" }).click();
    await page.waitForURL("**/mysite/connects");
    await expect.poll(() => page.evaluate(() => (window as { pricingTableScriptRan?: boolean }).pricingTableScriptRan === true)).toBe(true);
    expect(await page.locator("stripe-pricing-table").getAttribute("pricing-table-id")).toBe("prctbl_e2e");
    expect(blocked.filter((text) => text.includes("Content Security Policy"))).toEqual([]);
    await context.close();
  });
});
