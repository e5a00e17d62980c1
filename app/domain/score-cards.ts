/** The six cards of the Your Score page and their formatting rules (spec 9). */
export interface ScoreAttributes {
  domainAuthority: number | null;
  onPageSeo: number | null;
  technicalSeo: number | null;
  links: number | null;
  speed: number | null;
  ssl: number | null;
}

export interface ScoreCard {
  id: keyof ScoreAttributes;
  title: string;
  value: string;
  explanation: string;
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

export function scoreCards(attributes: ScoreAttributes): ScoreCard[] {
  return [
    { id: "domainAuthority", title: "Domain Authority", value: formatDomainAuthority(attributes.domainAuthority), explanation: "How strong your domain is, from a rank provider when one is configured." },
    { id: "onPageSeo", title: "On-page SEO", value: formatOnPageSeo(attributes.onPageSeo), explanation: "Title, meta description, one h1, language, viewport, image alt texts and canonical link." },
    { id: "technicalSeo", title: "Technical SEO", value: formatTechnicalSeo(attributes.technicalSeo), explanation: "robots.txt, sitemap and the redirect from http to https." },
    { id: "links", title: "Total Backlinks", value: formatLinks(attributes.links), explanation: "Live backlinks to your site that the marketplace has verified." },
    { id: "speed", title: "Speed", value: formatSpeed(attributes.speed), explanation: "How quickly your home page loads." },
    { id: "ssl", title: "SSL", value: formatSsl(attributes.ssl), explanation: "Whether your site answers securely over https." },
  ];
}
