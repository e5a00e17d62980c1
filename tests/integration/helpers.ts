import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import worker, { createContext, handleFetch } from "~/worker";

export const BASE = "https://market.test";
export const PASSWORD = "Tr4de-Links-Now";

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
  /** Handle the request with the Worker's clock held at this time (epoch ms) instead of the wall clock. */
  at?: number;
}

/** Sends a request to the Worker, through its binding, or with its clock held still when `at` is given. */
async function send(url: string, init: RequestInit, at: number | undefined): Promise<Response> {
  if (at === undefined) return SELF.fetch(url, init);
  const ctx = createExecutionContext();
  const response = await handleFetch(new Request(url, init) as never, { ...createContext(env as never, ctx), now: () => at });
  await waitOnExecutionContext(ctx);
  return response;
}

/** The start of the current rate-limit window of this length: requests held at it all count in one window. */
export function windowStart(windowMs = 60_000): number {
  const now = Date.now();
  return now - (now % windowMs);
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
  return send(
    `${BASE}${path}`,
    { method: "POST", body, redirect: "manual", headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin", ...baseHeaders(options) } },
    options.at,
  );
}

export function get(path: string, options: RequestOptions = {}) {
  return send(`${BASE}${path}`, { redirect: "manual", headers: baseHeaders(options) }, options.at);
}

/** The session cookie's name as production sets it (the tests run the Worker as production). */
export const SESSION_COOKIE = "__Host-session";

/** The `__Host-session=...` pair of a response's Set-Cookie, ready for a Cookie header. */
export function sessionCookieOf(response: Response): string | null {
  for (const cookie of response.headers.getSetCookie()) {
    const pair = cookie.split(";")[0] ?? "";
    if (pair.startsWith(`${SESSION_COOKIE}=`) && pair !== `${SESSION_COOKIE}=`) return pair;
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

/** Puts a site with a listing into the market directly (verification and audits come from later features). */
export async function listSite(
  userId: string,
  site: { host: string; description?: string; tags?: string[]; score?: number | null; verified?: boolean; connects?: number; category?: string },
) {
  const siteId = crypto.randomUUID();
  const listingId = crypto.randomUUID();
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO sites (id, user_id, url, host, description, category, verified, verification_token, score, tags) VALUES (?, ?, ?, ?, ?, ?, ?, 'token', ?, ?)",
    ).bind(
      siteId,
      userId,
      `https://${site.host}`,
      site.host,
      site.description ?? `All about ${site.host}`,
      site.category ?? "blog",
      site.verified === false ? 0 : 1,
      site.score === undefined ? 50 : site.score,
      JSON.stringify(site.tags ?? []),
    ),
    env.DB.prepare(
      "INSERT INTO listings (id, site_id, user_id, connects, content_types, materials) VALUES (?, ?, ?, ?, '[\"blog-post\"]', '[\"logo\"]')",
    ).bind(listingId, siteId, userId, site.connects ?? 10),
  ]);
  return { siteId, listingId };
}

export function uniqueHost(prefix: string) {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}.com`;
}

/** The page's HTML without the comments React puts between adjacent text parts. */
export async function read(response: Response): Promise<string> {
  return (await response.text()).replaceAll("<!-- -->", "");
}

/**
 * A request to the Worker as `npm start` runs it (ENVIRONMENT=development, the web sandbox off unless asked) on a
 * local address: what the development-only pages need. The other tests run it as production.
 */
export async function devFetch(path: string, init: RequestInit & { headers?: Record<string, string> } = {}, vars: Record<string, string> = {}) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new Request(`http://localhost:8787${path}`, {
      redirect: "manual",
      ...init,
      headers: { Host: "localhost:8787", Origin: "http://localhost:8787", ...init.headers },
    }) as never,
    { ...(env as unknown as Record<string, unknown>), ENVIRONMENT: "development", DEV_WEB_SANDBOX: "0", ...vars } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

/** A signed-up user whose first site is verified, so it can trade. */
export async function trader() {
  const user = await signUp();
  await env.DB.prepare("UPDATE sites SET verified = 1 WHERE user_id = ?").bind(user.userId).run();
  const site = await env.DB.prepare("SELECT id FROM sites WHERE user_id = ?").bind(user.userId).first<{ id: string }>();
  return { ...user, siteId: site!.id };
}

/** A post card's link on the market or the search results (which open the post's panel over themselves): its id. */
export const POST_LINK = /href="[^"]*[?;]post=([^"&]+)"/g;

/** Sends a proposal as the trade terms panel does, from the market or from the page at `from` that shows the panel. */
export function propose(cookie: string, listingId: string, extra: [string, string][] = [], from = `/market?post=${listingId}`, at?: number) {
  return post(
    from,
    new URLSearchParams([
      ["intent", "propose"],
      ["listingId", listingId],
      ["myContentType", "blog-post"],
      ["theirContentType", "feature"],
      ["myMaterials", "logo"],
      ["theirMaterials", "short-description"],
      ...extra,
    ]),
    { cookie, at },
  );
}

export function act(cookie: string, offerId: string, fields: [string, string][], at?: number) {
  return post(`/mysite/offers?offer=${offerId}`, new URLSearchParams(fields), { cookie, at });
}

/** Moves the user's side of a trade to the column `to`, as the panel's form does, with the content's address if given. */
export function move(cookie: string, offerId: string, to: string, contentUrl?: string) {
  const fields: [string, string][] = [
    ["intent", "move"],
    ["to", to],
  ];
  return act(cookie, offerId, contentUrl === undefined ? fields : [...fields, ["contentUrl", contentUrl]]);
}

/** The test environment with a database whose statements on `table` throw, as D1 does when it is unavailable. */
export function envWithFailingTable(table: string) {
  return {
    ...(env as unknown as Record<string, unknown>),
    DB: new Proxy(env.DB, {
      get(target, name) {
        if (name === "prepare") {
          return (query: string) => {
            if (query.includes(table)) throw new Error("D1_ERROR: the database is unavailable");
            return target.prepare(query);
          };
        }
        const value = Reflect.get(target, name) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }),
  };
}
