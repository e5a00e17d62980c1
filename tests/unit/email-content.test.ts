import { describe, expect, it } from "vitest";
import { isNotification, renderEmail } from "~/domain/email-content";

const base = { subject: "Hello", appUrl: "https://market.test" };

describe("an email's parts", () => {
  it("escapes what the text holds, so a site's name or a message cannot add markup", () => {
    const { html } = renderEmail({
      ...base,
      subject: "<b>x</b>",
      text: '<script>alert(1)</script> & "quotes" <img src=x onerror=alert(1)>',
      unsubscribeUrl: null,
    });
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;");
    expect(html).toContain("<title>&lt;b&gt;x&lt;/b&gt;</title>");
  });

  it("links the product's own addresses, without the punctuation after them; others (a quoted chat message's) stay text", () => {
    const { html } = renderEmail({
      ...base,
      text: 'See https://market.test/mysite/offers?offer=1&x=2. Not javascript:alert(1) "https://evil.test/"',
      unsubscribeUrl: null,
    });
    expect(html).toContain('<a href="https://market.test/mysite/offers?offer=1&amp;x=2" style="color:#4338ca;word-break:break-all">');
    expect(html).not.toContain('href="javascript');
    expect(html).not.toContain('href="https://evil.test/');
    expect(html).toContain("&quot;https://evil.test/&quot;");
    // Nor an address that only begins like the product's.
    expect(renderEmail({ ...base, text: "https://market.test.evil.test/login", unsubscribeUrl: null }).html).not.toContain(
      'href="https://market.test.evil',
    );
  });

  it("has the product's name and a link into it; notifications add the unsubscribe link and one-click headers", () => {
    const notification = renderEmail({ ...base, text: "An offer.", unsubscribeUrl: "https://market.test/unsubscribe?token=abc" });
    expect(notification.text).toContain("Backlink Market: https://market.test/mysite");
    expect(notification.text).toContain("Turn these emails off: https://market.test/unsubscribe?token=abc");
    expect(notification.html).toContain('href="https://market.test/unsubscribe?token=abc"');
    expect(notification.headers).toEqual({
      "List-Unsubscribe": "<https://market.test/unsubscribe?token=abc>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
    const receipt = renderEmail({ ...base, text: "A receipt.", unsubscribeUrl: null });
    expect(receipt.headers).toEqual({});
    expect(receipt.text).not.toContain("unsubscribe");
    expect(receipt.html).toContain('href="https://market.test/mysite"');
  });

  it("knows which kinds are notifications", () => {
    expect(["offer", "chat-messages", "verification-warning"].every(isNotification)).toBe(true);
    expect(["password-reset", "email-confirmation", "receipt", "password-changed", "verification-taken-over"].some(isNotification)).toBe(false);
  });
});
