import { describe, expect, it } from "vitest";
import { formatMessageTime, formatRunDate, formatShortDate, partsIn, zoneOffsets } from "~/domain/dates";
import { clockOffsets, isTimeZone, sameOffsets, timeZoneOrDefault } from "~/domain/time-zones";
import { countOffers } from "~/domain/offer-status";
import { authorityBand, displayScore } from "~/domain/score";
import { formatDomainAuthority, formatLinks, formatOnPageSeo, formatSpeed, formatSsl, formatTechnicalSeo, scoreCards } from "~/domain/score-cards";
import { foldsAsAscii, ftsPhrase, gramToken, hasFilters, isBrowsing, parseSearchQuery, searchTermOf } from "~/domain/search";
import { tagOfTheDay } from "~/domain/suggestions";

describe("authority bands on the rounded-up score", () => {
  it.each([
    [0, "low"],
    [19, "low"],
    [19.1, "mid"],
    [20, "mid"],
    [69, "mid"],
    [69.5, "hi"],
    [70, "hi"],
    [100, "hi"],
  ])("%s is %s", (score, band) => {
    expect(authorityBand(score)).toBe(band);
  });
});

describe("displayed score", () => {
  it("rounds up a stored score", () => {
    expect(displayScore(41.2)).toBe(42);
    expect(displayScore(0)).toBe(0);
  });
});

describe("dates", () => {
  const now = Date.UTC(2026, 10, 21, 15, 30);
  it("shows 12-hour clock time for today", () => {
    expect(formatShortDate(Date.UTC(2026, 10, 21, 0, 5), now)).toBe("12:05 AM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 9, 7), now)).toBe("9:07 AM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 12, 0), now)).toBe("12:00 PM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 23, 59), now)).toBe("11:59 PM");
  });
  it("shows month/day this year and adds the year otherwise", () => {
    expect(formatShortDate(Date.UTC(2026, 0, 2, 10), now)).toBe("1/2");
    expect(formatShortDate(Date.UTC(2026, 10, 20, 23, 59), now)).toBe("11/20");
    expect(formatShortDate(Date.UTC(2025, 11, 31), now)).toBe("12/31/2025");
  });
  it("shows the viewer's clock and day in their time zone", () => {
    // 15:30 UTC on 21 November is 4:30 AM on 22 November in Auckland (UTC+13 in summer) and 7:30 AM on the 21st in Los Angeles.
    expect(formatShortDate(Date.UTC(2026, 10, 21, 15, 0), now, "Pacific/Auckland")).toBe("4:00 AM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 11, 0), now, "Pacific/Auckland")).toBe("12:00 AM");
    // 10:00 UTC on the 21st is today in UTC, but 11 PM on the 21st in Auckland: yesterday there.
    expect(formatShortDate(Date.UTC(2026, 10, 21, 10, 0), now, "UTC")).toBe("10:00 AM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 10, 0), now, "Pacific/Auckland")).toBe("11/21");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 14, 0), now, "America/Los_Angeles")).toBe("6:00 AM");
    expect(formatShortDate(Date.UTC(2026, 10, 21, 3, 0), now, "America/Los_Angeles")).toBe("11/20");
    // New Year's Eve in UTC is already next year in Auckland.
    expect(formatShortDate(Date.UTC(2026, 11, 31, 12, 0), Date.UTC(2027, 0, 5), "Pacific/Auckland")).toBe("1/1");
    expect(formatMessageTime(Date.UTC(2026, 10, 20, 12, 0), now, "Pacific/Auckland")).toBe("21/11");
    expect(formatRunDate(Date.UTC(2026, 10, 21, 12, 0), now, "Pacific/Auckland")).toBe("1:00 AM");
  });
  it("knows a time zone from a name a cookie could hold", () => {
    expect(isTimeZone("Pacific/Auckland")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("")).toBe(false);
    expect(timeZoneOrDefault("<script>")).toBe("UTC");
    expect(timeZoneOrDefault(null)).toBe("UTC");
    expect(timeZoneOrDefault("America/Los_Angeles")).toBe("America/Los_Angeles");
    // Any letter case is the same zone, under its one name.
    expect(timeZoneOrDefault("pacific/AUCKLAND")).toBe("Pacific/Auckland");
  });
  it("gives a zone's offsets now and in both halves of the year, counted as the browser's clock counts them", () => {
    expect(zoneOffsets("UTC", now)).toEqual([0, 0, 0]);
    // Auckland is UTC+13 in its summer (November, January) and UTC+12 in July; Los Angeles the other way round.
    expect(zoneOffsets("Pacific/Auckland", now)).toEqual([-780, -780, -720]);
    expect(zoneOffsets("America/Los_Angeles", now)).toEqual([480, 480, 420]);
    expect(zoneOffsets("Asia/Kathmandu", now)).toEqual([-345, -345, -345]);
    // Auckland's clocks went forward at 2 AM on 27 September 2026 (14:00 UTC the day before): "now" follows.
    expect(zoneOffsets("Pacific/Auckland", Date.UTC(2026, 8, 26, 13, 59))[0]).toBe(-720);
    expect(zoneOffsets("Pacific/Auckland", Date.UTC(2026, 8, 26, 14, 0))[0]).toBe(-780);
    // Reykjavik keeps UTC all year: its times read the same as a page rendered in UTC. London's do not in summer.
    expect(sameOffsets(zoneOffsets("Atlantic/Reykjavik", now), zoneOffsets("UTC", now))).toBe(true);
    expect(sameOffsets(zoneOffsets("Europe/London", now), zoneOffsets("UTC", now))).toBe(false);
    // The runtime's own clock, read from Date alone, agrees with its zone's offsets read through Intl.
    expect(clockOffsets(now)).toEqual(zoneOffsets(Intl.DateTimeFormat().resolvedOptions().timeZone, now));
  });
  it("reads UTC's calendar and clock without Intl, as Intl reads them", () => {
    // "Etc/UTC" goes through Intl; "UTC" is read from Date's UTC fields. Instants across leap days, year ends and
    // every hour and weekday, from 1970 to 2100.
    const instants = [0, Date.UTC(2024, 1, 29, 23, 59), Date.UTC(2026, 11, 31, 23, 59, 59), Date.UTC(2027, 0, 1)];
    for (let i = 0; i < 2000; i += 1) instants.push(Math.floor((((i * 7919) % 2000) / 2000) * Date.UTC(2100, 0, 1)) + i * 60_000);
    for (const at of instants) expect(partsIn(at, "UTC")).toEqual(partsIn(at, "Etc/UTC"));
  });
  it("falls back to 7 March 2024 for a site never scored", () => {
    expect(formatRunDate(null, now)).toBe("3/7/2024");
    expect(formatRunDate(null, now, "America/New_York")).toBe("3/7/2024");
    expect(formatRunDate(null, now, "Pacific/Auckland")).toBe("3/7/2024");
    expect(formatRunDate(null, Date.UTC(2024, 5, 1))).toBe("3/7");
  });
});

describe("Your Score cards", () => {
  it("formats each value", () => {
    expect(formatDomainAuthority(35)).toBe("35%");
    expect(formatOnPageSeo(70)).toBe("100%");
    expect(formatOnPageSeo(35)).toBe("50%");
    expect(formatOnPageSeo(1)).toBe("2%");
    expect(formatTechnicalSeo(10)).toBe("A+");
    expect(formatTechnicalSeo(20)).toBe("B");
    expect(formatTechnicalSeo(30)).toBe("C");
    expect(formatTechnicalSeo(15)).toBe("N/A");
    expect(formatSpeed(88)).toBe("88%");
    expect(formatSsl(10)).toBe("A+");
    expect(formatSsl(0)).toBe("B");
    expect(formatSsl(20)).toBe("B");
  });
  it("shows N/A for missing values, and backlinks only when unknown", () => {
    for (const format of [formatDomainAuthority, formatOnPageSeo, formatTechnicalSeo, formatSpeed, formatSsl, formatLinks]) {
      expect(format(null)).toBe("N/A");
    }
    expect(formatLinks(0)).toBe("0");
    expect(formatLinks(12)).toBe("12");
  });
  it("lists the six cards in order", () => {
    const cards = scoreCards({ domainAuthority: 40, onPageSeo: 49, technicalSeo: 20, links: 3, speed: 90, ssl: 10 });
    expect(cards.map((card) => [card.title, card.value])).toEqual([
      ["Domain Authority", "40%"],
      ["On-page SEO", "70%"],
      ["Technical SEO", "B"],
      ["Total Backlinks", "3"],
      ["Speed", "90%"],
      ["SSL", "A+"],
    ]);
  });
});

describe("suggestions", () => {
  it("rotates the tag by day of week over the site's tags", () => {
    const sunday = Date.UTC(2026, 10, 22);
    const monday = Date.UTC(2026, 10, 23);
    const saturday = Date.UTC(2026, 10, 28);
    expect(tagOfTheDay(["seo", "ai", "travel"], sunday)).toBe("seo");
    expect(tagOfTheDay(["seo", "ai", "travel"], monday)).toBe("ai");
    expect(tagOfTheDay(["seo", "ai", "travel"], saturday)).toBe("seo"); // day 6 % 3
    expect(tagOfTheDay(["blog"], saturday)).toBe("blog");
    expect(tagOfTheDay([], monday)).toBeNull();
  });
  it("follows the viewer's day: Sunday 20:00 UTC is already Monday in Auckland", () => {
    const sundayEvening = Date.UTC(2026, 10, 22, 20, 0);
    expect(tagOfTheDay(["seo", "ai", "travel"], sundayEvening)).toBe("seo");
    expect(tagOfTheDay(["seo", "ai", "travel"], sundayEvening, "Pacific/Auckland")).toBe("ai");
    expect(tagOfTheDay(["seo", "ai", "travel"], Date.UTC(2026, 10, 23, 3, 0), "America/Los_Angeles")).toBe("seo");
  });
});

describe("search rules", () => {
  it("reads the query and drops unknown values", () => {
    const params = new URLSearchParams("term=  Seo   tips &tag=seo&tag=nope&tag=seo&band=hi&band=huge");
    expect(parseSearchQuery(params)).toEqual({ term: "Seo tips", tags: ["seo"], bands: ["hi"], sort: "newest" });
    expect(parseSearchQuery(new URLSearchParams("sort=record")).sort).toBe("record");
    expect(parseSearchQuery(new URLSearchParams("term=ab%00cd%07%1F")).term).toBe("ab cd");
    expect(parseSearchQuery(new URLSearchParams("sort=cheapest")).sort).toBe("newest");
    // A long term is cut at 100 characters, never inside one (an emoji is two UTF-16 units).
    const long = new URLSearchParams({ term: `${"x".repeat(99)}😀 and more` });
    expect(parseSearchQuery(long).term).toBe(`${"x".repeat(99)}😀`);
    expect(parseSearchQuery(new URLSearchParams({ term: "y".repeat(150) })).term).toBe("y".repeat(100));
    // Nothing to search for (the order aside) is browsing the market; a term, a tag or a band is a search.
    expect(isBrowsing(parseSearchQuery(new URLSearchParams("sort=record")))).toBe(true);
    for (const search of ["term=seo", "tag=seo", "band=hi"]) expect(isBrowsing(parseSearchQuery(new URLSearchParams(search)))).toBe(false);
    for (const search of ["tag=seo", "band=hi", "term=x&tag=seo"]) expect(hasFilters(parseSearchQuery(new URLSearchParams(search)))).toBe(true);
    for (const search of ["term=seo", "sort=record", "tag=nope"]) expect(hasFilters(parseSearchQuery(new URLSearchParams(search)))).toBe(false);
  });

  it("keeps the term in the header search on /search and /search/{term}", () => {
    expect(searchTermOf("/search", "?term=seo+tips")).toBe("seo tips");
    expect(searchTermOf("/search/seo%20tips", "")).toBe("seo tips");
    expect(searchTermOf("/search/%E0%A4%A", "")).toBe("%E0%A4%A");
    // A stray "%" typed in the address bar: what decodes is decoded, the rest kept as typed.
    expect(searchTermOf("/search/50%%20off", "")).toBe("50% off");
    expect(searchTermOf("/search/caf%C3%A9%20100%", "")).toBe("café 100%");
    expect(searchTermOf("/search/100%25", "")).toBe("100%");
    // The router matches any letter case (a phone's address bar may capitalise the path).
    expect(searchTermOf("/Search/seo", "")).toBe("seo");
    expect(searchTermOf("/SEARCH", "?term=seo")).toBe("seo");
    expect(searchTermOf("/searches/seo", "")).toBe("");
    expect(searchTermOf("/market", "?term=seo")).toBe("");
    expect(parseSearchQuery(new URLSearchParams("term=ignored"), "from path").term).toBe("from path");
    expect(parseSearchQuery(new URLSearchParams(`term=${"x".repeat(500)}`)).term).toHaveLength(100);
  });
  it("quotes user input for the index", () => {
    expect(ftsPhrase('say "hi" OR x')).toBe('"say ""hi"" OR x"');
  });
});

describe("dashboard counting", () => {
  const site = "mine";
  it("counts only offers of the current site", () => {
    const counts = countOffers(
      [
        { status: "pending", senderSiteId: site, receiverSiteId: "a" },
        { status: "pending", senderSiteId: "b", receiverSiteId: site },
        { status: "pending", senderSiteId: "c", receiverSiteId: site },
        { status: "accepted", senderSiteId: site, receiverSiteId: "d" },
        { status: "accepted", senderSiteId: "e", receiverSiteId: site },
        { status: "declined", senderSiteId: "f", receiverSiteId: site },
        { status: "rescind", senderSiteId: site, receiverSiteId: "g" },
        { status: "pending", senderSiteId: "x", receiverSiteId: "y" },
      ],
      site,
    );
    expect(counts).toEqual({ pending: 1, received: 2, trades: 2 });
  });
});

describe("short-term index tokens", () => {
  it("writes one character or a pair as SQLite's lower() and hex() do", () => {
    expect(gramToken("a")).toBe("u61");
    expect(gramToken("A")).toBe("u61");
    expect(gramToken("Zz")).toBe("b7A7A");
    expect(gramToken("é")).toBe("uC3A9");
    expect(gramToken("É")).toBe("uC389"); // lower() changes ASCII letters only, as LIKE compares them
    expect(gramToken("😀")).toBe("uF09F9880");
    expect(gramToken("abc")).toBeNull();
    expect(gramToken("")).toBeNull();
  });
});

describe("which long terms a walk in record order can check", () => {
  it("those whose letters beyond ASCII have no other case, as SQLite's lower() folds ASCII letters only", () => {
    for (const term of ["Travel blog", "a%_[*]?", "中文博客", "blog 😀 — ok"]) expect(foldsAsAscii(term), term).toBe(true);
    for (const term of ["été", "ЁЛКА", "straße", "Ωmega"]) expect(foldsAsAscii(term), term).toBe(false);
  });
});
