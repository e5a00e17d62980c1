import { describe, expect, it } from "vitest";
import { formatShortDate } from "~/domain/dates";
import { createAccount, logIn, modes, openPage, sharedChromium, sql } from "./browser";

const chromium = sharedChromium();

/** A new account signed in from a browser in `zone`, and when its starter connects (the first row of its history) came. */
async function signedInFrom(zone: string, js: boolean, prefix: string) {
  const { email } = await createAccount(prefix);
  const opened = await openPage(chromium(), js, 1280, zone);
  await logIn(opened.page, email);
  const [grant] = sql<{ created_at: number }>(
    `SELECT l.created_at FROM connect_ledger l JOIN users u ON u.id = l.user_id WHERE u.email = '${email}' ORDER BY l.created_at LIMIT 1`,
  );
  return { ...opened, grantedAt: grant!.created_at };
}

describe.each(modes)("times in the viewer's time zone $name", ({ js }) => {
  it("a browser in Pacific/Auckland sees its own clock with JavaScript, and UTC without", async () => {
    const { page, errors, close, grantedAt } = await signedInFrom("Pacific/Auckland", js, "zone");
    const zone = js ? "Pacific/Auckland" : "UTC";
    const expected = formatShortDate(grantedAt, Date.now(), zone);
    // Auckland is 12 or 13 hours ahead: the two clocks never read the same.
    expect(expected).not.toBe(formatShortDate(grantedAt, Date.now(), js ? "UTC" : "Pacific/Auckland"));

    await page.goto("/mysite/connects");
    const firstTime = () => page.getByTestId("connects-history").locator("tbody tr td").first().textContent();
    await expect.poll(firstTime).toBe(expected);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "tz")?.value).toBe(js ? "Pacific%2FAuckland" : undefined);
    // The next page is rendered by the server in the same zone from the start.
    await page.goto("/mysite/connects");
    expect(await firstTime()).toBe(expected);
    expect(errors).toEqual([]);
    await close();
  });
});

describe("a browser whose clock already reads as the page's zone", () => {
  it("keeps the page and reports nothing: Reykjavik keeps UTC all year, so its times read as the UTC page's", async () => {
    const { page, errors, close, grantedAt } = await signedInFrom("Atlantic/Reykjavik", true, "zone-same");
    await page.goto("/mysite/connects");
    // `goto` waits for the hydration mark, set in the same effects as the zone's check: a report would have set the cookie.
    expect((await page.context().cookies()).find((cookie) => cookie.name === "tz")).toBeUndefined();
    const firstTime = await page.getByTestId("connects-history").locator("tbody tr td").first().textContent();
    expect(firstTime).toBe(formatShortDate(grantedAt, Date.now(), "Atlantic/Reykjavik"));
    expect(firstTime).toBe(formatShortDate(grantedAt, Date.now(), "UTC"));
    expect(errors).toEqual([]);
    await close();
  });

  it("in UTC, shows and hydrates a page of dates without setting up Intl's date formatting", async () => {
    const { page, errors, close, grantedAt } = await signedInFrom("UTC", true, "zone-utc");
    // Every date format made in the page, counted from before its first script runs.
    await page.addInitScript(() => {
      const made = { count: 0 };
      Object.assign(window, { dateFormatsMade: made });
      const Original = Intl.DateTimeFormat;
      Intl.DateTimeFormat = new Proxy(Original, {
        construct(target, args) {
          made.count += 1;
          return Reflect.construct(target, args);
        },
        apply(target, that, args) {
          made.count += 1;
          return Reflect.apply(target, that, args);
        },
      });
    });
    await page.goto("/mysite/connects");
    expect(await page.getByTestId("connects-history").locator("tbody tr td").first().textContent()).toBe(
      formatShortDate(grantedAt, Date.now(), "UTC"),
    );
    expect(await page.evaluate(() => (window as unknown as { dateFormatsMade: { count: number } }).dateFormatsMade.count)).toBe(0);
    expect(errors).toEqual([]);
    await close();
  });
});
