/** Cross-site request refusal and the security headers of every page. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The path an outside service posts to (Stripe's signed webhook); it carries no browser headers. */
const CROSS_SITE_POST_ALLOWED = [/^\/webhooks\/stripe$/];

export function isRefusedCrossSiteRequest(request: Request): boolean {
  if (SAFE_METHODS.has(request.method)) return false;
  const url = new URL(request.url);
  if (CROSS_SITE_POST_ALLOWED.some((pattern) => pattern.test(url.pathname))) return false;
  const fetchSite = request.headers.get("Sec-Fetch-Site");
  if (fetchSite && fetchSite !== "same-origin" && fetchSite !== "none") return true;
  const origin = request.headers.get("Origin");
  if (origin && origin !== "null") {
    try {
      return new URL(origin).host !== url.host;
    } catch {
      return true;
    }
  }
  return origin === "null";
}

/** Forms of this product are small; anything larger is refused before it is read. */
export const MAX_FORM_BYTES = 64 * 1024;
/**
 * The development web sandbox's form (`/dev/sites`, on this machine only) carries a whole page, up to 500 KB, which
 * form encoding may triple.
 */
export const DEV_SANDBOX_FORM_BYTES = 1536 * 1024;

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

export type BodyCheck = { ok: true; request: Request } | { ok: false; status: 413 | 415; message: string };

const TOO_LARGE = { ok: false, status: 413, message: "This form is too large." } as const;

/**
 * Form actions take form bodies of a sane size only: 413 over the size, refused from its declared length before
 * anything is read, and read at most to the limit when no length is declared; 415 for other content types.
 * Webhooks read their own bodies.
 */
export async function checkFormBody(request: Request, maxBytes = MAX_FORM_BYTES): Promise<BodyCheck> {
  if (SAFE_METHODS.has(request.method) || request.body === null) return { ok: true, request };
  if (CROSS_SITE_POST_ALLOWED.some((pattern) => pattern.test(new URL(request.url).pathname))) return { ok: true, request };
  const length = request.headers.get("Content-Length");
  if (length !== null && (!/^\d+$/.test(length) || Number(length) > maxBytes)) return TOO_LARGE;
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (length !== "0" && !FORM_TYPES.includes(type)) {
    await request.body.cancel().catch(() => undefined);
    return { ok: false, status: 415, message: "Send this as a form." };
  }
  if (length !== null) return { ok: true, request };
  // No declared length (a chunked upload): read at most the limit, then hand on a request with a known body.
  const body = await readBodyUpTo(request.body, maxBytes);
  return body ? { ok: true, request: new Request(request, { body }) } : TOO_LARGE;
}

/** A body read whole if it is at most `maxBytes`; null (and the rest cancelled) as soon as it is larger. */
export async function readBodyUpTo(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Other origins the pages may use: where a form's redirect may go (payment links), scripts to load (Stripe's table). */
export interface PolicyAllowances {
  formTargets?: readonly string[];
  scripts?: readonly string[];
  /**
   * Inline styles: only where a page shows what it does not write itself (an email's HTML in the dev mailbox,
   * Stripe's pricing table). The product's own pages use none, so injected markup cannot restyle them.
   */
  inlineStyles?: boolean;
}

export function contentSecurityPolicy(nonce: string, allow: PolicyAllowances = {}): string {
  const extra = (origins: readonly string[] | undefined) => (origins && origins.length > 0 ? ` ${origins.join(" ")}` : "");
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${extra(allow.scripts)}`,
    `style-src 'self'${allow.inlineStyles ? " 'unsafe-inline'" : ""}`,
    "img-src 'self' https: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self' https://js.stripe.com",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    `form-action 'self'${extra(allow.formTargets)}`,
    "object-src 'none'",
  ].join("; ");
}

/** The context's nonce is read for pages only (their CSP); other answers never make one. */
export function applySecurityHeaders(headers: Headers, context: { nonce: string }, allow: PolicyAllowances = {}): void {
  if ((headers.get("Content-Type") ?? "").includes("text/html")) {
    headers.set("Content-Security-Policy", contentSecurityPolicy(context.nonce, allow));
  }
  headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
}
