/** The six cards of the Your Score page and their formatting rules (percentages, letter grades, N/A when missing). */
import { onPagePoints, SPEED_LIMITS, technicalChecksPassed, type AuditFacts, type OnPageFacts, type ScoreAttributeValues } from "./audit";

export type ScoreAttributes = ScoreAttributeValues;

export interface ScoreCard {
  id: keyof ScoreAttributes;
  title: string;
  value: string;
  /** What the card measures and how much it weighs. */
  explanation: string;
  /** What the last audit found; null before any audit. */
  found: string | null;
  /** What would raise it; null when it is already at full marks. */
  raise: string | null;
}

const NA = "N/A";
const present = (value: number | null | undefined): value is number => value !== null && value !== undefined;

export function formatDomainAuthority(value: number | null) {
  return present(value) ? `${value}%` : NA;
}

/** On-page SEO is measured in points out of 70 and shown as a percentage, rounded up. */
export function formatOnPageSeo(value: number | null) {
  return present(value) ? `${Math.ceil((value / 70) * 100)}%` : NA;
}

export function formatTechnicalSeo(value: number | null) {
  return value === 10 ? "A+" : value === 20 ? "B" : value === 30 ? "C" : NA;
}

/** Backlinks are N/A only when unknown; zero is a count. */
export function formatLinks(value: number | null) {
  return value === null ? NA : String(value);
}

export function formatSpeed(value: number | null) {
  return present(value) ? `${value}%` : NA;
}

export function formatSsl(value: number | null) {
  return value === 10 ? "A+" : present(value) ? "B" : NA;
}

/** A card: its value as the spec formats it, what it measures, what the last audit found, and what would raise it. */
export function scoreCards(attributes: ScoreAttributes, facts: AuditFacts | null = null): ScoreCard[] {
  return [
    {
      id: "domainAuthority",
      title: "Domain Authority",
      value: formatDomainAuthority(attributes.domainAuthority),
      explanation: "How strong your domain is, from a rank provider. Weighs 30 of 100 when there is one.",
      found: facts ? domainAuthorityFound(facts) : null,
      raise: "Links from well-known sites raise it over time.",
    },
    {
      id: "onPageSeo",
      title: "On-page SEO",
      value: formatOnPageSeo(attributes.onPageSeo),
      explanation:
        "Seven checks of your home page, 10 points each out of 70: title, meta description, one h1, language, viewport, image alt texts, canonical link. Weighs 20.",
      found: facts ? onPageFound(facts.onPage) : null,
      raise: facts ? onPageRaise(facts.onPage) : null,
    },
    {
      id: "technicalSeo",
      title: "Technical SEO",
      value: formatTechnicalSeo(attributes.technicalSeo),
      explanation:
        "robots.txt that lets crawlers in, a sitemap, and a redirect from http to https: A+ for all three, B for two, C for fewer. Weighs 15.",
      found: facts ? technicalFound(facts) : null,
      raise: facts ? technicalRaise(facts) : null,
    },
    {
      id: "links",
      title: "Total Backlinks",
      value: formatLinks(attributes.links),
      explanation:
        "Live backlinks to your site that the marketplace has checked, plus the rank provider's count when there is one. Weighs 15; 1,000 links is full marks.",
      found: facts ? linksFound(facts.links) : null,
      raise: "Each completed trade adds a checked link once its page is live.",
    },
    {
      id: "speed",
      title: "Speed",
      value: formatSpeed(attributes.speed),
      explanation: `Half for the first byte of your home page (full marks up to ${SPEED_LIMITS.firstByte.good} ms), half for the whole page (up to ${
        SPEED_LIMITS.load.good / 1000
      } s). Weighs 10.`,
      found: facts
        ? `First byte after ${facts.speed.firstByteMs} ms, whole page (${kilobytes(facts.speed.bytes)}) after ${facts.speed.loadMs} ms.`
        : null,
      raise: attributes.speed !== null && attributes.speed >= 100 ? null : "A cache or CDN in front of your site, and a lighter home page.",
    },
    {
      id: "ssl",
      title: "SSL",
      value: formatSsl(attributes.ssl),
      explanation: "Whether your site answers securely over https (B), and sends http visitors there (A+). Weighs 10.",
      found: facts ? sslFound(facts.ssl) : null,
      raise: facts ? sslRaise(facts.ssl) : null,
    },
  ];
}

function kilobytes(bytes: number): string {
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

function listOf(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

function domainAuthorityFound(facts: AuditFacts): string {
  const { value, provider, error, kept } = facts.domainAuthority;
  if (value !== null && kept) {
    return `${provider} did not answer${error ? ` (${error})` : ""}; the score keeps its rating from your last audit, ${value} of 100.`;
  }
  if (value !== null) return `${provider ?? "The rank provider"} rates your domain ${value} of 100.`;
  if (provider && !error) return `${provider} has no rating for your domain yet; the score leaves this part out.`;
  if (provider) return `${provider} did not answer (${error}); the score leaves this part out.`;
  return "No rank provider is configured, so the score leaves this part out.";
}

function onPageMissing(onPage: OnPageFacts): string[] {
  const missing: string[] = [];
  if (!onPage.title) missing.push("a title");
  if (!onPage.description) missing.push("a meta description");
  if (onPage.h1Count !== 1) missing.push(onPage.h1Count === 0 ? "an h1 heading" : `one h1 instead of ${onPage.h1Count}`);
  if (!onPage.lang) missing.push("a lang attribute on <html>");
  if (!onPage.viewport) missing.push("a viewport meta tag");
  if (onPage.imagesWithAlt < onPage.images) missing.push(`alt text on ${onPage.images - onPage.imagesWithAlt} of ${onPage.images} images`);
  if (!onPage.canonical) missing.push("a canonical link");
  return missing;
}

function onPageFound(onPage: OnPageFacts): string {
  return `${onPagePoints(onPage)} of 70 points.${onPage.title ? ` Title: “${onPage.title}”.` : ""}`;
}

function onPageRaise(onPage: OnPageFacts): string | null {
  const missing = onPageMissing(onPage);
  return missing.length ? `Add ${listOf(missing)}.` : null;
}

function technicalFound(facts: AuditFacts): string {
  const { technical, ssl } = facts;
  const robots = !technical.robots ? "no robots.txt" : technical.robotsBlocksAll ? "a robots.txt that blocks every crawler" : "a robots.txt";
  const sitemap = technical.sitemap ? `a sitemap at ${technical.sitemapUrl}` : `no sitemap at ${technical.sitemapUrl}`;
  const redirect = ssl.redirectsToHttps ? "http redirects to https" : "http does not redirect to https";
  return `${technicalChecksPassed(facts)} of 3: ${robots}, ${sitemap}, ${redirect}.`;
}

function technicalRaise(facts: AuditFacts): string | null {
  const { technical, ssl } = facts;
  const steps: string[] = [];
  if (!technical.robots) steps.push("publish a robots.txt");
  else if (technical.robotsBlocksAll) steps.push("let crawlers in (robots.txt disallows /)");
  if (!technical.sitemap) steps.push("publish a sitemap and name it in robots.txt");
  if (!ssl.redirectsToHttps) steps.push("redirect http to https");
  if (!steps.length) return null;
  const sentence = listOf(steps);
  return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
}

function linksFound(links: AuditFacts["links"]): string {
  const verified = `${links.verified} live ${links.verified === 1 ? "link" : "links"} checked by the marketplace`;
  return links.external === null ? `${verified}.` : `${verified}, and ${links.external} counted by the rank provider.`;
}

function sslFound(ssl: AuditFacts["ssl"]): string {
  if (!ssl.https) return `Your site did not answer over https${ssl.error ? `: ${ssl.error}` : "."}`;
  return ssl.redirectsToHttps ? "https answers, and http visitors are sent there." : "https answers, but http visitors are not sent there.";
}

function sslRaise(ssl: AuditFacts["ssl"]): string | null {
  if (!ssl.https) return "Install a certificate (most hosts and CDNs give one free).";
  return ssl.redirectsToHttps ? null : "Redirect http to https.";
}
