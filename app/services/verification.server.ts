/**
 * Site verification (docs/decisions/0009-site-verification-meta-tag.md): the owner places a meta tag in the head of the home page; the check reads
 * that head through the safe fetch. A verified site is re-checked about monthly by the five-minute job; three failures in
 * a row remove the verification. Another account that proves the same host takes the verification over.
 */
import { and, asc, eq, inArray, isNotNull, lte, ne, sql } from "drizzle-orm";
import { sites, users } from "#drizzle/schema";
import { forEachConcurrently } from "~/lib/concurrency";
import type { AppContext } from "~/lib/context";
import { numberVar } from "~/lib/env";
import { scanHead } from "~/lib/html.server";
import {
  refused,
  SAFE_FETCH_LIMITS,
  safeFetch,
  safeFetchOptionsFor,
  type FetchedPage,
  type FetchFailureReason,
  type FetchRefused,
  type SafeFetchOptions,
  WorkerLimitError,
} from "~/lib/safe-fetch.server";
import { messages } from "~/domain/messages";
import { PATH_KEEPING_HOSTS } from "~/domain/listing-format";
import { isSameSite, typedHost } from "~/domain/site-address";
import { RECHECK_FAILURES_ALLOWED, RECHECK_INTERVAL_DAYS, VERIFICATION_META_NAME, verificationTag } from "~/domain/verification";
import { deliverSoon, emailToUser } from "./email.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import { generateToken } from "./sessions.server";
import type { OwnedSite } from "./sites.server";

const DAY_MS = 24 * 60 * 60_000;

export type TagCheck =
  | { found: true; url: string }
  | { found: false; reason: FetchFailureReason | "missing" | "http_error" | "elsewhere"; message: string; url: string };

/** Cloudflare's answers when it cannot connect to a site or its TLS fails (520-527): https is broken there. */
const EDGE_CONNECTION_ERRORS = new Set([520, 521, 522, 523, 524, 525, 526, 527]);

/**
 * Fetches the home page: https first, and http when https cannot be reached or its connection fails; both within
 * one 10 s deadline. A server that answers is read over the protocol it answered on.
 */
export async function fetchHomePage(siteUrl: string, options: SafeFetchOptions): Promise<FetchedPage | FetchRefused> {
  const host = typedHost(siteUrl);
  if (!host) return refused("invalid", siteUrl);
  const shared = { ...options, deadline: options.deadline ?? Date.now() + SAFE_FETCH_LIMITS.timeoutMs };
  const secure = await safeFetch(`https://${host}/`, shared);
  if (secure.ok && EDGE_CONNECTION_ERRORS.has(secure.status)) await secure.cancel();
  else if (secure.ok || secure.reason !== "unreachable") return secure;
  return safeFetch(`http://${host}/`, shared);
}

/** Whether the home page's head carries this token's tag. A tag in the body, or with another token, does not count. */
export async function findVerificationTag(
  site: { url: string; host: string; verificationToken: string },
  options: SafeFetchOptions,
): Promise<TagCheck> {
  const page = await fetchHomePage(site.url, options);
  if (!page.ok) return { found: false, reason: page.reason, message: page.message, url: page.url };
  // Every hop stays on the site (decision 9), not only the last: a chain through another site and back is refused.
  const elsewhere = [...page.redirects, page.url].find((address) => !isSameSite(address, site.host));
  if (elsewhere) {
    await page.cancel();
    return { found: false, reason: "elsewhere", message: messages.redirectedElsewhere, url: elsewhere };
  }
  if (page.status < 200 || page.status > 299) {
    await page.cancel();
    return { found: false, reason: "http_error", message: `${messages.fetchHttpError} (HTTP ${page.status}).`, url: page.url };
  }
  const tokens: string[] = [];
  const scanned = await scanHead(
    page,
    {
      meta: (element) => {
        if ((element.getAttribute("name") ?? "").trim().toLowerCase() === VERIFICATION_META_NAME) {
          tokens.push((element.getAttribute("content") ?? "").trim());
        }
      },
    },
    () => tokens.includes(site.verificationToken),
  );
  if (tokens.includes(site.verificationToken)) return { found: true, url: page.url };
  if (!scanned.ok) return { found: false, reason: scanned.reason, message: scanned.message, url: page.url };
  return { found: false, reason: "missing", message: messages.tagNotFound, url: page.url };
}

/** Said by the server alone (kept out of `messages`, which every page's script carries). */
export const TAG_RENEWED_MEANWHILE = "You asked for a new tag while we were checking. Put the new tag in the head of your home page and check again.";

export type CheckResult = { ok: true; verified: boolean; message: string } | { ok: false; status: 409 | 422 | 429; message: string };

/**
 * A site that is a path on a shared host (a blog on medium.com): the tag would have to be on the host's own home page,
 * which is not its owner's to change, so it cannot be checked (and no check is spent on it).
 */
function notVerifiableOnSharedHost(host: string): string {
  return `A blog on ${host} cannot be verified: the tag has to be in the head of the site's own home page, and ${host}'s home page is not yours to change. A site on its own domain can be verified.`;
}

/** The owner's check of their site (as `getOwnedSite` read it): rate-limited; success verifies and takes the host over. */
export async function checkSiteVerification(context: AppContext, site: OwnedSite): Promise<CheckResult> {
  if (PATH_KEEPING_HOSTS.includes(site.host)) return { ok: false, status: 422, message: notVerifiableOnSharedHost(site.host) };
  // Each limit says itself: this site's checks, or the reads of all the account's sites (icons, audits, link checks).
  if (!(await allow(context, RATE_LIMITS.verificationChecksPerSite, site.id))) return { ok: false, status: 429, message: messages.tooManyChecks };
  if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, site.userId))) return { ok: false, status: 429, message: messages.tooManySiteFetches };
  const check = await findVerificationTag(site, safeFetchOptionsFor(context.env, context.db));
  const now = context.now();
  if (check.found) {
    if (await markVerified(context, site, now)) return { ok: true, verified: true, message: messages.siteVerified };
  } else {
    // A verified site whose owner checks and fails keeps its verification; the monthly re-check decides.
    const stored = await context.db
      .update(sites)
      .set({ verificationCheckedAt: now, verificationError: check.message })
      .where(and(eq(sites.id, site.id), eq(sites.verificationToken, site.verificationToken)))
      .returning({ id: sites.id });
    if (stored.length > 0) return { ok: true, verified: site.verified, message: check.message };
  }
  // "New tag" was asked for (another tab) while this check read the page: what it read was about the old tag
  // (docs/decisions/0053-writes-that-overlap.md).
  return { ok: false, status: 409, message: TAG_RENEWED_MEANWHILE };
}

function nextRecheck(now: number): number {
  // Spread over about a week around the month, so sites verified on the same day are not all due on one day.
  return now + (RECHECK_INTERVAL_DAYS - 3) * DAY_MS + Math.floor(Math.random() * 7 * DAY_MS);
}

/**
 * Verifies the site if its tag is still the one found (not renewed meanwhile) and, in the same batch and only then,
 * takes the verification of the same host away from other accounts. Whether the site was verified.
 */
async function markVerified(
  context: AppContext,
  site: { id: string; userId: string; host: string; verificationToken: string },
  now: number,
): Promise<boolean> {
  const { db } = context;
  const sameTag = and(eq(sites.id, site.id), eq(sites.verificationToken, site.verificationToken));
  const tagStillThis = sql`EXISTS (SELECT 1 FROM sites WHERE id = ${site.id} AND verification_token = ${site.verificationToken})`;
  const [verified, , takenOver] = await db.batch([
    db
      .update(sites)
      .set({
        verified: true,
        // Since when: the day it was first proven, kept through its owner's later checks (as through the re-checks).
        verifiedAt: sql`CASE WHEN ${sites.verified} THEN coalesce(${sites.verifiedAt}, ${now}) ELSE ${now} END`,
        verificationCheckedAt: now,
        verificationError: null,
        verificationFailures: 0,
        verificationDueAt: nextRecheck(now),
      })
      .where(sameTag)
      .returning({ id: sites.id }),
    // The other accounts that lose it are told, in the same batch as the change (read just before it, by the same
    // condition, so exactly they).
    emailToUser(
      db,
      {
        users: and(
          ne(users.id, site.userId),
          sql`EXISTS (SELECT 1 FROM sites WHERE sites.user_id = ${users.id} AND sites.host = ${site.host} AND sites.verified = 1)`,
        ),
        onlyIf: tagStillThis,
        subject: `${site.host} is no longer verified on your account`,
        text:
          `Another account has just proved control of ${site.host} by placing its verification tag on the home page. ` +
          `Your site ${site.host} is no longer verified and has left the market. Offers already made stay as they are.\n\n` +
          `If this is a mistake, put your own tag back in the head of the home page and check again: ${verifyLink(context, site.host)}`,
        kind: "verification-taken-over",
      },
      now,
    ),
    db
      .update(sites)
      .set({ verified: false, verifiedAt: null, verificationDueAt: null, verificationFailures: 0, verificationError: messages.verificationTakenOver })
      .where(and(eq(sites.host, site.host), eq(sites.verified, true), ne(sites.userId, site.userId), tagStillThis))
      .returning({ id: sites.id }),
  ]);
  if (verified.length === 0) return false;
  if (takenOver.length > 0) deliverSoon(context);
  return true;
}

/** A new tag for the site; the old one stops counting. A verified site stays verified until its next re-check. */
export async function renewVerificationToken(context: AppContext, userId: string, siteId: string): Promise<boolean> {
  const updated = await context.db
    .update(sites)
    .set({ verificationToken: generateToken(), verificationError: null })
    .where(and(eq(sites.id, siteId), eq(sites.userId, userId)))
    .returning({ id: sites.id });
  return updated.length > 0;
}

/**
 * The Verify page of the recipient's site on `host` (an account has one site per host): an owner of several sites whose
 * active one is another lands on the site the email is about (docs/decisions/0055-email-links-name-their-site.md).
 */
function verifyLink(context: AppContext, host: string): string {
  return new URL(`/mysite/verify?site=${encodeURIComponent(host)}`, context.env.APP_URL).toString();
}

/** Checks that may run at once (a Worker keeps at most six connections open). */
const RECHECK_CONCURRENCY = 6;

/** A claimed re-check that never finished (the run ended midway) is due again after this long. */
const RECHECK_CLAIM_MS = 60 * 60_000;

/**
 * The five-minute job's part: re-checks verified sites that are due, oldest due first, a few a run (10 by default:
 * about 2,900 a day, so every site of about 80,000 verified ones monthly), each at most eight fetches (four hops over
 * https, four over http) beside the run's link checks and emails. The batch is claimed in one statement (its due time
 * moved on), so runs that overlap never check a site twice. The first failure warns the owner; the third in a row
 * removes the verification and says so. Returns how many sites were checked.
 */
export async function recheckVerifiedSites(context: AppContext): Promise<number> {
  const { db, env } = context;
  const now = context.now();
  const batch = Math.max(1, Math.floor(numberVar(env.VERIFICATION_RECHECK_BATCH, 10)));
  // The claim's value is also how a result knows its claim still stands (see recheckOne).
  const claimedUntil = now + RECHECK_CLAIM_MS;
  const claimed = await db
    .update(sites)
    .set({ verificationDueAt: claimedUntil })
    .where(
      inArray(
        sites.id,
        db
          .select({ id: sites.id })
          .from(sites)
          .where(and(eq(sites.verified, true), isNotNull(sites.verificationDueAt), lte(sites.verificationDueAt, now)))
          .orderBy(asc(sites.verificationDueAt))
          .limit(batch),
      ),
    )
    .returning({
      id: sites.id,
      userId: sites.userId,
      url: sites.url,
      host: sites.host,
      verificationToken: sites.verificationToken,
      verificationFailures: sites.verificationFailures,
    });
  const options = { ...safeFetchOptionsFor(env, db), throwOnWorkerLimit: true };
  await forEachConcurrently(claimed, RECHECK_CONCURRENCY, async (site) => {
    let check: TagCheck;
    try {
      check = await findVerificationTag(site, options);
    } catch (error) {
      // The run's own request limit says nothing about the site: it is checked in a later run (its claim lapses).
      if (error instanceof WorkerLimitError) return console.warn("verification re-check left for a later run", site.id);
      // Whatever else went wrong counts as a failed check, so the site does not stay due at the head of the queue.
      console.error("verification re-check failed", site.id, error);
      check = { found: false, reason: "unreachable", message: messages.fetchUnreachable, url: site.url };
    }
    try {
      await recheckOne(context, site, check, { now, claimedUntil });
    } catch (error) {
      console.error("verification re-check could not be stored", site.id, error);
    }
  });
  return claimed.length;
}

async function recheckOne(
  context: AppContext,
  site: { id: string; userId: string; url: string; host: string; verificationToken: string; verificationFailures: number },
  check: TagCheck,
  { now, claimedUntil }: { now: number; claimedUntil: number },
) {
  const { db } = context;
  // A tag renewed since the claim is the owner's to check: this result, about the old tag, is not stored. Nor is it
  // when the owner's own check came in meanwhile (it set the next re-check, so the claim is gone): that is fresher.
  const stillVerified = and(
    eq(sites.id, site.id),
    eq(sites.verified, true),
    eq(sites.verificationToken, site.verificationToken),
    eq(sites.verificationDueAt, claimedUntil),
  );
  if (check.found) {
    await db
      .update(sites)
      .set({ verificationCheckedAt: now, verificationError: null, verificationFailures: 0, verificationDueAt: nextRecheck(now) })
      .where(stillVerified);
    return;
  }
  const failures = site.verificationFailures + 1;
  const tag = verificationTag(site.verificationToken);
  if (failures >= RECHECK_FAILURES_ALLOWED) {
    // The owner is told in the same batch as the change, and only if it was this check's.
    await db.batch([
      db
        .update(sites)
        .set({
          verified: false,
          verifiedAt: null,
          verificationDueAt: null,
          verificationFailures: failures,
          verificationCheckedAt: now,
          verificationError: check.message,
        })
        .where(stillVerified),
      emailToUser(
        db,
        {
          userId: site.userId,
          kind: "verification-removed",
          subject: `${site.host} is no longer verified`,
          text:
            `We checked ${check.url} ${RECHECK_FAILURES_ALLOWED} times in a row and could not confirm your verification tag (${check.message}). ` +
            `${site.host} is no longer verified and has left the market until you verify it again.\n\n` +
            `Put this tag inside <head> of your home page and check again: ${tag}\n${verifyLink(context, site.host)}`,
          onlyIf: sql`EXISTS (SELECT 1 FROM sites WHERE id = ${site.id} AND verified = 0 AND verification_failures = ${failures} AND verification_checked_at = ${now})`,
        },
        now,
      ),
    ]);
    return;
  }
  await db.batch([
    db
      .update(sites)
      .set({ verificationFailures: failures, verificationCheckedAt: now, verificationError: check.message, verificationDueAt: now + DAY_MS })
      .where(stillVerified),
    // The first failure of a run is told, with the batch that counts it.
    ...(failures === 1
      ? [
          emailToUser(
            db,
            {
              userId: site.userId,
              kind: "verification-warning",
              subject: `We could not confirm the verification tag of ${site.host}`,
              text:
                `Our monthly check of ${check.url} failed: ${check.message}\n\n` +
                `Make sure this tag stays inside <head> of your home page: ${tag}\n` +
                `We will check again tomorrow. After ${RECHECK_FAILURES_ALLOWED} failed checks in a row, ${site.host} loses its verification and leaves the market.\n\n` +
                `Check it yourself now: ${verifyLink(context, site.host)}`,
              onlyIf: sql`EXISTS (SELECT 1 FROM sites WHERE id = ${site.id} AND verified = 1 AND verification_failures = 1 AND verification_checked_at = ${now})`,
            },
            now,
          ),
        ]
      : []),
  ]);
}
