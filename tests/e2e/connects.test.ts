import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { logIn, modes, openPage, sharedChromium, sql, twoVerifiedTraders, unexpected } from "./browser";

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
