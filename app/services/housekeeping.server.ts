/**
 * The daily cron job: return unanswered offers' holds, expire connects, delete what has expired, retry email, and on
 * Sundays merge the search indexes. Every five minutes (`everyFiveMinutes`): offers and connects that expire, delivered
 * links and verified sites' re-checks that are due, and email; and in an invocation of their own (`dueAudits`), the
 * weekly audits that are due.
 */
import { lt, or } from "drizzle-orm";
import { sessions } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { deleteExpiredSignupDrafts } from "./accounts.server";
import { deleteExpiredConfirmations } from "./email-confirmation.server";
import { auditDueSites, dropOldAuditFacts } from "./audit.server";
import { recheckDeliveredLinks } from "./delivered-links.server";
import { deliverOutbox, purgeExpiredSecrets } from "./email.server";
import { expireConnectLots, expireLapsedOffers } from "./offer-expiry.server";
import { deleteExpiredResetTokens } from "./password-reset.server";
import { deleteExpiredDevices } from "./known-devices.server";
import { deleteOldWindows } from "./rate-limit.server";
import { refreshDueReputations } from "./reputation.server";
import { recheckVerifiedSites } from "./verification.server";
import { mergeSearchIndexes } from "./search.server";

/** One step of a job: a failure is logged and the job goes on with the next step (each stands alone). */
async function step(name: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    console.error(name, error);
  }
}

/**
 * The five-minute cron: offers unanswered for 14 days and connects whose year is up, the delivered links whose daily
 * check is due (spread over the day), the verified sites whose monthly re-check is due (a few per run), then email that
 * is due (retries, what a request did not get to send, and what the checks just queued). At most 50 link checks of up
 * to four requests each, 10 re-checks of up to eight and 50 emails: about 330 requests to other servers.
 */
export async function everyFiveMinutes(context: AppContext) {
  await step("offers expiry", () => expireLapsedOffers(context));
  await step("connects expiry", () => expireConnectLots(context));
  await step("delivered link checks", () => recheckDeliveredLinks(context));
  await step("verification re-checks", () => recheckVerifiedSites(context));
  await step("email", () => deliverOutbox(context.db, context.env, Math.max(context.now(), Date.now())));
}

/**
 * The sites whose weekly audit is due, a few per run (spread over the week), in their own invocation: an audit reads
 * up to five addresses of the site (four requests each with redirects) and asks the rank provider, up to 21 requests,
 * so 40 audits (840) beside the five-minute jobs' 330 would pass 1,000 subrequests per invocation (Workers Paid's limit
 * in Cloudflare's older documentation; 10,000 in the current one), and D1 queries count against a limit per invocation
 * of their own.
 */
export async function dueAudits(context: AppContext) {
  await step("weekly audits", () => auditDueSites(context));
}

export async function runHousekeeping(context: AppContext) {
  const { db, env } = context;
  const now = context.now();
  // One-time links past their lifetime leave the stored emails first, so none goes out dead; then email.
  await step("expired links in emails", () => purgeExpiredSecrets(db, now));
  await step("email", () => deliverOutbox(db, env, now));
  await step("offers expiry", () => expireLapsedOffers(context));
  await step("connects expiry", () => expireConnectLots(context));
  await step("sessions", () => db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.absoluteExpiresAt, now))));
  await step("reset links", () => deleteExpiredResetTokens({ db }, now));
  await step("confirmation links", () => deleteExpiredConfirmations(db, now));
  await step("sign-up drafts", () => deleteExpiredSignupDrafts(db, now));
  await step("rate-limit windows", () => deleteOldWindows(db, now));
  await step("known browsers", () => deleteExpiredDevices(db, now));
  await step("reputations", () => refreshDueReputations(context));
  await step("audit facts", () => dropOldAuditFacts(db, now));
  // And again for what the jobs above queued.
  await step("email", () => deliverOutbox(db, env, Math.max(now, Date.now())));
  // Sundays (UTC), last: the longest writes of the week, and nothing above waits for them.
  if (new Date(now).getUTCDay() === 0) await step("search index merge", () => mergeSearchIndexes(db));
}
