/**
 * The daily cron job: return unanswered offers' holds, expire connects, delete what has expired, re-check verified
 * sites that are due, retry email, and on Sundays merge the search indexes. Every five minutes (`everyFiveMinutes`):
 * offers and connects that expire, delivered links and audits that are due, and email.
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

/**
 * The five-minute cron: offers unanswered for 14 days and connects whose year is up, the delivered links whose daily check is due (spread over the
 * day), the sites whose weekly audit is due (a few per run, spread over the week), then email that is due (retries,
 * what a request did not get to send, and what the checks just queued).
 */
export async function everyFiveMinutes(context: AppContext) {
  try {
    await expireLapsedOffers(context);
  } catch (error) {
    console.error("offers expiry", error);
  }
  try {
    await expireConnectLots(context);
  } catch (error) {
    console.error("connects expiry", error);
  }
  try {
    await recheckDeliveredLinks(context);
  } catch (error) {
    console.error("delivered link checks", error);
  }
  try {
    await auditDueSites(context);
  } catch (error) {
    console.error("weekly audits", error);
  }
  await deliverOutbox(context.db, context.env, Math.max(context.now(), Date.now()));
}

export async function runHousekeeping(context: AppContext) {
  const { db, env } = context;
  const now = context.now();
  // Email first: the site re-checks below can take minutes.
  await deliverOutbox(db, env, now);
  await expireLapsedOffers(context);
  await expireConnectLots(context);
  await db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.absoluteExpiresAt, now)));
  await deleteExpiredResetTokens({ db }, now);
  await deleteExpiredConfirmations(db, now);
  await deleteExpiredSignupDrafts(db, now);
  await deleteOldWindows(db, now);
  await deleteExpiredDevices(db, now);
  await recheckVerifiedSites(context);
  await refreshDueReputations(context);
  await dropOldAuditFacts(db, now);
  // And again for what the jobs above queued.
  await deliverOutbox(db, env, Math.max(now, Date.now()));
  await purgeExpiredSecrets(db, now);
  // Sundays (UTC), last: the longest writes of the week, and nothing above waits for them.
  if (new Date(now).getUTCDay() === 0) {
    try {
      await mergeSearchIndexes(db);
    } catch (error) {
      console.error("search index merge", error);
    }
  }
}
