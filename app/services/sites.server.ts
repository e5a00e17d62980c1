/** A user's sites: creating them, listing them, and the active site of a session. */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { listings, sessions, sites } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { isUniqueConstraintError } from "~/lib/db.server";
import { isOtherBlog, normaliseHost } from "~/domain/site-address";
import { messages } from "~/domain/messages";
import { newId } from "~/lib/ids";
import { generateToken } from "./sessions.server";

export interface NewSite {
  userId: string;
  url: string;
  description: string;
  category: string;
}

/** The insert of a new site, for use inside a batch. The url must already be validated. */
export function prepareSite(db: Database, site: NewSite, now: number) {
  const host = normaliseHost(site.url);
  if (!host) throw new Error("prepareSite needs a validated url");
  const id = newId();
  const statement = db.insert(sites).values({
    id,
    userId: site.userId,
    url: site.url.trim(),
    host,
    description: site.description.trim(),
    category: site.category,
    verificationToken: generateToken(),
    createdAt: now,
  });
  return { id, host, statement };
}

/** The user's site on a host (an account has one per host), as far as adding another there needs it. */
function ownSiteOnHost(db: Database, userId: string, host: string) {
  return db
    .select({ id: sites.id, url: sites.url, description: sites.description, createdAt: sites.createdAt })
    .from(sites)
    .where(and(eq(sites.userId, userId), eq(sites.host, host)))
    .get();
}

/**
 * Why a site is refused beside the user's site on the same host (one site per host in an account): it is that site, or
 * another blog on a platform whose addresses keep their path (medium.com/@someone-else).
 */
function refusalBeside(own: { url: string } | undefined, host: string, url: string): string {
  return own && isOtherBlog(host, own.url, url) ? messages.siteOnHostAlready(host) : messages.websiteAlreadyAdded;
}

export async function sameHostRefusal(db: Database, site: NewSite): Promise<string> {
  const host = normaliseHost(site.url) ?? "";
  return refusalBeside(await ownSiteOnHost(db, site.userId, host), host, site.url);
}

/** `again`: the very same site was added by this user within the last minute (the form sent twice): that site. */
export type AddSiteResult = { ok: true; siteId: string; again?: true } | { ok: false; message: string };

/** How long after adding a site the same form sent again counts as the same add, not as a site already there. */
const SENT_AGAIN_MS = 60_000;

export async function addSite(db: Database, site: NewSite, now: number): Promise<AddSiteResult> {
  const { id, host, statement } = prepareSite(db, site, now);
  try {
    await statement;
    return { ok: true, siteId: id };
  } catch (error) {
    if (isUniqueConstraintError(error)) {
      // "Add website" pressed twice without JavaScript: both posts wait out the processing delay together, and the
      // browser shows the second answer. The same address and description, just added, is that add.
      const own = await ownSiteOnHost(db, site.userId, host);
      const again = own && own.url === site.url.trim() && own.description === site.description.trim() && own.createdAt > now - SENT_AGAIN_MS;
      return again ? { ok: true, siteId: own.id, again: true } : { ok: false, message: refusalBeside(own, host, site.url) };
    }
    console.error("addSite failed", error);
    return { ok: false, message: messages.addWebsiteFailed };
  }
}

/** The score a site shows: its audited score, or until the first audit its placeholder (docs/decisions/0024-placeholder-score.md). */
export const shownScore = sql<number>`coalesce(${sites.score}, ${sites.placeholderScore})`;

/**
 * The whole rows of the user's sites, oldest first (a query to run or to batch). The site switcher shows some fields
 * of each (`switcherSite`), and the active site is one of them (`pickActiveSite`): one statement for both.
 */
export function ownedSitesQuery(db: Database, userId: string | SQL) {
  return db.select().from(sites).where(eq(sites.userId, userId)).orderBy(asc(sites.createdAt), asc(sites.id));
}

/** `shownScore` of a whole row. (The placeholder's formula never gives NULL; drizzle types a generated column as nullable.) */
export function shownScoreOf(site: Pick<OwnedSite, "score" | "placeholderScore">): number {
  return site.score ?? site.placeholderScore ?? 0;
}

/** What the site switcher shows of a site (sent to the browser: never the verification token or the audit's details). */
export function switcherSite(site: OwnedSite) {
  return { id: site.id, url: site.url, host: site.host, icon: site.icon, verified: site.verified, score: shownScoreOf(site) };
}

/**
 * Which of the user's sites is active: the remembered one while the user owns it, else their first. `pickActiveSite`
 * picks from the rows of `ownedSitesQuery` (oldest first); `activeSiteIdSql` says the same in SQL.
 */
const activeSiteOrder = (remembered: SQL) => [sql`${sites.id} = ${remembered} DESC`, asc(sites.createdAt), asc(sites.id)];

export function pickActiveSite<T extends { id: string }>(oldestFirst: readonly T[], remembered: string | null): T | null {
  return oldestFirst.find((site) => site.id === remembered) ?? oldestFirst[0] ?? null;
}

/** The active site's id as SQL, for a statement that is sent before the session has been read (NULL without a site). */
export function activeSiteIdSql(db: Database, userId: SQL, remembered: SQL): SQL {
  const query = db
    .select({ id: sites.id })
    .from(sites)
    .where(eq(sites.userId, userId))
    .orderBy(...activeSiteOrder(remembered))
    .limit(1);
  return sql`(${query})`;
}

/** Remembers the active site in the session; refuses a site the user does not own. */
export async function setActiveSite(db: Database, sessionId: string, userId: string, siteId: string): Promise<boolean> {
  const owned = await db
    .select({ id: sites.id })
    .from(sites)
    .where(and(eq(sites.id, siteId), eq(sites.userId, userId)))
    .get();
  if (!owned) return false;
  await db.update(sessions).set({ activeSiteId: siteId }).where(eq(sessions.id, sessionId));
  return true;
}

/** The whole site row, only for its owner. */
export function getOwnedSite(db: Database, userId: string, siteId: string) {
  return db
    .select()
    .from(sites)
    .where(and(eq(sites.id, siteId), eq(sites.userId, userId)))
    .get();
}

export type OwnedSite = NonNullable<Awaited<ReturnType<typeof getOwnedSite>>>;

export interface SiteSettings {
  description: string;
  tags: string[];
  materials: string[];
  contentTypes: string[];
  /** Show the site in the market at this price; the listing offers the site's content types and materials. */
  listed: boolean;
  connects?: number;
  /** The listing as the form's page showed it (none: not known, so the form's listing is written as sent). */
  shownListing?: { listed: boolean; connects?: number };
}

/**
 * Saves the settings of a site the user owns, and its market listing; answers false for anyone else's site. A form
 * that leaves the listing as its page showed it keeps the listing as it is now (another tab may have taken the site
 * off the market or repriced it since; docs/decisions/0053-writes-that-overlap.md); the listing still offers the
 * site's content types and materials as saved.
 */
export async function updateSiteSettings(db: Database, userId: string, siteId: string, settings: SiteSettings, now: number): Promise<boolean> {
  const { listed, connects, shownListing, ...fields } = settings;
  const owned = and(eq(sites.id, siteId), eq(sites.userId, userId));
  const ownListing = and(eq(listings.siteId, siteId), eq(listings.userId, userId));
  const untouched = shownListing !== undefined && shownListing.listed === listed && (!listed || shownListing.connects === connects);
  const [updated] = await db.batch([
    db.update(sites).set(fields).where(owned).returning({ id: sites.id }),
    untouched
      ? db
          .update(listings)
          .set({
            contentTypes: sql`(SELECT content_types FROM sites WHERE id = ${siteId})`,
            materials: sql`(SELECT materials FROM sites WHERE id = ${siteId})`,
          })
          .where(ownListing)
      : listed && connects !== undefined
      ? listingUpsert(db, userId, siteId, connects, now)
      : db.update(listings).set({ active: false }).where(ownListing),
  ]);
  return updated.length > 0;
}

/**
 * The statement that lists a site the user owns at `connects` (nothing for anyone else's): its listing is created, or
 * shown again at that price, with the site's content types and materials as they are when it runs (in a batch, after
 * the statements that change them).
 */
export function listingUpsert(db: Database, userId: string, siteId: string, connects: number, now: number) {
  return db
    .insert(listings)
    .select(
      db
        .select({
          id: sql<string>`${newId()}`.as("id"),
          siteId: sites.id,
          userId: sites.userId,
          connects: sql<number>`${connects}`.as("connects"),
          contentTypes: sites.contentTypes,
          materials: sites.materials,
          active: sql<boolean>`1`.as("active"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(sites)
        .where(and(eq(sites.id, siteId), eq(sites.userId, userId))),
    )
    .onConflictDoUpdate({
      target: listings.siteId,
      set: { active: true, connects, contentTypes: sql`excluded.content_types`, materials: sql`excluded.materials` },
    });
}

/** The site's listing, if it has one. */
export function getListingOf(db: Database, siteId: string) {
  return db.select({ active: listings.active, connects: listings.connects }).from(listings).where(eq(listings.siteId, siteId)).get();
}
