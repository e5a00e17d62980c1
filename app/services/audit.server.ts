/**
 * The site audit: reads the home page, robots.txt, the sitemap and the http to https redirect through
 * the safe fetch (pages through HTMLRewriter), counts the backlinks the marketplace verified, asks the rank provider
 * when one is configured, and turns what it saw into the six Your Score attributes and the authority score
 * (`~/domain/audit`). Every run is kept in `score_runs`.
 *
 * It runs after the response of sign-up and add-site, on demand from Your Score (once an hour per site), and weekly
 * for every site from the audits' own five-minute cron job, a few sites per run. See docs/decisions/0011-authority-score-audit.md.
 */
import { and, asc, desc, eq, gt, inArray, isNull, lte, ne, notExists, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import { offerEntries, offers, scoreRuns, sites } from "#drizzle/schema";
import { forEachConcurrently } from "~/lib/concurrency";
import type { AppContext } from "~/lib/context";
import type { Database } from "~/lib/db.server";
import { numberVar } from "~/lib/env";
import { scanOnPage } from "~/lib/html.server";
import { newId } from "~/lib/ids";
import { safeFetch, safeFetchOptionsFor, WorkerLimitError, type FetchedPage, type SafeFetchOptions } from "~/lib/safe-fetch.server";
import { valueOf } from "~/lib/statement-shapes.server";
import {
  attributesOf,
  AUDIT_INTERVAL_MS,
  AUDIT_RETRY_MS,
  AUDIT_STALE_MS,
  authorityScore,
  looksLikeSitemap,
  OWNER_AUDIT_INTERVAL_MS,
  PROVIDER_FIGURES_KEPT_MS,
  readRobots,
  type AuditFacts,
  type AuditStep,
} from "~/domain/audit";
import { messages } from "~/domain/messages";
import { isSameSite, normaliseHost, typedHost } from "~/domain/site-address";
import { lookUpRank } from "./rank-provider.server";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import type { OwnedSite } from "./sites.server";
import { fetchHomePage } from "./verification.server";
import { viewerShapes, type Viewer } from "./viewer.server";

/** One audit's fetches share this deadline, well inside what a Worker gives `waitUntil` and a cron run. */
export const AUDIT_MS = 20_000;
/** The least time left for robots.txt, the sitemap and the https redirect after the home page. */
const AUDIT_FILES_MIN_MS = 5_000;
/** robots.txt is read up to this; the sitemap only far enough to see what it is. */
const ROBOTS_MAX_BYTES = 512 * 1024;
const SITEMAP_START_BYTES = 4096;

export type AuditReason = (typeof scoreRuns.$inferSelect)["reason"];

interface AuditedSite {
  id: string;
  url: string;
  host: string;
}

type AuditOutcome = { ok: true; facts: AuditFacts } | { ok: false; error: string };

/** Reads up to `limit` bytes of a page's start, then lets the rest go. */
async function readStart(page: FetchedPage, limit: number): Promise<string> {
  const reader = page.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
    await page.cancel();
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, limit));
}

/** robots.txt at the home page's origin: present when it answers 200 with text (not a page saying it is missing). */
async function robotsOf(origin: string, options: SafeFetchOptions) {
  const page = await safeFetch(`${origin}/robots.txt`, { ...options, accept: "text/plain,*/*;q=0.5", maxBytes: ROBOTS_MAX_BYTES });
  const missing = { present: false, sitemaps: [] as string[], blocksAll: false };
  if (!page.ok) return missing;
  if (page.status !== 200) {
    await page.cancel();
    return missing;
  }
  const text = await readStart(page, ROBOTS_MAX_BYTES);
  // A robots.txt that is really a web page ("not found" served as 200) is missing.
  if (/^\s*</.test(text) || /html/i.test(page.headers.get("Content-Type") ?? "")) return missing;
  return { present: true, ...readRobots(text) };
}

/** The sitemap robots.txt names first (an http(s) address), else /sitemap.xml at the home page's origin. */
function sitemapAddress(named: string[], origin: string): string {
  for (const address of named) {
    try {
      const url = new URL(address, origin);
      if (url.protocol === "https:" || url.protocol === "http:") return url.href;
    } catch {
      // Not an address: the next one, or the default.
    }
  }
  return `${origin}/sitemap.xml`;
}

async function isSitemap(address: string, options: SafeFetchOptions): Promise<boolean> {
  const page = await safeFetch(address, { ...options, accept: "application/xml,text/xml,*/*;q=0.5" });
  if (!page.ok) return false;
  if (page.status !== 200) {
    await page.cancel();
    return false;
  }
  // A compressed sitemap cannot be looked into cheaply; one that answers 200 counts.
  if (/gzip/i.test(page.headers.get("Content-Type") ?? "") || /\.gz$/i.test(new URL(page.url).pathname)) {
    await page.cancel();
    return true;
  }
  return looksLikeSitemap(await readStart(page, SITEMAP_START_BYTES));
}

/** Whether http://{the host as typed}/ sends visitors to an https address of the same site. */
async function redirectsToHttps(typed: string, host: string, options: SafeFetchOptions): Promise<boolean> {
  const page = await safeFetch(`http://${typed}/`, options);
  if (!page.ok) return false;
  await page.cancel();
  return page.redirects.length > 0 && page.url.startsWith("https://") && isSameSite(page.url, host);
}

/**
 * Delivered links to this site that the last check found live: the marketplace's own verified backlinks, one per page
 * that carries them (a page that delivered several trades counts once, by the page itself where it was read so).
 */
async function verifiedBacklinks(db: Database, siteId: string): Promise<number> {
  const row = await db
    .select({ count: sql<number>`count(DISTINCT coalesce(${offerEntries.pageUrl}, ${offerEntries.contentUrl}))` })
    .from(offerEntries)
    .innerJoin(offers, eq(offers.id, offerEntries.offerId))
    .where(
      and(
        or(eq(offers.senderSiteId, siteId), eq(offers.receiverSiteId, siteId)),
        ne(offerEntries.siteId, siteId),
        eq(offerEntries.linkStatus, "live"),
      ),
    )
    .get();
  return row?.count ?? 0;
}

/**
 * The figures this provider gave in the site's latest done audit (whose facts are always kept), and when it gave them
 * (an audit that kept them passes the first date on): none from another provider, or older than four weeks.
 */
async function lastProviderFigures(
  db: Database,
  siteId: string,
  provider: string,
  now: number,
): Promise<{ domainAuthority: number; backlinks: number | null; ratedAt: number } | null> {
  const row = await db
    .select({ details: scoreRuns.details, finishedAt: scoreRuns.finishedAt })
    .from(scoreRuns)
    .where(and(eq(scoreRuns.siteId, siteId), eq(scoreRuns.status, "done")))
    .orderBy(desc(scoreRuns.startedAt))
    .limit(1)
    .get();
  const facts = row?.details as Partial<AuditFacts> | null | undefined;
  const rated = facts?.domainAuthority;
  if (typeof rated?.value !== "number" || rated.provider !== provider) return null;
  const ratedAt = rated.kept ? rated.ratedAt : row?.finishedAt;
  if (typeof ratedAt !== "number" || ratedAt < now - PROVIDER_FIGURES_KEPT_MS) return null;
  const backlinks = facts?.links?.external;
  return { domainAuthority: rated.value, backlinks: typeof backlinks === "number" ? backlinks : null, ratedAt };
}

/**
 * Everything the audit reads, and what it makes of it; a home page that cannot be read ends the run. The weekly job's
 * audit throws WorkerLimitError when the Worker has used up its own requests (`fromJob`): that says nothing of the site.
 */
async function inspectSite(
  context: AppContext,
  site: AuditedSite,
  progress: (step: AuditStep) => Promise<void>,
  fromJob: boolean,
): Promise<AuditOutcome> {
  const { db, env } = context;
  const options: SafeFetchOptions = { ...safeFetchOptionsFor(env, db), deadline: Date.now() + AUDIT_MS, throwOnWorkerLimit: fromJob };
  // The home page alone first: nothing else of this audit in flight, so its timing is its own.
  const started = Date.now();
  const page = await fetchHomePage(site.url, options);
  if (!page.ok) return { ok: false, error: page.message };
  const firstByteMs = Date.now() - started;
  if (!isSameSite(page.url, site.host)) {
    await page.cancel();
    return { ok: false, error: messages.auditHomeElsewhere };
  }
  if (page.status < 200 || page.status > 299) {
    await page.cancel();
    return { ok: false, error: `Your home page answered ${page.status}.` };
  }
  const scanned = await scanOnPage(page);
  if (!scanned.ok) return { ok: false, error: scanned.message };
  const loadMs = Date.now() - started;
  // The site's other files get a few seconds of their own even after a home page that used up the deadline.
  options.deadline = Math.max(options.deadline ?? 0, Date.now() + AUDIT_FILES_MIN_MS);
  const https = page.url.startsWith("https://");
  // Independent of each other: started together, awaited when needed.
  const rank = lookUpRank(env, site.host);
  const redirect = redirectsToHttps(typedHost(site.url) ?? site.host, site.host, options);
  // Awaited below; a throw before then (the Worker's limit, from robots.txt) must not leave its failure unhandled.
  redirect.catch(() => undefined);

  await progress("files");
  const origin = new URL(page.url).origin;
  const robots = await robotsOf(origin, options);
  const sitemapUrl = sitemapAddress(robots.sitemaps, origin);
  const [sitemap, redirected] = await Promise.all([isSitemap(sitemapUrl, options), redirect]);

  await progress("links");
  const [verified, ranked] = await Promise.all([verifiedBacklinks(db, site.id), rank]);
  // The provider did not answer: its figures of the last audit stand (an outage during a weekly run moved every
  // score for a week, up for the sites it rates low).
  const last = ranked && !ranked.ok ? await lastProviderFigures(db, site.id, ranked.provider, context.now()) : null;
  await progress("score");

  return {
    ok: true,
    facts: {
      home: { url: page.url, status: page.status },
      ssl: { https, redirectsToHttps: https && redirected },
      speed: { firstByteMs, loadMs, bytes: scanned.bytes },
      onPage: scanned.facts,
      technical: { robots: robots.present, robotsBlocksAll: robots.blocksAll, sitemapUrl, sitemap },
      links: { verified, external: ranked?.ok ? ranked.figures.backlinks : last?.backlinks ?? null },
      domainAuthority: ranked
        ? ranked.ok
          ? { value: ranked.figures.domainAuthority, provider: ranked.provider }
          : last
          ? { value: last.domainAuthority, provider: ranked.provider, error: ranked.error, kept: true, ratedAt: last.ratedAt }
          : { value: null, provider: ranked.provider, error: ranked.error }
        : { value: null, provider: null },
    },
  };
}

/**
 * Runs the audit of a run that is started, and stores what it found: the run (done with its score and facts, or
 * failed with why) and, when done, the site's score and attributes. Either way the weekly job comes back later.
 */
async function performAudit(context: AppContext, site: AuditedSite, runId: string, reason: AuditReason): Promise<void> {
  const { db } = context;
  const runWhere = and(eq(scoreRuns.id, runId), eq(scoreRuns.status, "running"));
  const progress = async (step: AuditStep) => {
    // Only someone watching Your Score needs the steps; the weekly job saves the writes.
    if (reason !== "weekly") await db.update(scoreRuns).set({ step }).where(runWhere);
  };
  let outcome: AuditOutcome;
  try {
    outcome = await inspectSite(context, site, progress, reason === "weekly");
  } catch (error) {
    if (error instanceof WorkerLimitError) {
      // The job's invocation ran out of requests, not the site: the run is not kept, and the site's claim runs out
      // (AUDIT_STALE_MS) for a later run to audit it, counting no failure against it.
      console.warn("weekly audit left for a later run", site.id);
      await db.delete(scoreRuns).where(runWhere);
      return;
    }
    console.error("audit failed", site.id, error);
    outcome = { ok: false, error: messages.auditFailed };
  }
  const finishedAt = context.now();
  // Only while this run is the one that finished: one the stale-run sweep closed first changes nothing more (the
  // site's claim runs out and the job audits it again).
  const thisRun = (status: "done" | "failed") =>
    and(eq(sites.id, site.id), sql`EXISTS (SELECT 1 FROM score_runs WHERE id = ${runId} AND status = ${status} AND finished_at = ${finishedAt})`);
  if (!outcome.ok) {
    const failuresBefore = await failuresInARow(db, site.id, runId);
    await db.batch([
      db.update(scoreRuns).set({ status: "failed", step: null, error: outcome.error, finishedAt }).where(runWhere),
      db
        .update(sites)
        .set({ auditDueAt: finishedAt + AUDIT_RETRY_MS[Math.min(failuresBefore, AUDIT_RETRY_MS.length - 1)]! })
        .where(thisRun("failed")),
    ]);
    return;
  }
  const score = authorityScore(outcome.facts);
  await db.batch([
    db
      .update(scoreRuns)
      .set({ status: "done", step: null, score, details: outcome.facts as unknown as Record<string, unknown>, finishedAt })
      .where(runWhere),
    db
      .update(sites)
      .set({ score, scoreRunAt: finishedAt, auditDueAt: finishedAt + AUDIT_INTERVAL_MS, ...attributesOf(outcome.facts) })
      .where(thisRun("done")),
  ]);
}

/** How many of the site's runs before this one failed in a row (up to three): the retry waits longer each time. */
async function failuresInARow(db: Database, siteId: string, runId: string): Promise<number> {
  const previous = await db
    .select({ status: scoreRuns.status })
    .from(scoreRuns)
    // A run whose Worker stopped says nothing about the site: it does not lengthen the wait.
    .where(
      and(
        eq(scoreRuns.siteId, siteId),
        ne(scoreRuns.id, runId),
        ne(scoreRuns.status, "running"),
        or(isNull(scoreRuns.error), ne(scoreRuns.error, messages.auditDidNotFinish)),
      ),
    )
    .orderBy(desc(scoreRuns.startedAt))
    .limit(3)
    .all();
  const firstDone = previous.findIndex((run) => run.status === "done");
  return firstDone === -1 ? previous.length : firstDone;
}

/** Records a running audit and moves the site's weekly turn past it, so the job does not start a second one. */
async function startRun(db: Database, siteId: string, reason: AuditReason, now: number): Promise<string> {
  const id = newId();
  await db.batch([
    db.insert(scoreRuns).values({ id, siteId, reason, status: "running", step: "home", startedAt: now }),
    db
      .update(sites)
      .set({ auditDueAt: now + AUDIT_STALE_MS })
      .where(eq(sites.id, siteId)),
  ]);
  return id;
}

/** After sign-up and add-site: the site is audited once the response has gone, never delaying it. */
export function auditAfterResponse(context: AppContext, userId: string, siteId: string, siteUrl: string, reason: "signup" | "added"): void {
  const host = normaliseHost(siteUrl);
  if (!host) return;
  const site = { id: siteId, url: siteUrl, host };
  context.ctx.waitUntil(
    (async () => {
      // Over the account's budget of site fetches, the site waits: its owner can run the audit from Your Score, and once
      // it is verified the weekly job audits it (it is due at once).
      if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, userId))) return;
      const runId = await startRun(context.db, site.id, reason, context.now());
      await performAudit(context, site, runId, reason);
    })().catch((error) => console.error("audit after response failed", site.id, error)),
  );
}

export type OwnerAuditRequest = { ok: true } | { ok: false; status: 409 | 429; message: string; retryAt?: number };

/**
 * The owner's "Run the audit again" for their site (`OwnedSite`: the caller has checked it is theirs): at most once
 * an hour per site, never while another audit of it runs. The check and the new run are one statement, so two
 * quick clicks start one audit. The audit itself runs after the response; Your Score shows its progress.
 */
export async function requestOwnerAudit(context: AppContext, site: OwnedSite): Promise<OwnerAuditRequest> {
  const { db } = context;
  const now = context.now();
  const siteId = site.id;
  const recent = await db
    .select({ reason: scoreRuns.reason, status: scoreRuns.status, startedAt: scoreRuns.startedAt })
    .from(scoreRuns)
    .where(and(eq(scoreRuns.siteId, siteId), gt(scoreRuns.startedAt, now - OWNER_AUDIT_INTERVAL_MS)))
    .orderBy(desc(scoreRuns.startedAt))
    .all();
  if (recent.some((run) => run.status === "running" && run.startedAt > now - AUDIT_STALE_MS)) {
    return { ok: false, status: 409, message: messages.auditRunning };
  }
  const lastOwnerRun = recent.find((run) => run.reason === "owner");
  if (lastOwnerRun) return { ok: false, status: 429, message: messages.auditOncePerHour, retryAt: lastOwnerRun.startedAt + OWNER_AUDIT_INTERVAL_MS };
  if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, site.userId))) {
    return { ok: false, status: 429, message: messages.tooManySiteFetches };
  }
  const runId = newId();
  const inserted = await db.run(sql`
    INSERT INTO score_runs (id, site_id, reason, status, step, started_at)
    SELECT ${runId}, ${siteId}, 'owner', 'running', 'home', ${now}
    WHERE NOT EXISTS (
      SELECT 1 FROM score_runs WHERE site_id = ${siteId} AND started_at > ${now - OWNER_AUDIT_INTERVAL_MS}
        AND (reason = 'owner' OR (status = 'running' AND started_at > ${now - AUDIT_STALE_MS}))
    )`);
  if (!inserted.meta.changes) return { ok: false, status: 409, message: messages.auditRunning };
  await db
    .update(sites)
    .set({ auditDueAt: now + AUDIT_STALE_MS })
    .where(eq(sites.id, siteId));
  context.ctx.waitUntil(performAudit(context, site, runId, "owner").catch((error) => console.error("owner audit failed", siteId, error)));
  return { ok: true };
}

/** Sites audited per run of the audits' five-minute job: 40 (about 1 s of CPU) cover every site weekly up to about 80,000 sites (AUDITS_PER_RUN). */
export function auditsPerRun(context: AppContext): number {
  return Math.max(0, Math.floor(numberVar(context.env.AUDITS_PER_RUN, 40)));
}

/**
 * Audits run at once by the job. A Worker keeps six connections open and queues the rest; an audit has up to three
 * open (its robots file, its sitemap and its https redirect; its rank), so two at once never queue, and no site's
 * home page timing (its Speed) waits on another site's files.
 */
const AUDITS_AT_ONCE = 2;

/**
 * The scheduled audits: closes runs whose Worker stopped before they ended, then claims the verified sites whose turn
 * has come (oldest first, in one statement, so overlapping runs never take the same site) and audits them, two at a
 * time. Returns how many it audited.
 */
export async function auditDueSites(context: AppContext, limit = auditsPerRun(context)): Promise<number> {
  const { db } = context;
  const now = context.now();
  await db
    .update(scoreRuns)
    .set({ status: "failed", step: null, error: messages.auditDidNotFinish, finishedAt: now })
    .where(and(eq(scoreRuns.status, "running"), lte(scoreRuns.startedAt, now - AUDIT_STALE_MS)));
  if (limit === 0) return 0;
  // A site with an audit running (its owner's, started as its turn came) is left to it: two audits at once would fetch
  // the site twice, and the one that ended last would set the score.
  const running = db
    .select({ one: sql`1` })
    .from(scoreRuns)
    .where(and(eq(scoreRuns.siteId, sites.id), eq(scoreRuns.status, "running"), gt(scoreRuns.startedAt, now - AUDIT_STALE_MS)));
  const due = db
    .select({ id: sites.id })
    .from(sites)
    // Verified sites only (in the index's own words, so the partial index serves it): an unverified site is shown to
    // no one but its owner, who can run its audit, and free sign-ups must not fill the job's turns and the rank
    // provider's quota.
    .where(and(sql`${sites.verified} = 1`, lte(sites.auditDueAt, now), notExists(running)))
    .orderBy(asc(sites.auditDueAt))
    .limit(limit);
  const claimed = await db
    .update(sites)
    .set({ auditDueAt: now + AUDIT_STALE_MS })
    .where(inArray(sites.id, due))
    .returning({ id: sites.id, url: sites.url, host: sites.host });
  if (claimed.length === 0) return 0;
  const runs = claimed.map((site) => ({ site, runId: newId() }));
  // One insert per run: a single multi-row insert would pass D1's limit of 100 bound values from 20 sites up.
  const [first, ...rest] = runs.map(({ site, runId }) =>
    db.insert(scoreRuns).values({ id: runId, siteId: site.id, reason: "weekly", status: "running", startedAt: now }),
  );
  await db.batch([first!, ...rest]);
  // One audit that cannot be stored does not stop the others (its run is closed by the stale-run sweep).
  await forEachConcurrently(runs, AUDITS_AT_ONCE, ({ site, runId }) =>
    performAudit(context, site, runId, "weekly").catch((error) => console.error("weekly audit failed", site.id, error)),
  );
  return runs.length;
}

/**
 * A site's latest runs, newest first: one running now, the last failure, the owner's hourly turn (the chart reads
 * `scoreHistoryQuery`). A query to batch.
 */
export function scoreRunsQuery(db: Database, siteId: string | SQL, limit: number | Placeholder = 60) {
  return db
    .select({ status: scoreRuns.status, reason: scoreRuns.reason, step: scoreRuns.step, error: scoreRuns.error, startedAt: scoreRuns.startedAt })
    .from(scoreRuns)
    .where(eq(scoreRuns.siteId, siteId))
    .orderBy(desc(scoreRuns.startedAt))
    .limit(limit);
}

/**
 * The done runs, newest first, with the facts only of the newest (the chart needs the scores alone; SQLite reads a
 * row's facts only for the run the CASE picks). A query to batch.
 */
export function scoreHistoryQuery(db: Database, siteId: string | SQL, limit: number | Placeholder = 60) {
  const done = and(eq(scoreRuns.siteId, siteId), eq(scoreRuns.status, "done"));
  // The same order in both, ties on the id: the first row is the one whose facts are read.
  const order = [desc(scoreRuns.startedAt), desc(scoreRuns.id)];
  const newest = db
    .select({ id: scoreRuns.id })
    .from(scoreRuns)
    .where(done)
    .orderBy(...order)
    .limit(1);
  return db
    .select({
      score: scoreRuns.score,
      startedAt: scoreRuns.startedAt,
      finishedAt: scoreRuns.finishedAt,
      details: sql<unknown>`CASE WHEN ${scoreRuns.id} = (${newest}) THEN ${scoreRuns.details} END`.mapWith(scoreRuns.details).as("details"),
    })
    .from(scoreRuns)
    .where(done)
    .orderBy(...order)
    .limit(limit);
}

/** `scoreRunsQuery` and `scoreHistoryQuery` of the active site built once, for `requireAuthWith`'s viewers (Your Score). */
const scorePageShape = viewerShapes(
  (db, { siteId }) => [scoreRunsQuery(db, siteId, valueOf("runs")), scoreHistoryQuery(db, siteId, valueOf("history"))] as const,
);

/** The latest `runs` runs and `history` done runs of the viewer's active site (one of `requireAuthWith`'s viewers). */
export function scorePageStatements(db: Database, viewer: Viewer, runs: number, history: number) {
  return scorePageShape(db, viewer, { runs, history });
}

/** Runs whose facts one statement of the daily job drops, and the statements it may use in a day. */
const FACTS_DROPPED_PER_STATEMENT = 5_000;
const FACT_DROPS_PER_DAY = 20;

/**
 * The daily job: every run is kept, but the facts of a done run are needed only while it is its site's latest; a
 * fortnight after a newer one, they are dropped, through the index of runs that still have them: 5,000 at a time, again
 * while a statement found as many (a weekly audit of N verified sites makes N/7 more a day; one statement a day fell
 * behind past 35,000 sites), up to 100,000 a day.
 */
export async function dropOldAuditFacts(db: Database, now: number): Promise<void> {
  for (let statement = 0; statement < FACT_DROPS_PER_DAY; statement += 1) {
    const result = await db.run(sql`
      UPDATE score_runs SET details = NULL WHERE id IN (
        SELECT r.id FROM score_runs r INDEXED BY score_runs_details_idx
        WHERE r.status = 'done' AND r.details IS NOT NULL AND r.finished_at < ${now - 14 * 24 * 60 * 60_000}
          AND EXISTS (SELECT 1 FROM score_runs n WHERE n.site_id = r.site_id AND n.status = 'done' AND n.started_at > r.started_at)
        LIMIT ${FACTS_DROPPED_PER_STATEMENT})`);
    if ((result.meta?.changes ?? 0) < FACTS_DROPPED_PER_STATEMENT) return;
  }
}
