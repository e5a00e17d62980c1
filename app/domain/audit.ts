/**
 * The site audit's rules: from what an audit saw to the six Your Score attributes and the authority
 * score. Pure, so the page, the tests and the service agree on every number. See docs/decisions/0011-authority-score-audit.md.
 *
 * The score is a weighted sum of the parts that could be measured, as a share of their weights, rounded up:
 *
 *   Domain authority 30 · On-page SEO 20 · Technical SEO 15 · Backlinks 15 · Speed 10 · SSL 10
 *
 * Domain authority counts only when a rank provider is configured and answered; every other part is measured
 * whenever the home page could be read.
 */

export const SCORE_WEIGHTS = { domainAuthority: 30, onPageSeo: 20, technicalSeo: 15, links: 15, speed: 10, ssl: 10 } as const;

export type ScorePart = keyof typeof SCORE_WEIGHTS;

/** What the on-page checks read from a home page. */
export interface OnPageFacts {
  title: string | null;
  description: boolean;
  h1Count: number;
  lang: boolean;
  viewport: boolean;
  images: number;
  imagesWithAlt: number;
  canonical: boolean;
}

/** What one audit saw. Stored with the run (score_runs.details) so Your Score can explain every card. */
export interface AuditFacts {
  /** The home page as read: the address it ended on and the status it answered. */
  home: { url: string; status: number };
  ssl: {
    /** The home page answered over https. */
    https: boolean;
    /** http://host/ redirects to an https address of the site. */
    redirectsToHttps: boolean;
    /** Why https did not answer, when it did not. */
    error?: string;
  };
  speed: { firstByteMs: number; loadMs: number; bytes: number };
  onPage: OnPageFacts;
  technical: {
    /** robots.txt answered 200, and whether it shuts every crawler out of the whole site. */
    robots: boolean;
    robotsBlocksAll: boolean;
    /** The sitemap read (named in robots.txt, else /sitemap.xml) and whether it is one. */
    sitemapUrl: string;
    sitemap: boolean;
  };
  links: {
    /** Delivered links to this site that the marketplace checked and found live. */
    verified: number;
    /** The rank provider's backlink figure, when it gives one. */
    external: number | null;
  };
  domainAuthority: {
    /** 0 to 100, or null without a provider (or when it did not answer, with no figure from an earlier audit). */
    value: number | null;
    provider: string | null;
    error?: string;
    /**
     * The provider did not answer this time (`error`): `value`, and `links.external`, are its figures of the site's
     * last audit (docs/decisions/0011-authority-score-audit.md, "Later"), which it gave at `ratedAt` (epoch ms).
     */
    kept?: boolean;
    ratedAt?: number;
  };
}

/** How long the rank provider's figures stand in for it while it does not answer: four weekly audits. */
export const PROVIDER_FIGURES_KEPT_MS = 28 * 24 * 60 * 60_000;

/** The six Your Score attributes as stored on the site. */
export interface ScoreAttributeValues {
  domainAuthority: number | null;
  onPageSeo: number | null;
  technicalSeo: number | null;
  links: number | null;
  speed: number | null;
  ssl: number | null;
}

/** The six attributes of a site row (which carries more). */
export function storedAttributes(site: ScoreAttributeValues): ScoreAttributeValues {
  const { domainAuthority, onPageSeo, technicalSeo, links, speed, ssl } = site;
  return { domainAuthority, onPageSeo, technicalSeo, links, speed, ssl };
}

/** The three technical checks: robots.txt that lets crawlers in, a sitemap, the redirect from http to https. */
export function technicalChecksPassed(facts: AuditFacts): number {
  const { technical, ssl } = facts;
  return [technical.robots && !technical.robotsBlocksAll, technical.sitemap, ssl.redirectsToHttps].filter(Boolean).length;
}

/** Technical SEO as the spec grades it: 10 (A+) all three checks, 20 (B) two, 30 (C) one or none. */
export function technicalSeoValue(facts: AuditFacts): number {
  const passed = technicalChecksPassed(facts);
  return passed === 3 ? 10 : passed === 2 ? 20 : 30;
}

export const ON_PAGE_POINTS = { title: 10, description: 10, h1: 10, lang: 10, viewport: 10, imageAlts: 10, canonical: 10 } as const;

/** On-page SEO in points out of 70: 10 for each of the seven checks; image alt texts by their share. */
export function onPagePoints(onPage: OnPageFacts): number {
  const altShare = onPage.images === 0 ? 1 : onPage.imagesWithAlt / onPage.images;
  return (
    (onPage.title ? ON_PAGE_POINTS.title : 0) +
    (onPage.description ? ON_PAGE_POINTS.description : 0) +
    (onPage.h1Count === 1 ? ON_PAGE_POINTS.h1 : 0) +
    (onPage.lang ? ON_PAGE_POINTS.lang : 0) +
    (onPage.viewport ? ON_PAGE_POINTS.viewport : 0) +
    Math.floor(ON_PAGE_POINTS.imageAlts * altShare) +
    (onPage.canonical ? ON_PAGE_POINTS.canonical : 0)
  );
}

/** Full marks up to `good` ms, none from `poor` ms, in a straight line between. */
function timeShare(ms: number, good: number, poor: number): number {
  if (ms <= good) return 1;
  if (ms >= poor) return 0;
  return (poor - ms) / (poor - good);
}

export const SPEED_LIMITS = { firstByte: { good: 200, poor: 1800 }, load: { good: 1000, poor: 6000 } } as const;

/** Speed in percent: half for the time to the first byte, half for the time to the whole page. */
export function speedPercent(speed: AuditFacts["speed"]): number {
  const firstByte = timeShare(speed.firstByteMs, SPEED_LIMITS.firstByte.good, SPEED_LIMITS.firstByte.poor);
  const load = timeShare(speed.loadMs, SPEED_LIMITS.load.good, SPEED_LIMITS.load.poor);
  return Math.round(50 * firstByte + 50 * load);
}

/** SSL as the spec grades it: 10 (A+) https answers and http moves to it; 20 (B) https answers; null: no https. */
export function sslValue(ssl: AuditFacts["ssl"]): number | null {
  if (!ssl.https) return null;
  return ssl.redirectsToHttps ? 10 : 20;
}

export function totalBacklinks(links: AuditFacts["links"]): number {
  return links.verified + (links.external ?? 0);
}

/** Backlinks on a log scale: 1,000 or more is full marks, one link already counts. */
export function backlinkShare(total: number): number {
  return Math.min(1, Math.log10(1 + Math.max(0, total)) / 3);
}

export function attributesOf(facts: AuditFacts): ScoreAttributeValues {
  return {
    domainAuthority: facts.domainAuthority.value,
    onPageSeo: onPagePoints(facts.onPage),
    technicalSeo: technicalSeoValue(facts),
    links: totalBacklinks(facts.links),
    speed: speedPercent(facts.speed),
    ssl: sslValue(facts.ssl),
  };
}

/** Each measured part as a share from 0 to 1; domain authority is absent when it was not measured. */
export function partShares(facts: AuditFacts): Partial<Record<ScorePart, number>> {
  const shares: Partial<Record<ScorePart, number>> = {
    onPageSeo: onPagePoints(facts.onPage) / 70,
    technicalSeo: technicalChecksPassed(facts) / 3,
    links: backlinkShare(totalBacklinks(facts.links)),
    speed: speedPercent(facts.speed) / 100,
    ssl: facts.ssl.https ? (facts.ssl.redirectsToHttps ? 1 : 0.5) : 0,
  };
  if (facts.domainAuthority.value !== null) shares.domainAuthority = Math.min(100, Math.max(0, facts.domainAuthority.value)) / 100;
  return shares;
}

/** The authority score: the weighted sum of the measured parts over their weights, in percent, rounded up. */
export function authorityScore(facts: AuditFacts): number {
  let earned = 0;
  let possible = 0;
  for (const [part, share] of Object.entries(partShares(facts)) as [ScorePart, number][]) {
    earned += SCORE_WEIGHTS[part] * share;
    possible += SCORE_WEIGHTS[part];
  }
  // A tiny epsilon keeps 64.00000000001 (floating point) from rounding up to 65.
  return possible === 0 ? 0 : Math.ceil((100 * earned) / possible - 1e-9);
}

/** What robots.txt says that the audit needs: the sitemaps it names, and whether it shuts everyone out. */
export function readRobots(text: string): { sitemaps: string[]; blocksAll: boolean } {
  const sitemaps: string[] = [];
  let blocksAll = false;
  let agents: string[] = [];
  let inRules = false;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/#.*$/, "").trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const field = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (field === "sitemap") {
      if (value) sitemaps.push(value);
    } else if (field === "user-agent") {
      // A user-agent line after rules starts a new group.
      if (inRules) agents = [];
      inRules = false;
      agents.push(value.toLowerCase());
    } else if (field === "disallow" || field === "allow") {
      inRules = true;
      if (field === "disallow" && value === "/" && agents.includes("*")) blocksAll = true;
    }
  }
  return { sitemaps, blocksAll };
}

/** Whether the start of a document is a sitemap: an XML urlset or sitemap index. */
export function looksLikeSitemap(start: string): boolean {
  return /<(?:[\w-]+:)?(?:urlset|sitemapindex)[\s>]/i.test(start);
}

/**
 * An audit still running after this did not finish (its Worker was stopped); it is shown and kept as failed. Long
 * enough for the last audit of a five-minute run's batch, whose run row is written when the batch is claimed.
 */
export const AUDIT_STALE_MS = 15 * 60_000;
/** The owner may run the audit once an hour per site. */
export const OWNER_AUDIT_INTERVAL_MS = 60 * 60_000;
/**
 * The scheduled job audits every site weekly. A run that could not read the site is tried again a day later, then
 * three days later, then weekly, so sites that are gone do not crowd out the rest.
 */
export const AUDIT_INTERVAL_MS = 7 * 24 * 60 * 60_000;
export const AUDIT_RETRY_MS = [24 * 60 * 60_000, 3 * 24 * 60 * 60_000, AUDIT_INTERVAL_MS] as const;

export const AUDIT_STEPS = ["home", "files", "links", "score"] as const;
export type AuditStep = (typeof AUDIT_STEPS)[number];

export const AUDIT_STEP_LABELS: Record<AuditStep, string> = {
  home: "Reading your home page…",
  files: "Checking robots.txt, the sitemap and the redirect to https…",
  links: "Counting your backlinks…",
  score: "Working out your score…",
};

export const SCORE_PART_LABELS: Record<ScorePart, string> = {
  domainAuthority: "Domain authority",
  onPageSeo: "On-page SEO",
  technicalSeo: "Technical SEO",
  links: "Backlinks",
  speed: "Speed",
  ssl: "SSL",
};

export interface BreakdownRow {
  part: ScorePart;
  label: string;
  weight: number;
  /** Points earned out of the weight, one decimal; null when the part was not measured (left out). */
  points: number | null;
}

/** The score's sum as Your Score explains it: each part's points out of its weight, and what they add up to. */
export interface ScoreBreakdown {
  rows: BreakdownRow[];
  earned: number;
  possible: number;
  score: number;
}

export function scoreBreakdown(facts: AuditFacts): ScoreBreakdown {
  const shares = partShares(facts);
  const rows = (Object.keys(SCORE_WEIGHTS) as ScorePart[]).map((part) => {
    const share = shares[part];
    return {
      part,
      label: SCORE_PART_LABELS[part],
      weight: SCORE_WEIGHTS[part],
      points: share === undefined ? null : Math.round(SCORE_WEIGHTS[part] * share * 10) / 10,
    };
  });
  const measured = rows.filter((row) => row.points !== null);
  return {
    rows,
    earned: Math.round(measured.reduce((sum, row) => sum + SCORE_WEIGHTS[row.part] * shares[row.part]!, 0) * 10) / 10,
    possible: measured.reduce((sum, row) => sum + row.weight, 0),
    score: authorityScore(facts),
  };
}
