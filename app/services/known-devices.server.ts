/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a browser that signed in to an
 * account with its password carries a random token, whose hash is kept per account for a year. The account-wide
 * ceiling on wrong passwords (guesses from many addresses) would otherwise refuse the owner too; from a known browser
 * the sign-in counts against that browser's own limit instead.
 */
import { and, eq, gt, lt } from "drizzle-orm";
import { knownDevices, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { isProduction, type Env } from "~/lib/env";
import { allow, type RateLimitRule } from "./rate-limit.server";
import { DAY_MS, generateToken, hashToken, readCookie } from "./sessions.server";

export const DEVICE_LIFETIME_MS = 365 * DAY_MS;

/** A token as `generateToken` makes them (20 random bytes in base32): anything else is ignored. */
const DEVICE_TOKEN = /^[a-z2-7]{32}$/;

function deviceCookieName(env: Env): string {
  return isProduction(env) ? "__Host-device" : "device";
}

/** The request's device token, if it carries a well-formed one. */
export function deviceTokenOf(request: Request, env: Env): string | null {
  const token = readCookie(request, deviceCookieName(env));
  return token && DEVICE_TOKEN.test(token) ? token : null;
}

/** Whether the browser with this token signed in to the account of `email` within the last year. */
export async function isKnownDevice(db: Database, token: string, email: string, now: number): Promise<boolean> {
  const row = await db
    .select({ userId: knownDevices.userId })
    .from(knownDevices)
    .innerJoin(users, eq(users.id, knownDevices.userId))
    .where(and(eq(knownDevices.id, hashToken(token)), eq(users.email, email), gt(knownDevices.expiresAt, now)))
    .get();
  return row !== undefined;
}

/** What a known browser's own limits count by: the browser and the account. */
export function knownDeviceKey(token: string, email: string): string {
  return `${hashToken(token)}|${email}`;
}

/**
 * For an attempt an account-wide limit refused: whether it comes from a browser the account knows, and is within
 * that browser's own `rule` (which it counts against).
 */
export async function passesAsKnownDevice(context: AppContext, rule: RateLimitRule, token: string | null, email: string): Promise<boolean> {
  if (!token || !(await isKnownDevice(context.db, token, email, context.now()))) return false;
  return allow(context, rule, knownDeviceKey(token, email));
}

/**
 * Remembers this browser for the account for a year from now, under the token it already carries (so it stays known
 * to its other accounts) or a new one; the cookie goes with whatever response the request ends with. Never throws.
 */
export async function rememberDevice(context: AppContext, token: string | null, userId: string): Promise<void> {
  const deviceToken = token ?? generateToken();
  const expiresAt = context.now() + DEVICE_LIFETIME_MS;
  try {
    await context.db
      .insert(knownDevices)
      .values({ id: hashToken(deviceToken), userId, expiresAt })
      .onConflictDoUpdate({ target: [knownDevices.id, knownDevices.userId], set: { expiresAt } });
  } catch (error) {
    // The sign-in or sign-up has happened: a browser not remembered this time must not turn it into an error page.
    console.error("rememberDevice failed", error);
    return;
  }
  context.responseHeaders.append(
    "Set-Cookie",
    `${deviceCookieName(context.env)}=${deviceToken}; HttpOnly; Secure; SameSite=Lax; Path=/; Expires=${new Date(expiresAt).toUTCString()}`,
  );
}

export async function deleteExpiredDevices(db: Database, now: number): Promise<void> {
  await db.delete(knownDevices).where(lt(knownDevices.expiresAt, now));
}
