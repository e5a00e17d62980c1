/** Accounts: sign-up with a first site, sign-in with a password, and what they share. */
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { passwordCredentials, signupDrafts, users } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { isUniqueConstraintError } from "~/lib/db.server";
import { processingDelay } from "~/lib/delay";
import { messages } from "~/domain/messages";
import { starterConnects, starterGrantStatements } from "./connects.server";
import { decoyPasswordHash, hashPassword, verifyPassword } from "./passwords.server";
import { allow, RATE_LIMITS, refund } from "./rate-limit.server";
import { newId } from "~/lib/ids";
import { generateToken, hashToken, prepareSession, startSessionIf } from "./sessions.server";
import { confirmationStatements } from "./email-confirmation.server";
import { deliverSoon } from "./email.server";
import { auditAfterResponse } from "./audit.server";
import { lookUpIconLater } from "./site-icons.server";
import { prepareSite } from "./sites.server";
import { knownDeviceKey, passesAsKnownDevice, rememberDevice } from "./known-devices.server";

export interface SignedIn {
  ok: true;
  userId: string;
  token: string;
  expiresAt: number;
}

export interface Refused {
  ok: false;
  message: string;
  status: number;
  /** The form field the message belongs to, when it belongs to one. */
  field?: "email" | "password" | "url" | "description";
}

export interface SignUpInput {
  email: string;
  /** The password as typed, or already hashed (kept from step 0 of a sign-up without JavaScript). */
  password: { typed: string } | { hash: string };
  url: string;
  description: string;
}

export async function findUserIdByEmail(context: AppContext, email: string): Promise<string | null> {
  const row = await context.db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
  return row?.id ?? null;
}

/**
 * The user, the password, the first site (category blog), the starter connects and the session are created in
 * one atomic batch; a concurrent sign-up with the same email fails on the unique index.
 */
export async function signUp(
  context: AppContext,
  input: SignUpInput,
  clientAddress: string,
  deviceToken: string | null = null,
): Promise<SignedIn | Refused> {
  const { db, env } = context;
  if (!(await allow(context, RATE_LIMITS.signupPerAddress, clientAddress))) {
    return { ok: false, status: 429, message: messages.tooManyAttempts };
  }
  await processingDelay(env);
  if (await findUserIdByEmail(context, input.email)) {
    return { ok: false, status: 409, message: messages.emailInUse, field: "email" };
  }
  const now = context.now();
  const userId = newId();
  const grant = starterConnects(env);
  const passwordHash = "hash" in input.password ? input.password.hash : await hashPassword(input.password.typed);
  const site = prepareSite(db, { userId, url: input.url, description: input.description, category: "blog" }, now);
  const session = prepareSession(db, userId, site.id, now);
  try {
    await db.batch([
      db.insert(users).values({ id: userId, email: input.email, connects: grant, createdAt: now }),
      db.insert(passwordCredentials).values({ userId, passwordHash, updatedAt: now }),
      site.statement,
      ...starterGrantStatements(db, userId, grant, now),
      session.statement,
      ...confirmationStatements(context, userId, now),
    ]);
  } catch (error) {
    if (isUniqueConstraintError(error)) return { ok: false, status: 409, message: messages.emailInUse, field: "email" };
    console.error("signUp failed", error);
    return { ok: false, status: 500, message: messages.signupFailed };
  }
  // The browser that made the account is its owner's (see `logIn`).
  await rememberDevice(context, deviceToken, userId);
  deliverSoon(context);
  lookUpIconLater(context, userId, site.id, input.url);
  auditAfterResponse(context, userId, site.id, input.url, "signup");
  return { ok: true, userId, token: session.token, expiresAt: session.expiresAt };
}

/**
 * Sign-in with email and password. Unknown emails cost the same time as wrong passwords, and both get the
 * same message. Each account and address allows 10 wrong passwords a quarter hour and 30 a day, all addresses
 * together 100 an hour (but a browser the owner signed in from before, `deviceToken`, has its own limit instead); the
 * address limit catches spraying. A right password remembers the browser for the account.
 */
export async function logIn(
  context: AppContext,
  input: { email: string; password: string },
  clientAddress: string,
  deviceToken: string | null = null,
): Promise<SignedIn | Refused> {
  const { db } = context;
  const now = context.now();
  const email = input.email.trim().toLowerCase();
  const tooMany: Refused = { ok: false, status: 429, message: messages.tooManyAttempts };
  // The per-account locks are keyed with the address, so one stranger's guesses never lock the owner out; the
  // account-wide ceiling (far above what one owner types) caps guessing from many addresses (see its rule).
  const accountAtAddress = `${email}|${clientAddress}`;
  for (const [rule, subject] of [
    [RATE_LIMITS.loginPerAddress, clientAddress],
    [RATE_LIMITS.loginPerAccountAddress, accountAtAddress],
    [RATE_LIMITS.loginPerAccountAddressDaily, accountAtAddress],
  ] as const) {
    if (!(await allow(context, rule, subject))) return tooMany;
  }
  // While guesses from elsewhere hold the account-wide ceiling, the owner's own browsers still get in.
  if (
    !(await allow(context, RATE_LIMITS.loginPerAccount, email)) &&
    !(await passesAsKnownDevice(context, RATE_LIMITS.loginPerKnownDevice, deviceToken, email))
  ) {
    return tooMany;
  }

  const row = email
    ? await db
        .select({ id: users.id, passwordHash: passwordCredentials.passwordHash })
        .from(users)
        .leftJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
        .where(eq(users.email, email))
        .get()
    : undefined;
  const matches = await verifyPassword(input.password, row?.passwordHash ?? (await decoyPasswordHash()));
  if (!row || !row.passwordHash || !matches) {
    return { ok: false, status: 400, message: messages.incorrectCredentials };
  }
  const session = await startSessionIf(
    db,
    row.id,
    sql`EXISTS (SELECT 1 FROM password_credentials WHERE user_id = ${row.id} AND password_hash = ${row.passwordHash})`,
    now,
  );
  // The password changed (a reset, say) while this sign-in checked the old one: a wrong password, which neither
  // remembers the browser (a reset forgets every known device) nor gives the attempt back.
  if (!session) return { ok: false, status: 400, message: messages.incorrectCredentials };
  // A right password does not count against the account. The sign-in has happened: a refund that fails is logged, not
  // an error page (the session would be made and its cookie never sent).
  await Promise.all([
    Promise.all([
      refund(db, RATE_LIMITS.loginPerAccountAddress, accountAtAddress, now),
      refund(db, RATE_LIMITS.loginPerAccountAddressDaily, accountAtAddress, now),
      refund(db, RATE_LIMITS.loginPerAccount, email, now),
      deviceToken ? refund(db, RATE_LIMITS.loginPerKnownDevice, knownDeviceKey(deviceToken, email), now) : undefined,
    ]).catch((error) => console.error("sign-in limit refund", error)),
    rememberDevice(context, deviceToken, row.id),
  ]);
  return { ok: true, userId: row.id, ...session };
}

const DRAFT_LIFETIME_MS = 30 * 60_000;

/**
 * Step 0 of a sign-up without JavaScript: the email and the password's hash wait on the server, and the page of
 * step 1 carries only a draft token, never the password.
 */
export async function saveSignupDraft(context: AppContext, email: string, password: string): Promise<string> {
  const token = generateToken();
  const now = context.now();
  await context.db
    .insert(signupDrafts)
    .values({ id: hashToken(token), email, passwordHash: await hashPassword(password), expiresAt: now + DRAFT_LIFETIME_MS, createdAt: now });
  return token;
}

/** The draft of step 0, if it is still fresh. */
export function readSignupDraft(context: AppContext, token: string) {
  return context.db
    .select({ email: signupDrafts.email, passwordHash: signupDrafts.passwordHash })
    .from(signupDrafts)
    .where(and(eq(signupDrafts.id, hashToken(token)), gt(signupDrafts.expiresAt, context.now())))
    .get();
}

export async function updateSignupDraftEmail(context: AppContext, token: string, email: string): Promise<void> {
  await context.db
    .update(signupDrafts)
    .set({ email })
    .where(eq(signupDrafts.id, hashToken(token)));
}

/** How long a draft that made its account is kept: a second post of the same form (a double click) comes within it. */
const USED_DRAFT_MS = 60_000;

/** The draft made its account: it goes within a minute (see `signInWithUsedDraft`). */
export async function retireSignupDraft(context: AppContext, token: string): Promise<void> {
  const now = context.now();
  await context.db
    .update(signupDrafts)
    .set({ expiresAt: sql`min(${signupDrafts.expiresAt}, ${now + USED_DRAFT_MS})` })
    .where(eq(signupDrafts.id, hashToken(token)));
}

/**
 * The same sign-up posted twice (a double click without JavaScript: the browser shows the second answer): the account
 * the draft made is signed in to again rather than refused as "Email already in use". Only that draft's password hash
 * (salted, so no other account's) matches; null when the email is someone else's account.
 */
export async function signInWithUsedDraft(context: AppContext, draft: { email: string; passwordHash: string }): Promise<SignedIn | null> {
  const row = await context.db
    .select({ id: users.id })
    .from(users)
    .innerJoin(passwordCredentials, eq(passwordCredentials.userId, users.id))
    .where(and(eq(users.email, draft.email), eq(passwordCredentials.passwordHash, draft.passwordHash)))
    .get();
  if (!row) return null;
  const session = await startSessionIf(
    context.db,
    row.id,
    sql`EXISTS (SELECT 1 FROM password_credentials WHERE user_id = ${row.id} AND password_hash = ${draft.passwordHash})`,
    context.now(),
  );
  return session ? { ok: true, userId: row.id, ...session } : null;
}

export async function deleteExpiredSignupDrafts(db: AppContext["db"], now: number): Promise<void> {
  await db.delete(signupDrafts).where(lt(signupDrafts.expiresAt, now));
}

/** A new session on every sign-in; the active site starts as the first site. */
export async function startSession(context: AppContext, userId: string): Promise<SignedIn> {
  const session = prepareSession(context.db, userId, null, context.now());
  await session.statement;
  return { ok: true, userId, token: session.token, expiresAt: session.expiresAt };
}
