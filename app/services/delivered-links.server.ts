/**
 * Delivered links: the page a party names when it marks its side completed is read, and must link to
 * the other party's site (any page of that host). What was found is recorded: the link's rel, its anchor text, and
 * whether it is hidden. See docs/decisions/0015-trade-progress-and-delivery.md and 0016-delivered-link-rechecks.md.
 */
import { and, asc, desc, eq, gt, isNotNull, lte, sql, type Placeholder, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { linkChecks, offerEntries, offers, sites } from "#drizzle/schema";
import { messages } from "~/domain/messages";
import { LINK_CHANGES, type DeliveredLinkStatus } from "~/domain/offer-view";
import type { AppContext } from "~/lib/context";
import { forEachConcurrently } from "~/lib/concurrency";
import { LINK_MARK_DAYS, LINK_WATCH_MS } from "~/domain/reputation";
import { refreshReputation } from "./reputation.server";
import type { Database } from "~/lib/db.server";
import { scanLinks, type FoundLink } from "~/lib/html.server";
import { newId } from "~/lib/ids";
import { isSameSite } from "~/domain/site-address";
import { emailToUser } from "./email.server";
import { safeFetch, safeFetchOptionsFor } from "~/lib/safe-fetch.server";

export type LinkInspection =
  | {
      ok: true;
      link: FoundLink;
      /** Where the page was read, after its redirects. */
      url: string;
      /** The page itself: its canonical address on the deliverer's site, else `url`; no fragment. */
      page: string;
    }
  | { ok: false; reason: "missing"; message: string; links: FoundLink[] }
  | { ok: false; reason: "unreadable"; message: string; status: number | null }
  | { ok: false; reason: "elsewhere"; message: string };

const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^www\./, "")
    .replace(/\.$/, "");

/** Links kept of each kind when a page is read: to the partner's site, and to anywhere else. */
const LINKS_KEPT = 1_000;

/** The best of the links found: a visible followed one, then a visible one with another rel, then a hidden one. */
export function bestLink(links: FoundLink[]): FoundLink | null {
  const rank = (link: FoundLink) => (link.hidden ? 2 : 0) + (link.rel === "follow" ? 0 : 1);
  return [...links].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/**
 * Reads the content page (through the safe fetch) and looks for a link to `targetHost`. The page must be on the
 * deliverer's own site (`ownHost`), before and after its redirects: a link on someone else's page is not delivered.
 */
export async function inspectDeliveredLink(context: AppContext, contentUrl: string, targetHost: string, ownHost: string): Promise<LinkInspection> {
  const elsewhere = messages.contentElsewhere.replace("{site}", ownHost);
  if (!isSameSite(contentUrl, bare(ownHost))) return { ok: false, reason: "elsewhere", message: elsewhere };
  const page = await safeFetch(contentUrl, safeFetchOptionsFor(context.env, context.db));
  if (!page.ok) return { ok: false, reason: "unreadable", message: page.message, status: null };
  if (!isSameSite(page.url, bare(ownHost))) {
    await page.cancel();
    return { ok: false, reason: "elsewhere", message: elsewhere };
  }
  if (page.status < 200 || page.status > 299) {
    await page.cancel();
    return { ok: false, reason: "unreadable", message: `${messages.fetchHttpError} (HTTP ${page.status}).`, status: page.status };
  }
  // The links to the partner, and the others (a link that moved elsewhere is found among them): a thousand of each at
  // most, so a page of a million links costs no more memory than a page of two thousand.
  let toTarget = 0;
  let others = 0;
  const scanned = await scanLinks(page, (url) => (bare(url.hostname) === bare(targetHost) ? toTarget++ : others++) < LINKS_KEPT);
  if (!scanned.ok) return { ok: false, reason: "unreadable", message: scanned.message, status: null };
  const link = bestLink(scanned.links.filter((found) => bare(new URL(found.href).hostname) === bare(targetHost)));
  if (!link) return { ok: false, reason: "missing", message: messages.linkNotFound.replace("{site}", targetHost), links: scanned.links };
  return { ok: true, link, url: page.url, page: pageAddress(page.url, scanned.canonical, ownHost) };
}

/**
 * Which page a delivery is: where it was read after its redirects, without the query string and fragment its canonical
 * address (`<link rel="canonical">`) drops. Only a canonical address on the deliverer's site with the same path counts:
 * many sites name their home page as every page's canonical by mistake, and two articles are not one page for it. Two
 * addresses of one page (a query string added, a short link) are then one delivery
 * (docs/decisions/0015-trade-progress-and-delivery.md).
 */
function pageAddress(readAt: string, canonical: string | null, ownHost: string): string {
  const read = new URL(readAt);
  const named = canonical && isSameSite(canonical, bare(ownHost)) ? new URL(canonical) : null;
  const samePath = (url: URL) => url.pathname.replace(/(.)\/+$/, "$1");
  const url = named && samePath(named) === samePath(read) ? named : read;
  url.hash = "";
  return url.toString();
}

/** Records a check of a delivered link. */
export async function recordLinkCheck(
  db: Database,
  check: {
    offerId: string;
    userId: string;
    contentUrl: string;
    targetHost: string;
    link: FoundLink | null;
    error: string | null;
    /** The page is gone for good (404, 410, elsewhere, unreadable for days): missing, with the reason kept. */
    gone?: boolean;
  },
  now: number,
): Promise<void> {
  await db.insert(linkChecks).values({
    id: newId(),
    offerId: check.offerId,
    userId: check.userId,
    contentUrl: check.contentUrl,
    targetHost: check.targetHost,
    state: check.link ? "found" : check.error && !check.gone ? "error" : "missing",
    rel: check.link?.rel ?? null,
    anchorText: check.link?.anchorText ?? null,
    href: check.link?.href ?? null,
    hidden: check.link?.hidden ?? false,
    error: check.error,
    checkedAt: now,
  });
}

/** How a found link stands: live (followed and visible), nofollow (any rel that is not followed), or hidden. */
export function statusOfLink(link: FoundLink): DeliveredLinkStatus {
  if (link.hidden) return "hidden";
  return link.rel === "follow" ? "live" : "nofollow";
}

const DAY_MS = 24 * 60 * 60_000;
/** Delivered links are watched for a year. */
export { LINK_WATCH_MS };
/** Re-checks per run of the five-minute job (at most 14,400 a day). */
export const LINK_CHECKS_PER_RUN = 50;
/** Days in a row a page cannot be read before its link counts as lost. */
const UNREADABLE_DAYS_TO_LOST = 3;

/** The next daily check: at this link's own time of day (spread over the day by its ids), 12 to 36 hours on. */
export function nextLinkCheck(offerId: string, userId: string, after: number): number {
  let hash = 0;
  for (const char of `${offerId}:${userId}`) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  const offset = hash % DAY_MS;
  let next = after - (after % DAY_MS) + offset;
  // At least half a day away, so a check is never repeated the same day.
  while (next <= after + DAY_MS / 2) next += DAY_MS;
  return next;
}

const deliverer = alias(sites, "deliverer_site");
const receiver = alias(sites, "receiver_site");

/**
 * The job: re-checks the delivered links that are due (daily, for a year after delivery), keeps each check in the
 * history, and when a link's state changes records it on the entry (the flag both dashboards and the trade show)
 * and emails the party the link was for, once per change. A page that cannot be reached for now changes nothing;
 * a page that is gone (404, 410) is a lost link.
 */
export async function recheckDeliveredLinks(context: AppContext, limit = LINK_CHECKS_PER_RUN): Promise<number> {
  const { db } = context;
  const now = context.now();
  // Links whose year ended while they waited leave the queue (so the due index stops finding them).
  await db
    .update(offerEntries)
    .set({ linkDueAt: null })
    .where(and(lte(offerEntries.linkDueAt, now), lte(offerEntries.linkWatchUntil, now)));
  const due = await db
    .select({
      offerId: offerEntries.offerId,
      userId: offerEntries.userId,
      contentUrl: offerEntries.contentUrl,
      linkStatus: offerEntries.linkStatus,
      linkWatchUntil: offerEntries.linkWatchUntil,
      senderUserId: offers.senderUserId,
      receiverUserId: offers.receiverUserId,
      delivererSiteId: deliverer.id,
      delivererHost: deliverer.host,
      targetHost: receiver.host,
    })
    .from(offerEntries)
    .innerJoin(offers, eq(offers.id, offerEntries.offerId))
    .innerJoin(deliverer, eq(deliverer.id, offerEntries.siteId))
    .innerJoin(
      receiver,
      eq(receiver.id, sql`CASE WHEN ${offerEntries.userId} = ${offers.senderUserId} THEN ${offers.receiverSiteId} ELSE ${offers.senderSiteId} END`),
    )
    .where(
      and(
        eq(offerEntries.status, "completed"),
        isNotNull(offerEntries.contentUrl),
        lte(offerEntries.linkDueAt, now),
        gt(offerEntries.linkWatchUntil, now),
      ),
    )
    .orderBy(asc(offerEntries.linkDueAt))
    .limit(limit)
    .all();
  await forEachConcurrently(due, 4, (entry) =>
    recheckOne(context, entry, now).catch((error) => console.error("link re-check", entry.offerId, error)),
  );
  // The delivering sites' records count the first check at or after 30 and 90 days: recounted when one was that.
  const atMark = (entry: (typeof due)[number]) => {
    const age = now - ((entry.linkWatchUntil ?? 0) - LINK_WATCH_MS);
    // A week after each mark: the first readable check may come late (an unreadable day, a queue running behind).
    return LINK_MARK_DAYS.some((days) => age >= days * DAY_MS && age < (days + 7) * DAY_MS);
  };
  await refreshReputation(
    db,
    due.filter(atMark).map((entry) => entry.delivererSiteId),
    now,
  );
  return due.length;
}

async function recheckOne(
  context: AppContext,
  entry: {
    offerId: string;
    userId: string;
    contentUrl: string | null;
    linkStatus: DeliveredLinkStatus | null;
    linkWatchUntil: number | null;
    senderUserId: string;
    receiverUserId: string;
    delivererHost: string;
    targetHost: string;
  },
  now: number,
) {
  const { db } = context;
  const contentUrl = entry.contentUrl ?? "";
  const entryWhere = and(eq(offerEntries.offerId, entry.offerId), eq(offerEntries.userId, entry.userId));
  // Claimed first: whatever happens below, this entry is not the head of the queue again until its next day, and
  // once its year is over it leaves the queue (no due time). Only while it is still due: a run that overlaps this one
  // (a slow run, a cron delivered twice) and claimed it first checks it, not both (the unreadable days would count twice).
  const next = nextLinkCheck(entry.offerId, entry.userId, now);
  const claimed = await db
    .update(offerEntries)
    .set({ linkDueAt: entry.linkWatchUntil !== null && next > entry.linkWatchUntil ? null : next })
    .where(and(entryWhere, lte(offerEntries.linkDueAt, now)))
    .returning({ offerId: offerEntries.offerId });
  if (claimed.length === 0) return;
  const inspection = await inspectDeliveredLink(context, contentUrl, entry.targetHost, entry.delivererHost);
  let status: DeliveredLinkStatus | null;
  if (inspection.ok) status = statusOfLink(inspection.link);
  else if (inspection.reason === "missing") {
    // The anchor text it had now on a link to somewhere else: it points elsewhere.
    const last = await db
      .select({ anchorText: linkChecks.anchorText })
      .from(linkChecks)
      .where(and(eq(linkChecks.offerId, entry.offerId), eq(linkChecks.userId, entry.userId), eq(linkChecks.state, "found")))
      .orderBy(desc(linkChecks.checkedAt))
      .limit(1)
      .get();
    const anchor = last?.anchorText?.trim().toLowerCase();
    const offSite = inspection.links.filter((link) => !isSameSite(link.href, bare(entry.delivererHost)));
    status = anchor && offSite.some((link) => link.anchorText.trim().toLowerCase() === anchor) ? "moved" : "lost";
  } else if (inspection.reason === "elsewhere" || inspection.status === 404 || inspection.status === 410) {
    status = "lost";
  } else {
    // Cannot be read today: a flag only after several days in a row (this one included).
    const recent = await db
      .select({ state: linkChecks.state })
      .from(linkChecks)
      .where(and(eq(linkChecks.offerId, entry.offerId), eq(linkChecks.userId, entry.userId)))
      .orderBy(desc(linkChecks.checkedAt))
      .limit(UNREADABLE_DAYS_TO_LOST - 1)
      .all();
    status = recent.length === UNREADABLE_DAYS_TO_LOST - 1 && recent.every((check) => check.state === "error") ? "lost" : null;
  }

  await recordLinkCheck(
    db,
    {
      offerId: entry.offerId,
      userId: entry.userId,
      contentUrl,
      targetHost: entry.targetHost,
      link: inspection.ok ? inspection.link : null,
      error: !inspection.ok && inspection.reason !== "missing" ? inspection.message : null,
      gone: status === "lost",
    },
    now,
  );
  const changed = status !== null && status !== entry.linkStatus;
  const partner = entry.userId === entry.senderUserId ? entry.receiverUserId : entry.senderUserId;
  const link = new URL(`/mysite/offers?offer=${entry.offerId}`, context.env.APP_URL).toString();
  const statements = [
    db
      .update(offerEntries)
      .set({ linkCheckedAt: now, ...(status !== null ? { linkStatus: status } : {}) })
      .where(entryWhere),
  ];
  if (changed && status) {
    const subject = status === "live" ? `Your link on ${entry.delivererHost} is back` : `Your link on ${entry.delivererHost} ${LINK_CHANGES[status]}`;
    const text =
      status === "live"
        ? `The link to ${entry.targetHost} on ${contentUrl} is there again, followed and visible.`
        : `We checked ${contentUrl} today: the link to ${entry.targetHost} ${LINK_CHANGES[status]}. You may want to ask ${entry.delivererHost} about it.`;
    await db.batch([
      statements[0]!,
      emailToUser(
        db,
        {
          userId: partner,
          subject,
          text: `${text}\n\nThe trade and its link checks: ${link}`,
          kind: "link-check",
          dedupeKey: `link:${entry.offerId}:${entry.userId}:${status}:${now - (now % DAY_MS)}`,
        },
        now,
      ),
    ]);
  } else {
    await statements[0];
  }
}

/** Delivered links with a problem on the trades of this site, as both parties' dashboards show them. */
export function linkProblemsQuery(db: Database, siteId: string | SQL, now: number | Placeholder) {
  return db
    .select({
      offerId: offerEntries.offerId,
      status: offerEntries.linkStatus,
      checkedAt: offerEntries.linkCheckedAt,
      delivererHost: deliverer.host,
      contentUrl: offerEntries.contentUrl,
    })
    .from(offerEntries)
    .innerJoin(offers, eq(offers.id, offerEntries.offerId))
    .innerJoin(deliverer, eq(deliverer.id, offerEntries.siteId))
    .where(
      and(
        sql`${offerEntries.linkStatus} IN ('lost', 'moved', 'nofollow', 'hidden')`,
        gt(offerEntries.linkWatchUntil, now),
        sql`(${offers.senderSiteId} = ${siteId} OR ${offers.receiverSiteId} = ${siteId})`,
      ),
    )
    .orderBy(desc(offerEntries.linkCheckedAt))
    .limit(20);
}

/** Checks kept on a trade's panel, per side. */
const LINK_HISTORY_PER_SIDE = 30;

/**
 * The checks of the links delivered on this offer, newest first: the history on the trade's detail, and each side's
 * latest. The latest of each side, read per side: one side's year of daily checks may have ended months before the
 * other's, whose checks would otherwise push it out.
 */
export async function linkHistoryOf(db: Database, offerId: string, userIds: [string, string]) {
  const side = (userId: string) =>
    db
      .select({
        userId: linkChecks.userId,
        state: linkChecks.state,
        rel: linkChecks.rel,
        hidden: linkChecks.hidden,
        anchorText: linkChecks.anchorText,
        targetHost: linkChecks.targetHost,
        error: linkChecks.error,
        checkedAt: linkChecks.checkedAt,
      })
      .from(linkChecks)
      .where(and(eq(linkChecks.offerId, offerId), eq(linkChecks.userId, userId)))
      .orderBy(desc(linkChecks.checkedAt))
      .limit(LINK_HISTORY_PER_SIDE);
  const [first, second] = await db.batch([side(userIds[0]), side(userIds[1])]);
  return [...first, ...second].sort((a, b) => b.checkedAt - a.checkedAt);
}
