/** Exact fixed-window counters in D1: one atomic upsert per attempt. */
import { and, eq, lt, sql } from "drizzle-orm";
import { rateLimits } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
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
  loginPerAccount: { name: "login:account", limit: 10, windowMs: 60_000 },
  loginPerAddress: { name: "login:ip", limit: 50, windowMs: 60_000, perAddress: true },
  signupPerAddress: { name: "signup:ip", limit: 10, windowMs: 60_000, perAddress: true },
  resetPerAddress: { name: "reset:ip", limit: 10, windowMs: 60_000, perAddress: true },
  resetPerAccount: { name: "reset:account", limit: 5, windowMs: 60 * 60_000 },
  verificationChecksPerSite: { name: "verify:site", limit: 10, windowMs: 60 * 60_000 },
  iconUpdatesPerSite: { name: "icon:site", limit: 10, windowMs: 60 * 60_000 },
  proposalsPerSender: { name: "propose:user", limit: 20, windowMs: 60 * 60_000 },
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

export async function deleteOldWindows(db: Database, now: number): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, now - 2 * 60 * 60_000));
}

export function addressLimitScale(env: Env): number {
  return Math.max(1, numberVar(env.ADDRESS_RATE_LIMIT_SCALE, 1));
}

/** Cloudflare's edge sets CF-Connecting-IP on every request and clients cannot override it. */
export function clientAddress(request: Request): string {
  return request.headers.get("CF-Connecting-IP") ?? "unknown";
}
