import { describe, expect, it } from "vitest";
import {
  attributesOf,
  authorityScore,
  backlinkShare,
  looksLikeSitemap,
  onPagePoints,
  readRobots,
  scoreBreakdown,
  speedPercent,
  sslValue,
  technicalSeoValue,
  type AuditFacts,
} from "~/domain/audit";
import { scoreCards } from "~/domain/score-cards";

/** A site that does everything right, answering in 100 ms; each test spoils one thing. */
function perfect(): AuditFacts {
  return {
    home: { url: "https://garden.example/", status: 200 },
    ssl: { https: true, redirectsToHttps: true },
    speed: { firstByteMs: 100, loadMs: 400, bytes: 40_000 },
    onPage: { title: "Balcony gardens", description: true, h1Count: 1, lang: true, viewport: true, images: 4, imagesWithAlt: 4, canonical: true },
    technical: { robots: true, robotsBlocksAll: false, sitemapUrl: "https://garden.example/sitemap.xml", sitemap: true },
    links: { verified: 999, external: null },
    domainAuthority: { value: null, provider: null },
  };
}

describe("the audit's attributes", () => {
  it("gives on-page SEO 10 points for each of seven checks, image alt texts by their share", () => {
    expect(onPagePoints(perfect().onPage)).toBe(70);
    expect(onPagePoints({ ...perfect().onPage, title: null, description: false })).toBe(50);
    expect(onPagePoints({ ...perfect().onPage, h1Count: 2 })).toBe(60);
    expect(onPagePoints({ ...perfect().onPage, h1Count: 0, lang: false, viewport: false, canonical: false })).toBe(30);
    expect(onPagePoints({ ...perfect().onPage, images: 4, imagesWithAlt: 1 })).toBe(62);
    expect(onPagePoints({ ...perfect().onPage, images: 0, imagesWithAlt: 0 })).toBe(70);
  });

  it("grades technical SEO 10, 20 or 30 by the checks passed (robots that block everyone fail)", () => {
    expect(technicalSeoValue(perfect())).toBe(10);
    expect(technicalSeoValue({ ...perfect(), technical: { ...perfect().technical, sitemap: false } })).toBe(20);
    expect(technicalSeoValue({ ...perfect(), technical: { ...perfect().technical, robotsBlocksAll: true, sitemap: false } })).toBe(30);
    expect(
      technicalSeoValue({
        ...perfect(),
        ssl: { https: true, redirectsToHttps: false },
        technical: { ...perfect().technical, robots: false, sitemap: false },
      }),
    ).toBe(30);
  });

  it("measures speed by the first byte and the whole page, full marks when fast, none when slow", () => {
    expect(speedPercent({ firstByteMs: 100, loadMs: 900, bytes: 1 })).toBe(100);
    expect(speedPercent({ firstByteMs: 1000, loadMs: 900, bytes: 1 })).toBe(75);
    expect(speedPercent({ firstByteMs: 1800, loadMs: 3500, bytes: 1 })).toBe(25);
    expect(speedPercent({ firstByteMs: 5000, loadMs: 9000, bytes: 1 })).toBe(0);
  });

  it("grades SSL A+ when http moves to https, B when https only answers, nothing without https", () => {
    expect(sslValue({ https: true, redirectsToHttps: true })).toBe(10);
    expect(sslValue({ https: true, redirectsToHttps: false })).toBe(20);
    expect(sslValue({ https: false, redirectsToHttps: false })).toBeNull();
  });

  it("counts backlinks on a log scale and adds the provider's figure", () => {
    expect(backlinkShare(0)).toBe(0);
    expect(backlinkShare(999)).toBe(1);
    expect(backlinkShare(9)).toBeCloseTo(1 / 3);
    expect(attributesOf({ ...perfect(), links: { verified: 3, external: 120 } }).links).toBe(123);
  });
});

describe("the authority score", () => {
  it("is 100 for a perfect site, with domain authority left out when there is no provider", () => {
    expect(authorityScore(perfect())).toBe(100);
  });

  it("weighs the measured parts and rounds up", () => {
    // Without a provider the weights are 20 + 15 + 15 + 10 + 10 = 70. No backlinks (0 of 15), no sitemap
    // (10 of 15): 70 - 15 - 5 = 50 of 70 = 71.43 -> 72.
    const facts = { ...perfect(), links: { verified: 0, external: null }, technical: { ...perfect().technical, sitemap: false } };
    expect(authorityScore(facts)).toBe(72);
    const breakdown = scoreBreakdown(facts);
    expect(breakdown.possible).toBe(70);
    expect(breakdown.earned).toBe(50);
    expect(breakdown.rows.find((row) => row.part === "domainAuthority")?.points).toBeNull();
    expect(breakdown.rows.find((row) => row.part === "technicalSeo")?.points).toBe(10);
  });

  it("counts domain authority with weight 30 when the provider gives it", () => {
    // 70 of 70 from the rest, plus 30 * 0.2 = 6: 76 of 100.
    expect(authorityScore({ ...perfect(), domainAuthority: { value: 20, provider: "Open PageRank" } })).toBe(76);
  });

  it("gives nothing for SSL without https, and half with https but no redirect", () => {
    const noHttps = { ...perfect(), ssl: { https: false, redirectsToHttps: false } };
    // SSL 0 of 10, and the redirect check of technical SEO fails too (10 of 15): 55 of 70 = 78.57 -> 79.
    expect(authorityScore(noHttps)).toBe(79);
    expect(authorityScore({ ...perfect(), ssl: { https: true, redirectsToHttps: false } })).toBe(86); // 60 of 70 = 85.71
  });
});

describe("robots.txt and sitemaps", () => {
  it("finds the sitemaps named and a rule that shuts every crawler out", () => {
    const robots = readRobots(
      "User-agent: *\nDisallow: /private\n\nSitemap: https://garden.example/map.xml # main\nsitemap:https://garden.example/b.xml\n",
    );
    expect(robots).toEqual({ sitemaps: ["https://garden.example/map.xml", "https://garden.example/b.xml"], blocksAll: false });
    expect(readRobots("User-agent: *\r\nDisallow: /\r\n").blocksAll).toBe(true);
    // A rule for one crawler only does not shut everyone out.
    expect(readRobots("User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n").blocksAll).toBe(false);
    expect(readRobots("User-agent: BadBot\nUser-agent: *\nDisallow: /\n").blocksAll).toBe(true);
  });

  it("knows a sitemap by its root element", () => {
    expect(looksLikeSitemap('<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')).toBe(true);
    expect(looksLikeSitemap("<sitemapindex>")).toBe(true);
    expect(looksLikeSitemap("<!doctype html><html><body>Not found</body></html>")).toBe(false);
  });
});

describe("the Your Score cards", () => {
  it("say what the audit found and what would raise each card", () => {
    const facts = {
      ...perfect(),
      onPage: { ...perfect().onPage, description: false, images: 5, imagesWithAlt: 3 },
      technical: { ...perfect().technical, sitemap: false, sitemapUrl: "https://garden.example/sitemap.xml" },
      ssl: { https: true, redirectsToHttps: false },
      links: { verified: 2, external: null },
    };
    const cards = Object.fromEntries(scoreCards(attributesOf(facts), facts).map((card) => [card.id, card]));
    expect(cards.onPageSeo?.value).toBe("80%"); // 70 - 10 (description) - 4 (3 of 5 alts: 6 of 10) = 56 of 70
    expect(cards.onPageSeo?.raise).toBe("Add a meta description and alt text on 2 of 5 images.");
    expect(cards.technicalSeo?.value).toBe("C");
    expect(cards.technicalSeo?.found).toBe(
      "1 of 3: a robots.txt, no sitemap at https://garden.example/sitemap.xml, http does not redirect to https.",
    );
    expect(cards.technicalSeo?.raise).toBe("Publish a sitemap and name it in robots.txt and redirect http to https.");
    expect(cards.ssl?.value).toBe("B");
    expect(cards.ssl?.raise).toBe("Redirect http to https.");
    expect(cards.links?.found).toBe("2 live links checked by the marketplace.");
    expect(cards.domainAuthority?.value).toBe("N/A");
    expect(cards.domainAuthority?.found).toBe("No rank provider is configured, so the score leaves this part out.");
    expect(cards.speed?.raise).toBeNull();
  });
});
