import { describe, expect, it } from "vitest";
import { createAccount, logIn, modes, sharedChromium, untilHydrated, workerOfItsOwn } from "./browser";

const chromium = sharedChromium();

/**
 * Google's sign-in and Stripe's Payment Links, configured, in a Worker of its own (the shared one has neither). The
 * browser reaches each page through the app's own links, as users do: a page's security policy is the one its document
 * came with, and a form's redirect to another site must be allowed by it.
 */
describe("the services outside, configured", () => {
  // Beside the shared Worker and the pricing table's (+8).
  const origin = workerOfItsOwn(9, {
    GOOGLE_CLIENT_ID: "e2e-client",
    GOOGLE_CLIENT_SECRET: "e2e-secret",
    STRIPE_PAYMENT_LINK_30: "https://buy.stripe.com/test_e2e_30",
    STRIPE_PAYMENT_LINK_60: "https://buy.stripe.com/test_e2e_60",
    STRIPE_PAYMENT_LINK_100: "https://buy.stripe.com/test_e2e_100",
  });

  /** A browser whose errors are kept, with the outside site's page served here (no network). */
  async function browserWith(js: boolean, outside: string, title: string) {
    const context = await chromium().newContext({ baseURL: origin, javaScriptEnabled: js, viewport: { width: 375, height: 800 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.route(`${outside}/**`, (route) => route.fulfill({ contentType: "text/html", body: `<title>${title}</title><h1>${title}</h1>` }));
    return { context, page, errors };
  }

  it.each(modes)(
    "the login page reached from the landing page sends its Google button on to Google, with the sign-in's state, $name",
    async ({ js }) => {
      const { context, page, errors } = await browserWith(js, "https://accounts.google.com", "Sign in with Google");
      await page.goto("/");
      if (js) await untilHydrated(page);
      await page.getByRole("link", { name: "Login" }).first().click();
      await page.waitForURL("**/login");
      await page.getByRole("button", { name: "Continue with Google" }).click();
      await page.getByRole("heading", { name: "Sign in with Google" }).waitFor();
      const at = new URL(page.url());
      expect(at.origin).toBe("https://accounts.google.com");
      expect(at.searchParams.get("client_id")).toBe("e2e-client");
      expect(at.searchParams.get("redirect_uri")).toBe(`${origin}/auth/google/callback`);
      // The state the browser carries back is the one Google was sent.
      const state = (await context.cookies(origin)).find((cookie) => cookie.name === "oauth_state");
      expect(decodeURIComponent(state!.value)).toContain(`"state":"${at.searchParams.get("state")}"`);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it.each(modes)("the connects page reached from the dashboard sends 'Pay by card' on to the bundle's Payment Link, $name", async ({ js }) => {
    const { email } = await createAccount("paylink", origin);
    const { context, page, errors } = await browserWith(js, "https://buy.stripe.com", "Stripe checkout");
    await logIn(page, email);
    await page.goto("/mysite");
    if (js) await untilHydrated(page);
    await page.getByRole("navigation", { name: "My site" }).getByRole("link", { name: "Connects" }).click();
    await page.waitForURL("**/mysite/connects");
    await page.getByText("60 connects").click();
    await page.getByRole("button", { name: "Pay by card" }).click();
    await page.getByRole("heading", { name: "Stripe checkout" }).waitFor();
    const at = new URL(page.url());
    expect(`${at.origin}${at.pathname}`).toBe("https://buy.stripe.com/test_e2e_60");
    expect(at.searchParams.get("prefilled_email")).toBe(email);
    expect(errors).toEqual([]);
    await context.close();
  });
});
