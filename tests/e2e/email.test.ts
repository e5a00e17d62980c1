import { describe, expect, it } from "vitest";
import { createAccount, modes, openPage, sharedChromium, sql, unexpected } from "./browser";

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
});
