/** Cross-site request refusal and the security headers of every page. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Paths that outside services post to (signed webhooks); they carry no browser headers. */
const CROSS_SITE_POST_ALLOWED = [/^\/webhooks\//];

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

const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"];

/**
 * Form actions take form bodies of a sane size only: 413 over the size (or 411 when the size is not declared),
 * 415 for other content types. Webhooks read their own bodies.
 */
export function refusedBody(request: Request): { status: 411 | 413 | 415; message: string } | null {
  if (SAFE_METHODS.has(request.method)) return null;
  if (CROSS_SITE_POST_ALLOWED.some((pattern) => pattern.test(new URL(request.url).pathname))) return null;
  const length = request.headers.get("Content-Length");
  if (length === null) {
    return request.body === null ? null : { status: 411, message: "Send the form with its length." };
  }
  if (!/^\d+$/.test(length) || Number(length) > MAX_FORM_BYTES) return { status: 413, message: "This form is too large." };
  if (Number(length) === 0) return null;
  const type = (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!FORM_TYPES.includes(type)) return { status: 415, message: "Send this as a form." };
  return null;
}

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' https: data:",
    "font-src 'self'",
    "connect-src 'self' ws: wss:",
    "frame-src 'self' https://js.stripe.com",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

export function applySecurityHeaders(headers: Headers, nonce: string): void {
  if ((headers.get("Content-Type") ?? "").includes("text/html")) {
    headers.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  }
  headers.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
}
