/** Moving one's own side of an accepted trade: start, stop, complete (delivering the link, which is checked). */
import { and, eq, inArray, sql } from "drizzle-orm";
import { offerEntries } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import type { FoundLink } from "~/lib/html.server";
import { messages } from "~/domain/messages";
import { canMoveEntry, contentUrlOf, entryStatesBefore, isOverlongContentUrl, samePageAddresses, type EntryStatus } from "~/domain/offer-rules";
import { inspectDeliveredLink, LINK_WATCH_MS, nextLinkCheck, recordLinkCheck, statusOfLink } from "./delivered-links.server";
import { deliverSoon, emailToUser } from "./email.server";
import { offerEmail, savedOrNull, type Outcome } from "./offer-changes.server";
import { offerForParticipant } from "./offer-detail.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import { refreshReputationLater } from "./reputation.server";
import { hostsOf } from "./trades-read.server";

/**
 * Whether this page already delivered the user's link to the same partner site in another trade: each trade is its
 * own piece of content, so one page cannot complete several (nor count as several backlinks). A condition on the
 * moving entry's row, so the completing update itself holds it: two trades completed at once with one page cannot both
 * pass a check made before the page was fetched.
 */
function pageDeliveredInAnotherTrade(userId: string, offerId: string, pages: string[], partnerSiteId: string) {
  const addresses = sql.join(
    [...new Set(pages.flatMap(samePageAddresses))].map((address) => sql`${address}`),
    sql`, `,
  );
  // A page is known by the address typed and by the page itself (its canonical address, or where it was read after
  // redirects): another address of a page already delivered (a query string added, a short link) is that page.
  return sql`EXISTS (SELECT 1 FROM offer_entries AS delivered
    JOIN offer_entries AS partner ON partner.offer_id = delivered.offer_id AND partner.user_id != delivered.user_id
    WHERE delivered.user_id = ${userId} AND delivered.status = 'completed' AND delivered.offer_id != ${offerId}
      AND (delivered.content_url IN (${addresses}) OR delivered.page_url IN (${addresses})) AND partner.site_id = ${partnerSiteId})`;
}

async function deliveredBefore(context: AppContext, userId: string, offerId: string, pages: string[], partnerSiteId: string) {
  const [row] = await context.db.all<{ found: number }>(sql`SELECT ${pageDeliveredInAnotherTrade(userId, offerId, pages, partnerSiteId)} AS found`);
  return row?.found === 1;
}

/** Whether one's side is already where the move leads: completed with the same page, for a delivery. */
function alreadyMoved(own: { status: EntryStatus; contentUrl: string | null }, to: EntryStatus, typedUrl: string | null): boolean {
  if (own.status !== to) return false;
  if (to !== "completed") return true;
  const contentUrl = contentUrlOf(typedUrl ?? "");
  return Boolean(contentUrl && own.contentUrl && samePageAddresses(contentUrl).includes(own.contentUrl));
}

/**
 * Moves one's own side of an accepted trade of one's own sites; completing needs the content url (`typedUrl`, as the
 * owner typed it: other moves ignore it).
 */
export async function moveTradeEntry(
  context: AppContext,
  user: { id: string },
  offerId: string,
  to: EntryStatus,
  typedUrl: string | null,
): Promise<Outcome> {
  const { db } = context;
  const userId = user.id;
  const found = await offerForParticipant(db, userId, offerId);
  if (!found) return { ok: false, status: 404, message: messages.offerChangeRefused };
  // The same move sent twice (a second click without JavaScript, another tab): done, as for answers, and before the
  // page is fetched again.
  if (found.offer.status === "accepted" && alreadyMoved(found.own, to, typedUrl)) return { ok: true, offerId };
  if (found.offer.status !== "accepted" || !canMoveEntry(found.own.status, to)) {
    return { ok: false, status: 409, message: messages.offerChangeRefused };
  }
  const contentUrl = to === "completed" ? contentUrlOf(typedUrl ?? "") : null;
  if (to === "completed" && !contentUrl) {
    return { ok: false, status: 400, message: isOverlongContentUrl(typedUrl ?? "") ? messages.contentUrlTooLong : messages.enterContentUrl };
  }
  const now = context.now();
  const hosts = to === "completed" ? await hostsOf(db, offerId) : null;
  const mine = (found.role === "sender" ? hosts?.sender : hosts?.receiver) ?? "Your partner";
  // Completing means delivering: the page must link to the other party's site (docs/decisions/0015-trade-progress-and-delivery.md).
  let delivered: { link: FoundLink; targetHost: string; page: string } | null = null;
  if (to === "completed" && contentUrl) {
    const targetHost = (found.role === "sender" ? hosts?.receiver : hosts?.sender) ?? "";
    const ownHost = (found.role === "sender" ? hosts?.sender : hosts?.receiver) ?? "";
    const alreadyDelivered = { ok: false, status: 409, message: messages.pageAlreadyDelivered.replace("{site}", targetHost) } as const;
    if (await deliveredBefore(context, userId, offerId, [contentUrl], found.other.siteId)) return alreadyDelivered;
    if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, userId))) return { ok: false, status: 429, message: messages.tooManyLinkChecks };
    const inspection = await inspectDeliveredLink(context, contentUrl, targetHost, ownHost);
    if (!inspection.ok) return { ok: false, status: 422, message: inspection.message };
    // Read, the page may turn out to be one already delivered under another address.
    if (inspection.page !== contentUrl && (await deliveredBefore(context, userId, offerId, [contentUrl, inspection.page], found.other.siteId))) {
      return alreadyDelivered;
    }
    delivered = { link: inspection.link, targetHost, page: inspection.page };
  }
  const [moved] = (await savedOrNull(
    db.batch([
      db
        .update(offerEntries)
        .set({
          status: to,
          updatedAt: now,
          ...(to === "completed" && delivered
            ? {
                contentUrl,
                pageUrl: delivered.page,
                // Watched from now on: checked daily for a year.
                linkStatus: statusOfLink(delivered.link),
                linkCheckedAt: now,
                linkDueAt: nextLinkCheck(offerId, userId, now),
                linkWatchUntil: now + LINK_WATCH_MS,
              }
            : {}),
        })
        .where(
          and(
            eq(offerEntries.offerId, offerId),
            eq(offerEntries.userId, userId),
            inArray(offerEntries.status, entryStatesBefore(to)),
            sql`EXISTS (SELECT 1 FROM offers WHERE id = ${offerId} AND status = 'accepted')`,
            to === "completed" && contentUrl && delivered
              ? sql`NOT ${pageDeliveredInAnotherTrade(userId, offerId, [contentUrl, delivered.page], found.other.siteId)}`
              : undefined,
          ),
        )
        .returning({ offerId: offerEntries.offerId }),
      // The partner hears of a delivery, once.
      ...(to === "completed"
        ? [
            emailToUser(
              db,
              offerEmail(
                context,
                offerId,
                `completed:${userId}`,
                found.other.userId,
                `${mine} completed their side`,
                `${mine} delivered: ${contentUrl}`,
                sql`EXISTS (SELECT 1 FROM offer_entries WHERE offer_id = ${offerId} AND user_id = ${userId} AND status = 'completed' AND updated_at = ${now})`,
              ),
              now,
            ),
          ]
        : []),
    ]),
  )) ?? [null];
  if (moved === null) return { ok: false, status: 500, message: messages.offerSaveFailed };
  if (moved.length === 0) {
    // The same move, sent twice at once, saved by the other request.
    const current = await offerForParticipant(db, userId, offerId);
    if (current?.offer.status === "accepted" && alreadyMoved(current.own, to, typedUrl)) return { ok: true, offerId };
    // Another trade may have completed with this page while it was being fetched.
    if (delivered && contentUrl && (await deliveredBefore(context, userId, offerId, [contentUrl, delivered.page], found.other.siteId))) {
      return { ok: false, status: 409, message: messages.pageAlreadyDelivered.replace("{site}", delivered.targetHost) };
    }
    return { ok: false, status: 409, message: messages.offerChangeRefused };
  }
  if (delivered && contentUrl) {
    await recordLinkCheck(db, { offerId, userId, contentUrl, targetHost: delivered.targetHost, link: delivered.link, error: null }, now).catch(
      (error) => console.error("recording a delivered link", error),
    );
  }
  deliverSoon(context);
  refreshReputationLater(context, [found.own.siteId]);
  return { ok: true, offerId };
}
