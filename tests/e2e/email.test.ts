import { describe, expect, it } from "vitest";
import { messages } from "~/domain/messages";
import { createAccount, modes, openPage, PASSWORD, sharedChromium, sql, unexpected } from "./browser";

const chromium = sharedChromium();

describe.each(modes)("email settings $name", ({ js }) => {
  it("an email's unsubscribe link turns notification emails off, and back on", async () => {
    const user = await createAccount("unsubscribe");
    const token = crypto.randomUUID().replaceAll("-", "");
    sql(`UPDATE users SET unsubscribe_token = '${token}' WHERE email = '${user.email}'`);
    const wanted = () => sql<{ on: number }>(`SELECT notification_emails AS "on" FROM users WHERE email = '${user.email}'`)[0]!.on;

    const { page, errors, close } = await openPage(chromium(), js);
    await page.goto(`/unsubscribe?token=${token}`);
    await page.getByText(user.email).waitFor();
    expect(wanted()).toBe(1);
    await page.getByRole("button", { name: "Turn off notification emails" }).click();
    await page.getByRole("status").filter({ hasText: "you will not get notification emails any more" }).waitFor();
    expect(wanted()).toBe(0);
    await page.getByRole("button", { name: "Turn notification emails back on" }).click();
    await page.getByRole("status").filter({ hasText: "notification emails are on again" }).waitFor();
    expect(wanted()).toBe(1);

    // The dev mailbox shows the sign-up's confirmation with both of its parts and its delivery.
    await page.goto("/dev/mailbox");
    const mail = page.getByTestId("mail").filter({ hasText: user.email }).first();
    await mail.getByText("Text part").waitFor();
    await mail.getByText("HTML part").click();
    expect(await mail.getByTestId("mail-status").textContent()).toMatch(/sent via mailbox · 1 attempt/);
    expect(unexpected(errors)).toEqual([]);
    await close();
  });

  it("a confirmation link used up while its page was open says so when pressed", async () => {
    const user = await createAccount("confirm");
    const [mail] = sql<{ text: string }>(
      `SELECT text_body AS text FROM email_outbox WHERE to_address = '${user.email}' AND kind = 'email-confirmation' ORDER BY created_at DESC LIMIT 1`,
    );
    const token = mail!.text.match(/confirm-email\?token=([a-z2-7]+)/)![1]!;
    const { page, errors, close } = await openPage(chromium(), js);
    // Signed out, the page asks to log in to the account first, and comes back to the link.
    await page.goto(`/confirm-email?token=${token}`);
    await page.getByRole("link", { name: "Log in to confirm" }).click();
    await page.fill('.modal input[name="email"]', user.email);
    await page.fill('.modal input[name="password"]', PASSWORD);
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await page.getByRole("button", { name: "Confirm my email" }).waitFor();
    // Used (or expired) elsewhere meanwhile.
    sql(`DELETE FROM email_confirmation_tokens WHERE user_id = (SELECT id FROM users WHERE email = '${user.email}')`);
    await page.getByRole("button", { name: "Confirm my email" }).click();
    await page.getByRole("alert").filter({ hasText: messages.confirmationLinkInvalid }).waitFor();
    expect(await page.getByRole("button", { name: "Confirm my email" }).count()).toBe(0);
    expect(unexpected(errors, 400)).toEqual([]);
    await close();
  });
});
