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
