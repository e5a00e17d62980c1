import { env, SELF } from "cloudflare:test";

export const BASE = "https://market.test";
export const PASSWORD = "Abcdefg1";

/** A client address of its own, so rate limits of one test do not touch another. */
export function newAddress(): string {
  return `198.51.100.${crypto.randomUUID()}`;
}

export function newEmail(prefix = "user"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}@example.com`;
}

interface RequestOptions {
  cookie?: string | null;
  address?: string;
  headers?: Record<string, string>;
}

function baseHeaders({ cookie, address, headers }: RequestOptions): Record<string, string> {
  return {
    Host: new URL(BASE).host,
    "CF-Connecting-IP": address ?? newAddress(),
    ...(cookie ? { Cookie: cookie } : {}),
    ...headers,
  };
}

/** A form post as a browser sends it from one of our pages. */
export function post(path: string, fields: Record<string, string> | URLSearchParams | FormData, options: RequestOptions = {}) {
  const body = fields instanceof URLSearchParams || fields instanceof FormData ? fields : new URLSearchParams(fields);
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin", ...baseHeaders(options) },
  });
}

export function get(path: string, options: RequestOptions = {}) {
  return SELF.fetch(`${BASE}${path}`, { redirect: "manual", headers: baseHeaders(options) });
}

/** The `session=...` pair of a response's Set-Cookie, ready for a Cookie header. */
export function sessionCookieOf(response: Response): string | null {
  for (const cookie of response.headers.getSetCookie()) {
    const pair = cookie.split(";")[0] ?? "";
    if (pair.startsWith("session=") && pair !== "session=") return pair;
  }
  return null;
}

export async function signUp(email = newEmail(), url = `site-${crypto.randomUUID().slice(0, 8)}.com`) {
  const response = await post("/signup", {
    intent: "create",
    email,
    password: PASSWORD,
    url,
    description: "A site about small-space gardening and balcony vegetables.",
  });
  const cookie = sessionCookieOf(response);
  if (response.status !== 302 || !cookie) throw new Error(`sign-up failed: ${response.status} ${await response.text()}`);
  const user = await env.DB.prepare("SELECT id FROM users WHERE email = ?").bind(email).first<{ id: string }>();
  return { email, url, cookie, userId: user!.id };
}

/**
 * Rate limits count in fixed one-minute windows; a test that needs `seconds` inside one window waits for the
 * next window when the current one is about to end.
 */
export async function startOfFreshWindow(seconds: number) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
