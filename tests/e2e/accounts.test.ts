import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { baseURL, createAccount, sharedChromium, logIn, modes, newEmail, openPage, PASSWORD, unexpected } from "./browser";

const chromium = sharedChromium();

describe.each(modes)("accounts $name", ({ js }) => {
  it("signs up through both steps and lands on /market", async () => {
    const { page, errors, close } = await openPage(chromium(), js);
    const email = newEmail("signup");
    const host = `signup-${crypto.randomUUID().slice(0, 6)}.com`;
    await page.goto("/signup");
    await page.fill('.modal input[name="email"]', "ana@");
    await page.fill('.modal input[name="password"]', "abc");
    if (js) {
      await expect.poll(() => page.locator(".field-error").first().textContent()).toBe(messages.emailIncomplete);
      // The message describes the field; the field's name is still its caption alone.
      const field = page.getByRole("textbox", { name: "Email", exact: true });
      expect(await field.count()).toBe(1);
      expect(await field.getAttribute("aria-describedby")).toBe("signup-email-error");
      expect(await page.locator(".checklist li.met").count()).toBe(1);
      expect(await page.getByRole("button", { name: "Continue" }).isDisabled()).toBe(true);
    }
    await page.fill('.modal input[name="email"]', email);
    await page.fill('.modal input[name="password"]', PASSWORD);
    if (js) expect(await page.locator(".checklist li.met").count()).toBe(4);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Tell us about your website" }).waitFor();
    // With JavaScript each step's first field takes the focus (the pressed button is gone); without it, each step is
    // a new page.
    if (js) await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("signup-url");
    await page.getByRole("button", { name: "Back" }).click();
    await page.getByRole("button", { name: "Continue" }).waitFor();
    if (js) await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("signup-email");
    expect(await page.inputValue('.modal input[name="email"]')).toBe(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.fill('.modal input[name="url"]', host);
    await page.fill('.modal textarea[name="description"]', "A site about e2e testing of marketplaces.");
    const create = page.getByRole("button", { name: "Create Account" });
    await create.click();
    if (js) {
      await expect.poll(() => create.isDisabled()).toBe(true);
      await expect.poll(() => page.locator(".spinner").count()).toBeGreaterThan(0);
    }
    await page.waitForURL("**/market");
    expect(await page.locator(".site-switcher-name").textContent()).toBe(host);
    expect(errors).toEqual([]);
    await close();
  });

  it("a taken email comes back to its field on the first step, and another one goes through", async () => {
    const taken = await createAccount("taken");
    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto("/signup");
    await page.fill('.modal input[name="email"]', taken.email);
    await page.fill('.modal input[name="password"]', PASSWORD);
    await page.getByRole("button", { name: "Continue" }).click();
    const host = `taken-${crypto.randomUUID().slice(0, 6)}.com`;
    await page.fill('.modal input[name="url"]', host);
    await page.fill('.modal textarea[name="description"]', "A site whose owner once signed up already.");
    await page.getByRole("button", { name: "Create Account" }).click();
    await expect.poll(() => page.locator("#signup-email-error").textContent()).toBe(messages.emailInUse);
    expect(await page.getByRole("textbox", { name: "Email", exact: true }).getAttribute("aria-describedby")).toBe("signup-email-error");
    expect(await page.inputValue('.modal input[name="email"]')).toBe(taken.email);
    // The password is not asked for again. With JavaScript, the message is about the address sent: it goes as the
    // address changes (the live check takes over once the field is left).
    await page.fill('.modal input[name="email"]', newEmail("untaken"));
    if (js) await expect.poll(() => page.locator("#signup-email-error").textContent()).toBe("");
    await page.getByRole("button", { name: "Continue" }).click();
    expect(await page.inputValue('.modal input[name="url"]')).toBe(host);
    await page.getByRole("button", { name: "Create Account" }).click();
    await page.waitForURL("**/market");
    expect(await page.locator(".site-switcher-name").textContent()).toBe(host);
    expect(unexpected(errors, 409)).toEqual([]);
    await close();
  });

  it("shows the login error, then signs in", async () => {
    const { email } = await createAccount("login");
    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto(`/login?email=${encodeURIComponent(email)}`);
    expect(await page.inputValue('.modal input[name="email"]')).toBe(email);
    await page.fill('.modal input[name="password"]', "Wrong-password1");
    await page.click('.modal button[type="submit"]');
    await expect.poll(() => page.locator(".form-error").textContent()).toBe(messages.incorrectCredentials);
    if (js) {
      await page.focus('.modal input[name="password"]');
      await expect.poll(() => page.locator(".form-error").count()).toBe(0);
    }
    await page.fill('.modal input[name="password"]', PASSWORD);
    await page.click('.modal button[type="submit"]');
    await page.waitForURL("**/market");
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });

  it("resets the password through the dev mailbox", async () => {
    const { email } = await createAccount("reset");
    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto("/reset-password");
    // The notice's live region is on the page before the notice, so a screen reader says it when it comes.
    const status = page.locator(".modal").getByRole("status");
    expect(await status.textContent()).toBe("");
    await page.fill('.modal input[name="email"]', email);
    await page.click('.modal button[type="submit"]');
    await status.getByText(messages.checkSpam).waitFor();
    if (js) {
      await page.fill('.modal input[name="email"]', `${email}x`);
      await expect.poll(() => page.getByText(messages.checkSpam).count()).toBe(0);
    }
    await page.goto("/dev/mailbox");
    const mail = page.locator('[data-testid="mail"]', { hasText: email }).first();
    const link = await mail.locator('a[href*="/reset-password?token="]').getAttribute("href");
    await page.goto(link!);
    await page.fill('.modal input[name="password"]', "Brandnew9pass");
    await page.click('.modal button[type="submit"]');
    await page.waitForURL("**/login?notice=password-changed");
    await page.getByText(messages.passwordChanged).waitFor();
    await logIn(page, email, "Brandnew9pass");
    expect(errors).toEqual([]);
    await close();
  });
  it("changes the password in Settings, its rules turning green as it is typed, and signs in with the new one", async () => {
    const { email } = await createAccount("change");
    const { page, errors, close } = await openPage(chromium(), js);
    await logIn(page, email);
    await page.goto("/mysite/settings");
    // Each password field is named by its caption alone, its Show/Hide toggle beside it (with JavaScript) not read into it.
    for (const name of ["Current password", "New password"]) expect(await page.getByLabel(name, { exact: true }).count()).toBe(1);
    await page.getByLabel("Current password").fill(PASSWORD);
    const rules = page.locator("#new-password-rules li");
    await page.getByLabel("New password").fill("fresh");
    if (js) await expect.poll(() => page.locator("#new-password-rules li.met").count()).toBe(1);
    await page.getByLabel("New password").fill("Fresh-Secret-77");
    if (js) await expect.poll(() => page.locator("#new-password-rules li.met").count()).toBe(await rules.count());
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByRole("status").filter({ hasText: messages.passwordUpdated }).waitFor();
    // Changed, the form is empty again, with JavaScript and without.
    await expect.poll(() => page.getByLabel("Current password").inputValue()).toBe("");
    expect(await page.getByLabel("New password").inputValue()).toBe("");
    await page.context().clearCookies();
    await logIn(page, email, "Fresh-Secret-77");
    expect(errors).toEqual([]);
    await close();
  });

  it("says 'Invalid email' on sign-up for an address with a wrong part, and keeps what was typed", async () => {
    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto("/signup");
    await page.fill('.modal input[name="email"]', "ann..lee@example.com");
    await page.fill('.modal input[name="password"]', PASSWORD);
    const next = page.getByRole("button", { name: "Continue" });
    if (js) {
      // Shown once the user has left the field; Continue stays grey and says why.
      await expect.poll(() => page.locator("#signup-email-error").textContent()).toBe(messages.invalidEmail);
      expect(await next.isDisabled()).toBe(true);
      expect(await page.locator("#signup-account-missing").textContent()).toBe("Still to fill in: email.");
    } else {
      await next.click();
      await expect.poll(() => page.locator("#signup-email-error").textContent()).toBe(messages.invalidEmail);
      expect(await page.inputValue('.modal input[name="password"]')).toBe("");
    }
    expect(await page.inputValue('.modal input[name="email"]')).toBe("ann..lee@example.com");
    expect(await page.getByText(messages.emailIncomplete).count()).toBe(0);
    await page.fill('.modal input[name="email"]', newEmail("mended"));
    if (js) await expect.poll(() => page.locator("#signup-email-error").textContent()).toBe("");
    else await page.fill('.modal input[name="password"]', PASSWORD);
    await next.click();
    await page.getByRole("heading", { name: "Tell us about your website" }).waitFor();
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });

  it("login and reset send whatever is typed, empty or malformed, and show the server's message", async () => {
    const { page, errors, close } = await openPage(chromium(), js);
    // Each submit must reach the server: no browser check stops it (a validation bubble would leave no answer).
    const submit = async () => {
      await Promise.all([page.waitForResponse((response) => response.request().method() === "POST"), page.click('.modal button[type="submit"]')]);
    };
    const error = page.locator(".modal .form-error");

    await page.goto("/login");
    await submit();
    await expect.poll(() => error.textContent()).toBe(messages.incorrectCredentials);
    await page.fill('.modal input[name="email"]', "not-an-email");
    await page.fill('.modal input[name="password"]', "x");
    await submit();
    await expect.poll(() => error.textContent()).toBe(messages.incorrectCredentials);
    expect(await page.inputValue('.modal input[name="email"]')).toBe("not-an-email");

    await page.goto("/reset-password");
    await submit();
    await expect.poll(() => error.textContent()).toBe(messages.resetFailed);
    await page.fill('.modal input[name="email"]', "not-an-email");
    await submit();
    await expect.poll(() => error.textContent()).toBe(messages.resetFailed);
    expect(await page.inputValue('.modal input[name="email"]')).toBe("not-an-email");
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });
});

describe("accounts when the scripts come late", () => {
  it("sign-up's Continue pressed before the page's scripts ran keeps the password, and Create Account works once they run", async () => {
    const context = await chromium().newContext({ baseURL: baseURL(), viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // The first page's scripts wait (a slow connection) until Continue has been pressed.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\.js$/, async (route) => {
      await released;
      await route.continue().catch(() => {}); // the first page's requests end with its navigation
    });
    await page.goto("/signup", { waitUntil: "commit" });
    await page.fill('.modal input[name="email"]', newEmail("late-scripts"));
    await page.fill('.modal input[name="password"]', PASSWORD);
    await Promise.all([page.waitForURL("**/signup", { waitUntil: "commit" }), page.getByRole("button", { name: "Continue" }).click()]);
    release();
    await page.getByRole("heading", { name: "Tell us about your website" }).waitFor();
    await page.waitForSelector("html[data-hydrated]", { state: "attached" });
    const host = `late-scripts-${crypto.randomUUID().slice(0, 6)}.com`;
    await page.fill('.modal input[name="url"]', host);
    await page.fill('.modal textarea[name="description"]', "A site whose owner typed faster than the page loaded.");
    const create = page.getByRole("button", { name: "Create Account" });
    await expect.poll(() => create.isDisabled()).toBe(false);
    await create.click();
    await page.waitForURL("**/market");
    expect(await page.locator(".site-switcher-name").textContent()).toBe(host);
    expect(errors).toEqual([]);
    await context.close();
  });
});
