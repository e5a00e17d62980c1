/**
 * What an email says, as text and as HTML: the message, the product's name and a link into the product, and for
 * notifications a way to turn them off (also as one-click List-Unsubscribe headers, RFC 8058).
 */

export const PRODUCT_NAME = "Backlink Market";

/**
 * Kinds that are notifications: a user may turn them off. Receipts and security emails (password resets,
 * confirmations, password changes, a site's verification taken over) always go and carry no unsubscribe link.
 */
export const NOTIFICATION_KINDS = ["offer", "chat-messages", "verification-warning", "verification-removed", "link-check"] as const;

export function isNotification(kind: string): boolean {
  return (NOTIFICATION_KINDS as readonly string[]).includes(kind);
}

export interface RenderedEmail {
  text: string;
  html: string;
  headers: Record<string, string>;
}

function escapeHtml(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

const LINK = /(https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'])/g;

/**
 * One paragraph of the text as HTML: escaped, line breaks kept, the product's own addresses as links. Other addresses
 * stay text: an email quotes what users wrote (a chat message), and a link there, in an email from the product's own
 * address, would lend it the product's trust (a "confirm your account" page elsewhere).
 */
function paragraph(text: string, origin: string): string {
  const parts = text.split(LINK).map((part, index) => {
    const escaped = escapeHtml(part);
    const ours = part === origin || part.startsWith(`${origin}/`);
    return index % 2 === 1 && ours
      ? `<a href="${escaped}" style="color:#4338ca;word-break:break-all">${escaped}</a>`
      : escaped.replaceAll("\n", "<br>");
  });
  return `<p style="margin:0 0 16px">${parts.join("")}</p>`;
}

export function renderEmail(input: { subject: string; text: string; appUrl: string; unsubscribeUrl: string | null }): RenderedEmail {
  const home = new URL("/mysite", input.appUrl).toString();
  const footerText = input.unsubscribeUrl
    ? `You get this email because you have an account at ${PRODUCT_NAME}. Turn these emails off: ${input.unsubscribeUrl}`
    : `You get this email because you have an account at ${PRODUCT_NAME}.`;
  const text = `${input.text.trim()}\n\n-- \n${PRODUCT_NAME}: ${home}\n${footerText}\n`;
  const origin = new URL(input.appUrl).origin;
  const body = input.text
    .trim()
    .split(/\n{2,}/)
    .map((text) => paragraph(text, origin))
    .join("");
  const footer = input.unsubscribeUrl
    ? `You get this email because you have an account at ${PRODUCT_NAME}. <a href="${escapeHtml(
        input.unsubscribeUrl,
      )}" style="color:#4b5563">Turn these emails off</a>.`
    : `You get this email because you have an account at ${PRODUCT_NAME}.`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(input.subject)}</title></head>
<body style="margin:0;padding:0;background:#f8fafc;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f8fafc"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid #e5e7eb;border-radius:12px">
<tr><td style="padding:20px 24px 8px;font-size:18px;font-weight:700;color:#4338ca">${PRODUCT_NAME}</td></tr>
<tr><td style="padding:8px 24px 0;font-size:16px;line-height:1.5">${body}</td></tr>
<tr><td style="padding:0 24px 24px"><a href="${escapeHtml(
    home,
  )}" style="display:inline-block;padding:10px 18px;border-radius:8px;background:#4338ca;color:#ffffff;text-decoration:none;font-weight:600">Open ${PRODUCT_NAME}</a></td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e5e7eb;font-size:12px;line-height:1.5;color:#4b5563">${footer}</td></tr>
</table></td></tr></table>
</body></html>`;
  const headers: Record<string, string> = input.unsubscribeUrl
    ? { "List-Unsubscribe": `<${input.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" }
    : {};
  return { text, html, headers };
}
