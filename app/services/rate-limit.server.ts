/** Exact fixed-window counters in D1: one atomic upsert per attempt. */
import { and, eq, lt, sql } from "drizzle-orm";
import { rateLimits } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { ipv6Groups } from "~/lib/public-address";
import { numberVar, type Env } from "~/lib/env";

export interface RateLimitRule {
  /** What is limited, e.g. "login:account". */
  name: string;
  limit: number;
  windowMs: number;
  /** Per client address (scaled by ADDRESS_RATE_LIMIT_SCALE) rather than per account. */
  perAddress?: boolean;
}

export const RATE_LIMITS = {
  /** Wrong passwords for one account from one address: 10 a quarter hour, then 30 a day (the back-off). */
  loginPerAccountAddress: { name: "login:account-ip", limit: 10, windowMs: 15 * 60_000 },
  loginPerAccountAddressDaily: { name: "login:account-ip:day", limit: 30, windowMs: 24 * 60 * 60_000 },
  /**
   * From every address together: a ceiling on guessing one account from many addresses, far above what an owner types.
   * It refuses the right password too while it lasts, except from a browser that signed in to the account before
   * (known-devices.server.ts), which counts against its own limit instead. So a spread-out attacker can keep an owner
   * from signing in only on a browser they never signed in from (sessions already open stay).
   */
  loginPerAccount: { name: "login:account", limit: 100, windowMs: 60 * 60_000 },
  /** Wrong passwords from one known browser while the ceiling above holds (a stolen device cookie guesses no faster). */
  loginPerKnownDevice: { name: "login:device", limit: 10, windowMs: 60 * 60_000 },
  loginPerAddress: { name: "login:ip", limit: 50, windowMs: 60_000, perAddress: true },
  signupPerAddress: { name: "signup:ip", limit: 10, windowMs: 60_000, perAddress: true },
  /** Step 0 of a sign-up without JavaScript (a password hash and a draft row each). */
  signupDraftsPerAddress: { name: "signup-draft:ip", limit: 20, windowMs: 60_000, perAddress: true },
  resetPerAddress: { name: "reset:ip", limit: 10, windowMs: 60_000, perAddress: true },
  /** Reset links asked for one account from anywhere; a browser the account knows has its own 5 beyond it. */
  resetPerAccount: { name: "reset:account", limit: 5, windowMs: 60 * 60_000 },
  resetPerKnownDevice: { name: "reset:device", limit: 5, windowMs: 60 * 60_000 },
  verificationChecksPerSite: { name: "verify:site", limit: 10, windowMs: 60 * 60_000 },
  /**
   * New verification tags for one site. A re-check that reads the page while the tag is renewed stores nothing
   * (docs/decisions/0053-writes-that-overlap.md): renewing without end would keep a site verified by one who lost it.
   */
  newTagsPerSite: { name: "new-tag:site", limit: 10, windowMs: 60 * 60_000 },
  iconUpdatesPerSite: { name: "icon:site", limit: 10, windowMs: 60 * 60_000 },
  confirmationsPerUser: { name: "confirm-email:user", limit: 3, windowMs: 60 * 60_000 },
  passwordChangesPerUser: { name: "password-change:user", limit: 10, windowMs: 60 * 60_000 },
  proposalsPerSender: { name: "propose:user", limit: 20, windowMs: 60 * 60_000 },
  waitlistPerAddress: { name: "waitlist:ip", limit: 10, windowMs: 60 * 60_000, perAddress: true },
  feedbackPerUser: { name: "feedback:user", limit: 10, windowMs: 60 * 60_000 },
  addSitePerUser: { name: "add-site:user", limit: 10, windowMs: 60 * 60_000 },
  settingsPerUser: { name: "settings:user", limit: 60, windowMs: 60 * 60_000 },
  /** Opening (or reopening) a conversation from an offer or a listing. */
  chatOpensPerUser: { name: "chat-open:user", limit: 60, windowMs: 60 * 60_000 },

  /** Every check, icon update and icon lookup after adding a site, per account: new sites do not add budget. */
  siteFetchesPerUser: { name: "site-fetch:user", limit: 40, windowMs: 60 * 60_000 },
} satisfies Record<string, RateLimitRule>;

function windowOf(rule: RateLimitRule, now: number) {
  return now - (now % rule.windowMs);
}

/**
 * Counts one attempt and tells whether it is within the limit. `addressScale` multiplies the limits per address
 * (ADDRESS_RATE_LIMIT_SCALE), for places where many people share one address, such as a test runner.
 */
export async function consume(db: Database, rule: RateLimitRule, subject: string, now: number, addressScale = 1): Promise<boolean> {
  const key = `${rule.name}:${subject}`;
  const row = await db
    .insert(rateLimits)
    .values({ key, windowStart: windowOf(rule, now), count: 1 })
    .onConflictDoUpdate({ target: [rateLimits.key, rateLimits.windowStart], set: { count: sql`${rateLimits.count} + 1` } })
    .returning({ count: rateLimits.count })
    .get();
  return (row?.count ?? 1) <= rule.limit * (rule.perAddress ? addressScale : 1);
}

/** Gives back one attempt (a successful sign-in does not count against the account). */
export async function refund(db: Database, rule: RateLimitRule, subject: string, now: number): Promise<void> {
  await db
    .update(rateLimits)
    .set({ count: sql`max(${rateLimits.count} - 1, 0)` })
    .where(and(eq(rateLimits.key, `${rule.name}:${subject}`), eq(rateLimits.windowStart, windowOf(rule, now))));
}

/** Windows that have ended for every rule: the longest rule counts a day, so rows live two. */
export async function deleteOldWindows(db: Database, now: number): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, now - 2 * 24 * 60 * 60_000));
}

export function addressLimitScale(env: Env): number {
  return Math.max(1, numberVar(env.ADDRESS_RATE_LIMIT_SCALE, 1));
}

/**
 * Cloudflare's edge sets CF-Connecting-IP on every request and clients cannot override it. An IPv6 client gets a
 * whole /64 to itself, so limits count the /64, not the address.
 */
export function clientAddress(request: Request): string {
  const address = request.headers.get("CF-Connecting-IP") ?? "unknown";
  if (!address.includes(":")) return address;
  const literal = address
    .replace(/^\[|\]$/g, "")
    .split("%")[0]!
    .toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(literal);
  if (mapped) return mapped[1]!;
  const groups = ipv6Groups(literal);
  if (groups && groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join(".");
  }
  return groups
    ? `${groups
        .slice(0, 4)
        .map((group) => group.toString(16))
        .join(":")}::/64`
    : address;
}

/** How many more uses a /48 allows than one of its /64s: one customer's or office's network holds many /64s. */
export const NETWORK_48_SCALE = 10;

/** The /48 network of an IPv6 client's /64 (as `clientAddress` writes it), or null for any other subject. */
export function network48Of(subject: string): string | null {
  const match = /^([\da-f]{1,4}:[\da-f]{1,4}:[\da-f]{1,4}):[\da-f]{1,4}::\/64$/.exec(subject);
  return match ? `${match[1]}::/48` : null;
}

/**
 * Counts one use of `rule` by `subject` in this request's context; false when the limit is passed. A limit per address
 * counts an IPv6 client's /48 too, at ten times the limit: a network of 65,536 /64s would otherwise have as many budgets.
 */
export async function allow(context: AppContext, rule: RateLimitRule, subject: string): Promise<boolean> {
  const scale = rule.perAddress ? addressLimitScale(context.env) : 1;
  const network = rule.perAddress ? network48Of(subject) : null;
  const [own, wider] = await Promise.all([
    consume(context.db, rule, subject, context.now(), scale),
    network ? consume(context.db, { ...rule, name: `${rule.name}/48`, limit: rule.limit * NETWORK_48_SCALE }, network, context.now(), scale) : true,
  ]);
  return own && wider;
}
