import { describe, expect, it } from "vitest";
import { modes, newEmail, openPage, publishPage, sharedChromium, signUpInBrowser } from "./browser";

const chromium = sharedChromium();

const home = (canonical: boolean) => `<!doctype html><html lang="en"><head><title>Score test</title>
<meta name="description" content="A site the audit reads in the sandbox."><meta name="viewport" content="width=device-width">
${canonical ? '<link rel="canonical" href="/">' : ""}</head><body><h1>Score test</h1><img src="/a.png" alt="A picture"></body></html>`;

describe.each(modes)("Your Score $name", ({ js }) => {
  it("shows the cards and the chart from the audit after sign-up, and runs the audit again on demand", async () => {
    const host = `score-${crypto.randomUUID().slice(0, 6)}.com`;
    await publishPage(host, "/", home(true));
    await publishPage(host, "/robots.txt", `User-agent: *\nAllow: /\nSitemap: https://${host}/sitemap.xml\n`, "text/plain; charset=utf-8");
    await publishPage(
      host,
      "/sitemap.xml",
      '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>',
      "application/xml; charset=utf-8",
    );
    const { page, errors, close } = await openPage(chromium(), js);
    await signUpInBrowser(page, newEmail("score"), host);
    await page.goto("/mysite/your-score");

    // The audit ran after sign-up; if it is still running the page follows its progress (a reload without JavaScript).
    await page.getByText("70 of 70 points. Title: “Score test”.").waitFor();
    const cards = page.locator('[data-testid="score-card"]');
    expect(await cards.locator("h3").allTextContents()).toEqual([
      "Domain Authority",
      "On-page SEO",
      "Technical SEO",
      "Total Backlinks",
      "Speed",
      "SSL",
    ]);
    const values = await cards.locator(".score-value").allTextContents();
    // The sandbox answers http like https, so there is no redirect to https: Technical SEO and SSL are B.
    expect([values[0], values[1], values[2], values[3], values[5]]).toEqual(["N/A", "100%", "B", "0", "B"]);
    expect(values[4]).toMatch(/^\d{1,3}%$/);
    await page.getByText("To raise it: Redirect http to https.").first().waitFor();
    expect(await page.locator('[data-testid="score-chart"] circle').count()).toBe(1);
    const score = await page.locator(".score-head .score").textContent();
    expect(await page.locator(".site-header .authority .score").textContent()).toBe(score);

    // The owner fixes nothing but loses the canonical link, and runs the audit again: a second point on the chart.
    await publishPage(host, "/", home(false));
    await page.getByRole("button", { name: "Run the audit again" }).click();
    await page.getByText("60 of 70 points. Title: “Score test”.").waitFor();
    await page.getByText("To raise it: Add a canonical link.").waitFor();
    expect(await page.locator('[data-testid="score-chart"] circle').count()).toBe(2);
    await page.getByText(/You can run the audit again in (60|59) minutes\./).waitFor();
    // Its end is said to screen readers, from a status region that was there before it started.
    if (js) await page.getByRole("status").filter({ hasText: "Audit finished." }).waitFor();
    expect(errors).toEqual([]);
    await close();
  });
});
