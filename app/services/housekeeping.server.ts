/**
 * The daily cron job: return unanswered offers' holds, expire connects, delete what has expired, re-check verified
 * sites that are due, retry email.
 */
import { lt, or } from "drizzle-orm";
import { sessions } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { deleteExpiredSignupDrafts } from "./accounts.server";
import { deleteExpiredConfirmations } from "./email-confirmation.server";
import { deliverOutbox, purgeExpiredSecrets } from "./email.server";
import { expireOffersAndConnects } from "./offers.server";
import { deleteExpiredResetTokens } from "./password-reset.server";
import { deleteOldWindows } from "./rate-limit.server";
import { recheckVerifiedSites } from "./verification.server";

export async function runHousekeeping(context: AppContext) {
  const { db, env } = context;
  const now = context.now();
  await expireOffersAndConnects(context);
  await db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.absoluteExpiresAt, now)));
  await deleteExpiredResetTokens({ db }, now);
  await deleteExpiredConfirmations(db, now);
  await deleteExpiredSignupDrafts(db, now);
  await deleteOldWindows(db, now);
  await recheckVerifiedSites(context);
  await deliverOutbox(db, env, now);
  await purgeExpiredSecrets(db, now);
}
