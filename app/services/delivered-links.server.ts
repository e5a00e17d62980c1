/**
 * Delivered links (decision 15): the page a party names when it marks its side completed is read, and must link to
 * the other party's site (any page of that host). What was found is recorded: the link's rel, its anchor text, and
 * whether it is hidden.
 */
import { desc, eq } from "drizzle-orm";
import { linkChecks } from "#drizzle/schema";
import { messages } from "~/domain/messages";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { scanLinks, type FoundLink } from "~/lib/html.server";
import { newId } from "~/lib/ids";
import { safeFetch, safeFetchOptionsFor } from "~/lib/safe-fetch.server";

export type LinkInspection = { ok: true; link: FoundLink; url: string } | { ok: false; reason: "missing" | "unreadable"; message: string };

const bare = (host: string) =>
  host
    .toLowerCase()
    .replace(/^www\./, "")
    .replace(/\.$/, "");

/** The best of the links found: a visible followed one, then a visible one with another rel, then a hidden one. */
export function bestLink(links: FoundLink[]): FoundLink | null {
  const rank = (link: FoundLink) => (link.hidden ? 2 : 0) + (link.rel === "follow" ? 0 : 1);
  return [...links].sort((a, b) => rank(a) - rank(b))[0] ?? null;
}

/** Reads the content page (through the safe fetch) and looks for a link to `targetHost`. */
export async function inspectDeliveredLink(context: AppContext, contentUrl: string, targetHost: string): Promise<LinkInspection> {
  const page = await safeFetch(contentUrl, safeFetchOptionsFor(context.env, context.db));
  if (!page.ok) return { ok: false, reason: "unreadable", message: page.message };
  if (page.status < 200 || page.status > 299) {
    await page.cancel();
    return { ok: false, reason: "unreadable", message: `${messages.fetchHttpError} (HTTP ${page.status}).` };
  }
  const scanned = await scanLinks(page, (url) => bare(url.hostname) === bare(targetHost));
  if (!scanned.ok) return { ok: false, reason: "unreadable", message: scanned.message };
  const link = bestLink(scanned.links);
  if (!link) return { ok: false, reason: "missing", message: messages.linkNotFound.replace("{site}", targetHost) };
  return { ok: true, link, url: page.url };
}

/** Records a check of a delivered link. */
export async function recordLinkCheck(
  db: Database,
  check: { offerId: string; userId: string; contentUrl: string; targetHost: string; link: FoundLink | null; error: string | null },
  now: number
): Promise<void> {
  await db.insert(linkChecks).values({
    id: newId(),
    offerId: check.offerId,
    userId: check.userId,
    contentUrl: check.contentUrl,
    targetHost: check.targetHost,
    state: check.link ? "found" : check.error ? "error" : "missing",
    rel: check.link?.rel ?? null,
    anchorText: check.link?.anchorText ?? null,
    href: check.link?.href ?? null,
    hidden: check.link?.hidden ?? false,
    error: check.error,
    checkedAt: now,
  });
}

/** Each party's latest check of its delivered link on this offer, for the trade's detail. */
export async function latestLinkChecks(db: Database, offerId: string) {
  const rows = await db.select().from(linkChecks).where(eq(linkChecks.offerId, offerId)).orderBy(desc(linkChecks.checkedAt)).limit(50).all();
  const latest = new Map<string, (typeof rows)[number]>();
  for (const row of rows) if (!latest.has(row.userId)) latest.set(row.userId, row);
  return latest;
}
