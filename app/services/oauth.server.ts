/**
 * Sign-in with Google and GitHub through arctic (docs/decisions/0006-oauth-google-github.md), offered only when configured. An OAuth sign-in
 * whose email already has an account joins it only when the provider says the email is verified.
 */
import { CodeChallengeMethod, generateCodeVerifier, generateState, Google, OAuth2Client } from "arctic";
import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { emailConfirmationTokens, knownDevices, oauthAccounts, passwordCredentials, passwordResetTokens, sessions, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { isUniqueConstraintError } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { hasPublicAppUrl, isProduction } from "~/lib/env";
import { messages } from "~/domain/messages";
import { starterConnects, starterGrantStatements } from "./connects.server";
import { startSession, type Refused, type SignedIn } from "./accounts.server";
import { newId } from "~/lib/ids";
import { closeChatSockets } from "./chats.server";
import { deliverSoon, emailToUser } from "./email.server";
import { readCookie } from "./sessions.server";
import { OAUTH_PROVIDERS, type OAuthProvider } from "~/domain/oauth";

const PROVIDER_NAMES: Record<OAuthProvider, string> = { google: "Google", github: "GitHub" };

export { OAUTH_PROVIDERS, type OAuthProvider };

export function isOAuthProvider(value: string | undefined): value is OAuthProvider {
  return OAUTH_PROVIDERS.some((provider) => provider === value);
}

/** Whether this Worker instance has logged that sign-in with the providers is off (it says so once). */
let offSaid = false;

/**
 * The providers with credentials set. None while APP_URL is not the public origin in production: the provider would
 * refuse the way back (or send the browser to localhost), so the buttons are not shown and the routes are not found.
 */
export function configuredProviders(env: Env): OAuthProvider[] {
  const withCredentials = OAUTH_PROVIDERS.filter((provider) =>
    provider === "google" ? Boolean(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET) : Boolean(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET),
  );
  if (withCredentials.length > 0 && !hasPublicAppUrl(env)) {
    // Said once per Worker instance, not on every sign-in page.
    if (!offSaid) console.error("sign-in with Google and GitHub is off: APP_URL must be the public https origin in production (README, Deploy)");
    offSaid = true;
    return [];
  }
  return withCredentials;
}

function callbackUrl(env: Env, provider: OAuthProvider) {
  return new URL(`/auth/${provider}/callback`, env.APP_URL).toString();
}

const GITHUB_AUTHORIZE = "https://github.com/login/oauth/authorize";
const GITHUB_TOKEN = "https://github.com/login/oauth/access_token";

function githubClient(env: Env) {
  return new OAuth2Client(env.GITHUB_CLIENT_ID!, env.GITHUB_CLIENT_SECRET!, callbackUrl(env, "github"));
}

/**
 * What the pages need beyond their own origin for signing in: the login and sign-up buttons post to `/auth/{provider}`,
 * which redirects to the provider, and browsers hold a form's redirects to the page's form-action list.
 */
export function signInPolicy(env: Env): { formTargets: string[] } {
  return { formTargets: configuredProviders(env).map((provider) => (provider === "google" ? "https://accounts.google.com" : "https://github.com")) };
}

/** `__Host-` in production: only this origin over https may set it (so no path, and Path=/). */
function stateCookieName(env: Env) {
  return isProduction(env) ? "__Host-oauth_state" : "oauth_state";
}

function stateCookie(env: Env, value: string, maxAge: number) {
  const secure = isProduction(env) || env.APP_URL.startsWith("https:") ? "; Secure" : "";
  return `${stateCookieName(env)}=${encodeURIComponent(value)}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${maxAge}${secure}`;
}

/** The provider's authorization address and the cookie that remembers state, verifier and where to return. */
/**
 * The longest state cookie value kept with its way back, as sent (encoded: "&" and "=" take three characters each).
 * Browsers drop a cookie over 4,096 bytes, name and value together, and the sign-in would fail.
 */
const MAX_STATE_COOKIE_VALUE = 3800;

export function beginSignIn(env: Env, provider: OAuthProvider, redirectTo: string) {
  const state = generateState();
  let url: URL;
  const verifier = generateCodeVerifier();
  if (provider === "google") {
    url = new Google(env.GOOGLE_CLIENT_ID!, env.GOOGLE_CLIENT_SECRET!, callbackUrl(env, provider)).createAuthorizationURL(state, verifier, [
      "openid",
      "email",
      "profile",
    ]);
  } else {
    // GitHub supports PKCE; arctic's GitHub class does not send it, so its generic client does.
    url = githubClient(env).createAuthorizationURLWithPKCE(GITHUB_AUTHORIZE, state, CodeChallengeMethod.S256, verifier, ["user:email"]);
  }
  // The way back rides in the state cookie: one too long for a cookie goes to the market instead.
  const stateWith = (back: string) => JSON.stringify({ state, verifier, provider, redirectTo: back });
  const value = encodeURIComponent(stateWith(redirectTo)).length <= MAX_STATE_COOKIE_VALUE ? stateWith(redirectTo) : stateWith("/market");
  return { url, cookie: stateCookie(env, value, 600) };
}

export function clearStateCookie(env: Env) {
  return stateCookie(env, "", 0);
}

interface ProviderProfile {
  providerUserId: string;
  email: string | null;
  emailVerified: boolean;
}

async function fetchJson(url: string, accessToken: string) {
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json", "User-Agent": "BacklinkMarket" },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

async function fetchProfile(env: Env, provider: OAuthProvider, code: string, verifier: string): Promise<ProviderProfile> {
  if (provider === "google") {
    const google = new Google(env.GOOGLE_CLIENT_ID!, env.GOOGLE_CLIENT_SECRET!, callbackUrl(env, provider));
    const tokens = await google.validateAuthorizationCode(code, verifier);
    const info = (await fetchJson("https://openidconnect.googleapis.com/v1/userinfo", tokens.accessToken())) as {
      sub?: string;
      email?: string;
      email_verified?: boolean;
    };
    if (!info.sub) throw new Error("Google profile without sub");
    return { providerUserId: info.sub, email: info.email ?? null, emailVerified: info.email_verified === true };
  }
  const tokens = await githubClient(env).validateAuthorizationCode(GITHUB_TOKEN, code, verifier);
  const profile = (await fetchJson("https://api.github.com/user", tokens.accessToken())) as { id?: number };
  const emails = (await fetchJson("https://api.github.com/user/emails", tokens.accessToken())) as {
    email: string;
    primary: boolean;
    verified: boolean;
  }[];
  if (typeof profile.id !== "number") throw new Error("GitHub profile without id");
  const primary = emails.find((entry) => entry.primary) ?? emails[0];
  return { providerUserId: String(profile.id), email: primary?.email ?? null, emailVerified: primary?.verified === true };
}

export type OAuthResult = (SignedIn & { redirectTo: string }) | Refused;

export async function finishSignIn(context: AppContext, provider: OAuthProvider, request: Request): Promise<OAuthResult> {
  const url = new URL(request.url);
  const failed: Refused = { ok: false, status: 400, message: messages.oauthFailed };
  let saved: { state?: string; verifier?: string; provider?: string; redirectTo?: string };
  try {
    saved = JSON.parse(readCookie(request, stateCookieName(context.env)) ?? "{}");
  } catch {
    return failed;
  }
  // Valid JSON that is not an object (null, a number, a string) is no saved state either.
  if (typeof saved !== "object" || saved === null) return failed;
  const code = url.searchParams.get("code");
  if (!code || !saved.state || saved.state !== url.searchParams.get("state") || saved.provider !== provider) return failed;

  let profile: ProviderProfile;
  try {
    profile = await fetchProfile(context.env, provider, code, saved.verifier ?? "");
  } catch (error) {
    console.error("OAuth exchange failed", error);
    return failed;
  }
  const redirectTo = saved.redirectTo ?? "/market";
  const { db } = context;
  const linkedUserId = async () =>
    (
      await db
        .select({ userId: oauthAccounts.userId })
        .from(oauthAccounts)
        .where(and(eq(oauthAccounts.provider, provider), eq(oauthAccounts.providerUserId, profile.providerUserId)))
        .get()
    )?.userId;
  const linked = await linkedUserId();
  if (linked) return { ...(await startSession(context, linked)), redirectTo };
  // The same sign-in finished twice at once (two tabs, a double click): the one whose account or link is written
  // second signs in to what the first wrote.
  const writtenMeanwhile = async (error: unknown): Promise<OAuthResult> => {
    if (!isUniqueConstraintError(error)) throw error;
    const userId = await linkedUserId();
    return userId ? { ...(await startSession(context, userId)), redirectTo } : failed;
  };

  if (!profile.email) return failed;
  // An address the provider has not verified never joins nor creates an account with that address.
  if (!profile.emailVerified) return { ok: false, status: 400, message: messages.oauthEmailUnverified };
  const email = profile.email.trim().toLowerCase();
  const existing = await db.select({ id: users.id, emailVerified: users.emailVerified }).from(users).where(eq(users.email, email)).get();
  const now = context.now();
  const link = (userId: string) =>
    db.insert(oauthAccounts).values({ provider, providerUserId: profile.providerUserId, userId, email, createdAt: now });
  if (existing) {
    // The provider proves the address now. If the account never proved it, whoever registered it first may not
    // own it: its password and sessions end before the owner comes in, and the address is told.
    const unproven = !existing.emailVerified;
    // Checked as each statement runs: the same sign-in finished twice at once takes the account back once (the second
    // finds it proven, and its link then meets the first's).
    const stillUnproven = sql`EXISTS (SELECT 1 FROM users WHERE id = ${existing.id} AND email_verified = 0)`;
    const ofAccount = <T extends { userId: SQLiteColumn }>(table: T) => and(eq(table.userId, existing.id), stillUnproven);
    const statements: BatchItem<"sqlite">[] = [
      ...(unproven
        ? [
            // Whatever the squatter set up goes: provider links, password, sessions, known browsers, pending links.
            // (Not the link this sign-in has just written: it comes first in the batch.)
            db
              .delete(oauthAccounts)
              .where(
                and(
                  ofAccount(oauthAccounts),
                  sql`NOT (${oauthAccounts.provider} = ${provider} AND ${oauthAccounts.providerUserId} = ${profile.providerUserId})`,
                ),
              ),
            db.delete(knownDevices).where(ofAccount(knownDevices)),
            db.delete(passwordCredentials).where(ofAccount(passwordCredentials)),
            db.delete(sessions).where(ofAccount(sessions)),
            db.delete(passwordResetTokens).where(ofAccount(passwordResetTokens)),
            db.delete(emailConfirmationTokens).where(ofAccount(emailConfirmationTokens)),
            emailToUser(
              db,
              {
                userId: existing.id,
                kind: "account-joined",
                subject: `Your account now signs in with ${PROVIDER_NAMES[provider]}`,
                text:
                  `You signed in with ${PROVIDER_NAMES[provider]} using ${email}. This address had never been confirmed on its account, ` +
                  `so to keep it yours we removed the account's password and signed out every other session.\n\n` +
                  `To sign in with a password again, set a new one: ${new URL("/reset-password", context.env.APP_URL).toString()}`,
                onlyIf: stillUnproven,
              },
              now,
            ),
          ]
        : []),
    ];
    const written = await db
      // The address is marked proven last, after the statements that check it was not.
      .batch([link(existing.id), ...statements, db.update(users).set({ emailVerified: true }).where(eq(users.id, existing.id))])
      .then(() => undefined, writtenMeanwhile);
    if (written !== undefined) return written;
    if (unproven) {
      await closeChatSockets(context, existing.id, { allBut: null });
      deliverSoon(context);
    }
    return { ...(await startSession(context, existing.id)), redirectTo };
  }
  const userId = newId();
  const grant = starterConnects(context.env);
  const written = await db
    .batch([
      db.insert(users).values({ id: userId, email, emailVerified: profile.emailVerified, connects: grant, createdAt: now }),
      ...starterGrantStatements(db, userId, grant, now),
      link(userId),
    ])
    .then(() => undefined, writtenMeanwhile);
  return written ?? { ...(await startSession(context, userId)), redirectTo };
}
