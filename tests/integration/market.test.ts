import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { messages } from "~/domain/messages";
import { CATEGORY_TAGS } from "~/domain/options";
import { AUTHORITY_BANDS, type AuthorityBand } from "~/domain/score";
import type { SearchQuery } from "~/domain/search";
import { database } from "~/lib/db.server";
import { dashboardFor } from "~/services/dashboard.server";
import { addSiteWithListing } from "~/services/listings.server";
import { SEARCH_PAGE_SIZE, searchListings } from "~/services/search.server";
import { updateSiteSettings } from "~/services/sites.server";
import { act, get, listSite, POST_LINK, post, propose, read, signUp, trader, uniqueHost } from "./helpers";

/** Every page of a search, followed from one to the next (at most 40): the listing ids in the order shown. */
async function searchPages(viewerId: string, query: SearchQuery, plan = {}) {
  const db = database(env.DB);
  const ids: string[] = [];
  let after: string | null = null;
  for (let pages = 0; pages < 40; pages += 1) {
    const found: { posts: { id: string }[]; next: string | null } = await searchListings(db, viewerId, query, after, plan);
    ids.push(...found.posts.map((post) => post.id));
    after = found.next;
    if (!after) break;
  }
  return ids;
}

/** The site's row in the search index: sorted by record, its place among equal records (newest indexed first). */
async function searchRowidOf(siteId: string) {
  return (await env.DB.prepare("SELECT search_rowid AS r FROM sites WHERE id = ?").bind(siteId).first<{ r: number }>())!.r;
}

/** The "More results" link of a results page, if any. */
function nextResultsOf(html: string) {
  return html.match(/href="(\/search[^"]*)">More results</)?.[1]?.replaceAll("&amp;", "&") ?? null;
}

/** The tags of the listings' sites, from the database. */
async function tagsOf(listingIds: string[]) {
  const rows = await env.DB.prepare(
    `SELECT s.tags FROM listings l JOIN sites s ON s.id = l.site_id WHERE l.id IN (${listingIds.map(() => "?").join(",")})`,
  )
    .bind(...listingIds)
    .all<{ tags: string }>();
  return rows.results.map((row) => JSON.parse(row.tags) as string[]);
}

describe("market", () => {
  it("shows verified listings of other users, never the viewer's own or unverified ones", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const shown = uniqueHost("shown");
    const unverified = uniqueHost("unverified");
    const own = uniqueHost("own");
    await listSite(other.userId, { host: shown });
    await listSite(other.userId, { host: unverified, verified: false });
    await listSite(viewer.userId, { host: own });
    const page = await read(await get("/market", { cookie: viewer.cookie }));
    expect(page).toContain(shown);
    expect(page).not.toContain(unverified);
    expect(page).not.toContain(`class="post-url">${own}<`);
    const othersView = await read(await get("/market", { cookie: other.cookie }));
    expect(othersView).toContain(own);
  });

  it("shows a site whose address could pass for another's (a Cyrillic 'а' in 'аpple') in its ASCII form, on the card and the panel", async () => {
    const viewer = await signUp();
    const owner = await signUp();
    const word = crypto.randomUUID().slice(0, 8);
    const { listingId, siteId } = await listSite(owner.userId, { host: uniqueHost("lookalike"), description: `Look-alike ${word} brand site` });
    const typed = `https://\u0430pple-${word}.com`;
    await env.DB.prepare("UPDATE sites SET url = ?, host = ? WHERE id = ?").bind(typed, new URL(typed).host, siteId).run();
    const ascii = new URL(typed).host;
    expect(ascii).toMatch(/^xn--/);
    const results = await read(await get(`/search?term=${word}`, { cookie: viewer.cookie }));
    expect(results).toContain(`<p class="post-url">${ascii.slice(0, 19)}`);
    expect(results).not.toContain(`\u0430pple-${word}`);
    const panel = await read(await get(`/market?post=${listingId}`, { cookie: viewer.cookie }));
    expect(panel).toContain(`<h2 id="trade-title">${ascii.slice(0, 19)}`);
    expect(panel).not.toContain(`\u0430pple-${word}`);
  });

  it("says above the posts, on the market and the search results, that an unverified site cannot trade yet", async () => {
    const unverified = await signUp();
    const verified = await trader();
    for (const path of ["/market", "/search?term=blog", "/search/blog"]) {
      const page = await read(await get(path, { cookie: unverified.cookie }));
      expect(page, path).toMatch(new RegExp(`<span>${messages.verifyBanner}</span><a [^>]*href="/mysite/verify"[^>]*>Get verified</a>`));
      expect(await read(await get(path, { cookie: verified.cookie })), path).not.toContain(messages.verifyBanner);
    }
  });

  it("opens a post's trade terms at /market?post=ID, with the banner for an unverified site", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const host = uniqueHost("panel");
    const { listingId } = await listSite(other.userId, { host, connects: 17 });
    const page = await read(await get(`/market?post=${listingId}`, { cookie: viewer.cookie }));
    expect(page).toContain("Trade terms");
    expect(page).toContain("17 connects");
    // The listing's content types are what its owner chose under "You are willing to provide", and say so.
    expect(page).toMatch(/<dt>Willing to provide<\/dt><dd>(?:(?!<\/dd>)[^])*Blog post/);
    expect(page).toContain(messages.verifyBanner);
    expect(page).toContain('href="/mysite/verify"');
    expect((await get("/mysite/verify", { cookie: viewer.cookie })).status).toBe(200);
    expect(page).toContain('href="/mysite/connects"');
    expect((await get("/mysite/connects", { cookie: viewer.cookie })).status).toBe(200);
    expect(page).toMatch(/aria-label="Close"[^>]*href="\/market"/);
  });

  it("opens a post's trade terms over the search results, and a proposal sent there returns to them", async () => {
    const viewer = await trader();
    const other = await signUp();
    const word = `over${crypto.randomUUID().slice(0, 6)}`;
    const { listingId } = await listSite(other.userId, { host: uniqueHost("results"), description: `All about ${word}`, connects: 3 });
    for (const results of [`/search?term=${word}&sort=record`, `/search/${word}?sort=record`]) {
      const shown = await read(await get(results, { cookie: viewer.cookie }));
      const cardLink = shown.match(/<a [^>]*class="post-card"[^>]*>/)?.[0].match(/href="([^"]*)"/)?.[1];
      expect(cardLink?.replaceAll("&amp;", "&")).toBe(`${results}&post=${listingId}`);
      const page = await read(await get(`${results}&post=${listingId}`, { cookie: viewer.cookie }));
      expect(page).toContain("Trade terms");
      expect(page).toContain("3 connects");
      expect(page).toContain(`Results for ${word}`);
      const closeLink = page.match(/aria-label="Close"[^>]*href="([^"]*)"/)?.[1];
      expect(closeLink?.replaceAll("&amp;", "&")).toBe(results);
      const proposalAction = page.match(/<form method="post" action="([^"]*)" class="stack proposal"/)?.[1];
      expect(proposalAction?.replaceAll("&amp;", "&")).toBe(`${results}&post=${listingId}`);
    }
    // Sent from the results, the user is back on them (not the market) with the notice; a page's cursor stays.
    const sent = await propose(
      viewer.cookie,
      listingId,
      [],
      `/search/${word}?tag=seo&sort=record&tag=ai&after=r5_10&post=${listingId}&to=//elsewhere.example`,
    );
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe(`/search/${word}?tag=seo&tag=ai&sort=record&after=r5_10&notice=offer-sent`);
    // Another proposal for the post (other terms), refused there: the results page answers with the message in the panel.
    const again = await propose(viewer.cookie, listingId, [["myMaterials", "blog-content"]], `/search?term=${word}&post=${listingId}`);
    expect(again.status).toBe(409);
    const refused = await read(again);
    expect(refused).toContain(messages.duplicateOffer);
    expect(refused).toContain(`Results for ${word}`);
  });

  it("does not open the viewer's own post", async () => {
    const viewer = await signUp();
    const { listingId } = await listSite(viewer.userId, { host: uniqueHost("mine") });
    const page = await read(await get(`/market?post=${listingId}`, { cookie: viewer.cookie }));
    expect(page).toContain("This post is no longer available.");
    expect(page).not.toContain("Trade terms");
  });

  it("opens /search/{term} in any letter case, as the router does", async () => {
    const viewer = await signUp();
    const word = `casey${crypto.randomUUID().slice(0, 6)}`;
    await listSite((await signUp()).userId, { host: uniqueHost("case"), description: `All about ${word} and more things to read here.` });
    const page = await read(await get(`/Search/${word}`, { cookie: viewer.cookie }));
    expect(page).toContain(`value="${word}"`);
    expect(page).toContain("1+ sites available");
  });

  it("pages with links, newest first", async () => {
    const viewer = await signUp();
    const other = await signUp();
    for (let i = 0; i < 26; i += 1) await listSite(other.userId, { host: uniqueHost(`page${i}`) });
    const first = await read(await get("/market", { cookie: viewer.cookie }));
    const next = first.match(/href="\/market\?after=([^"]+)"/);
    expect(next).not.toBeNull();
    const second = await read(await get(`/market?after=${next![1]}`, { cookie: viewer.cookie }));
    const hostsOf = (html: string) => [...html.matchAll(/class="post-url">([^<]+)</g)].map((m) => m[1]);
    expect(hostsOf(first)).toHaveLength(24);
    expect(hostsOf(second).some((host) => hostsOf(first).includes(host))).toBe(false);
    // The order's link is the current page on the first page only: on a later one it leads back to the first.
    const newestLink = (html: string) => /<a [^>]*>Newest<\/a>/.exec(html)?.[0];
    expect(newestLink(first)).toContain('aria-current="page"');
    expect(newestLink(second)).toContain('aria-current="true"');
    // A later page with nothing left on it (its posts taken down since) is the list's end, not an empty market.
    const past = await read(await get("/market?after=1_a", { cookie: viewer.cookie }));
    expect(hostsOf(past)).toHaveLength(0);
    expect(past).toContain("No more posts here. The list starts again on its first page.");
    expect(past).not.toContain(messages.noPosts);
    expect(past).toMatch(/<a [^>]*href="\/market"[^>]*>Newest posts<\/a>/);
  });
});

describe("search", () => {
  it("matches the term anywhere, needs every chosen tag, combines bands with OR and hides own sites", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const word = `zq${crypto.randomUUID().slice(0, 6)}`;
    const low = await listSite(other.userId, {
      host: uniqueHost("low"),
      description: `Cheap ${word.toUpperCase()} tips`,
      tags: ["seo", "ai"],
      score: 12,
    });
    const mid = await listSite(other.userId, { host: uniqueHost("mid"), description: `More ${word} here`, tags: ["seo"], score: 45 });
    const hi = await listSite(other.userId, { host: `${word}-hi.com`, tags: ["travel"], score: 88 });
    await listSite(viewer.userId, { host: `${word}-own.com`, tags: ["seo"], score: 50 });
    const ids = async (query: string) => {
      const html = await read(await get(`/search?${query}`, { cookie: viewer.cookie }));
      return [...html.matchAll(POST_LINK)].map((m) => m[1]).sort();
    };
    expect(await ids(`term=${word}`)).toEqual([low.listingId, mid.listingId, hi.listingId].sort());
    expect(await ids(`term=${word}&tag=seo`)).toEqual([low.listingId, mid.listingId].sort());
    expect(await ids(`term=${word}&tag=seo&tag=ai`)).toEqual([low.listingId]);
    expect(await ids(`term=${word}&band=low&band=hi`)).toEqual([low.listingId, hi.listingId].sort());
    expect(await ids(`term=${word}&band=mid`)).toEqual([mid.listingId]);
    const page = await read(await get(`/search/${word}`, { cookie: viewer.cookie }));
    expect(page).toContain(`Results for ${word}`);
    expect(page).toContain("3+ sites available");
    // The header's search box keeps the term on /search/{term} as on /search.
    expect(page).toContain(
      `id="header-search" name="term" type="search" placeholder="What are you looking for today?" maxLength="100" value="${word}"`,
    );
    // "{word} 100% sure" typed in the address bar is sent with a stray "%": the page still reads and searches the words.
    const typed = await read(await get(`/search/${word}%20100%%20sure`, { cookie: viewer.cookie }));
    expect(typed).toContain(`Results for ${word} 100% sure`);
    expect(typed).toContain(`value="${word} 100% sure"`);
    expect(typed).toContain(`<title>Results for ${word} 100% sure - Backlink Market</title>`);
  });

  it("a site not audited yet shows one placeholder from 40 to 99: the same on every load, on its card and panel, and in the band filter", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const word = `zu${crypto.randomUUID().slice(0, 6)}`;
    const unscored = await listSite(other.userId, { host: `${word}-new.com`, score: null });
    const { placeholder } = (await env.DB.prepare("SELECT placeholder_score AS placeholder FROM sites WHERE id = ?")
      .bind(unscored.siteId)
      .first<{ placeholder: number }>())!;
    expect(placeholder).toBeGreaterThanOrEqual(40);
    expect(placeholder).toBeLessThanOrEqual(99);
    const shown = (html: string) => [...html.matchAll(/aria-label="Authority score (\d+)"/g)].map((match) => Number(match[1]));
    for (let load = 0; load < 3; load++) {
      expect(shown(await read(await get(`/search?term=${word}`, { cookie: viewer.cookie })))).toEqual([placeholder]);
    }
    const panel = await read(await get(`/market?post=${unscored.listingId}`, { cookie: viewer.cookie }));
    expect(panel).toContain(`role="img" aria-label="Authority score ${placeholder}"`);
    const band = placeholder >= 70 ? "hi" : "mid";
    const otherBand = band === "hi" ? "mid" : "hi";
    expect(await read(await get(`/search?term=${word}&band=${band}`, { cookie: viewer.cookie }))).toContain(`post=${unscored.listingId}"`);
    expect(await read(await get(`/search?term=${word}&band=${otherBand}`, { cookie: viewer.cookie }))).not.toContain(`post=${unscored.listingId}"`);
    // Its owner's header shows the same number until the first audit.
    expect(await read(await get("/mysite", { cookie: other.cookie }))).not.toContain('score-none">–');
  });

  it("takes a category only from the site's tags, never from text that looks like one", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const word = `zt${crypto.randomUUID().slice(0, 6)}`;
    const tagged = await listSite(other.userId, { host: uniqueHost("tagged"), description: `Real ${word} gaming site`, tags: ["travel"] });
    await listSite(other.userId, { host: uniqueHost("posing"), description: `Says ${word} #travel# and #ai# in its text`, tags: ["seo"] });
    await listSite(other.userId, { host: `${word}-travel-.com`, description: "Address that spells a tag", tags: [] });
    const html = await read(await get(`/search?term=${word}&tag=travel`, { cookie: viewer.cookie }));
    expect([...html.matchAll(POST_LINK)].map((m) => m[1])).toEqual([tagged.listingId]);
    const none = await read(await get(`/search?term=${word}&tag=ai`, { cookie: viewer.cookie }));
    expect(none).toContain("0+ sites available");
    // An empty result says so, and points at the filters when there are any.
    expect(none).toContain(messages.noMatchesFiltered);
    expect(html).not.toContain("No sites match this search");
    expect(await read(await get(`/search?term=${word}zz`, { cookie: viewer.cookie }))).toContain(messages.noMatches);
  });

  it("without a long term, reads a tag's sites newest first and needs every other tag; a short term decides by its text", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const pair = `${String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 20000))}k`;
    const onlyAi = await listSite(other.userId, { host: uniqueHost("only-ai"), description: `Pair ${pair} one`, tags: ["ai"] });
    const posing = await listSite(other.userId, { host: uniqueHost("posing"), description: `Pair ${pair} says #ai# in its text`, tags: ["travel"] });
    const three = await listSite(other.userId, { host: uniqueHost("three"), description: `Pair ${pair} three`, tags: ["seo", "travel", "ai"] });
    // More than a page of sites with both tags, so the next page below always exists.
    for (let i = 0; i < 25; i += 1) await listSite(other.userId, { host: uniqueHost("both-older"), tags: ["ai", "travel"] });
    const both = await listSite(other.userId, { host: uniqueHost("both"), description: `Pair ${pair} two`, tags: ["travel", "ai"] });
    const ids = (html: string) => [...html.matchAll(POST_LINK)].map((m) => m[1]!);

    const first = await read(await get("/search?tag=ai&tag=travel", { cookie: viewer.cookie }));
    const page = ids(first);
    expect(page[0]).toBe(both.listingId);
    expect(page).not.toContain(onlyAi.listingId);
    expect(page).not.toContain(posing.listingId);
    for (const tags of await tagsOf(page)) expect(tags).toEqual(expect.arrayContaining(["ai", "travel"]));
    // The next page goes on from the last site shown, older ones only, with both tags.
    const next = nextResultsOf(first);
    expect(next).toBeDefined();
    const secondPage = await read(await get(next!, { cookie: viewer.cookie }));
    const second = ids(secondPage);
    expect(second.length).toBeGreaterThan(0);
    // Both pages count the whole search: at least the 26 sites with both tags.
    const countOf = (html: string) => Number(html.match(/(\d+)\+ sites available/)?.[1]);
    expect(countOf(first)).toBeGreaterThanOrEqual(26);
    expect(countOf(secondPage)).toBe(countOf(first));
    expect(second.filter((id) => page.includes(id))).toEqual([]);
    for (const tags of await tagsOf(second)) expect(tags).toEqual(expect.arrayContaining(["ai", "travel"]));
    const rowids = async (listingIds: string[]) =>
      Promise.all(
        listingIds.map((id) =>
          env.DB.prepare("SELECT s.search_rowid AS r FROM listings l JOIN sites s ON s.id = l.site_id WHERE l.id = ?").bind(id).first<number>("r"),
        ),
      );
    expect(Math.max(...(await rowids(second)).map(Number))).toBeLessThan(Math.min(...(await rowids(page)).map(Number)));

    const short = async (query: string) => ids(await read(await get(`/search?term=${encodeURIComponent(pair)}&${query}`, { cookie: viewer.cookie })));
    expect(await short("tag=ai")).toEqual([both.listingId, three.listingId, onlyAi.listingId]);
    expect(await short("tag=travel")).toEqual([both.listingId, three.listingId, posing.listingId]);
    // Two tags read the sites with both from their pairs, in either order; a third is checked on each of them.
    expect(await short("tag=travel&tag=ai")).toEqual([both.listingId, three.listingId]);
    expect(await short("tag=ai&tag=travel")).toEqual([both.listingId, three.listingId]);
    expect(await short("tag=travel&tag=ai&tag=seo")).toEqual([three.listingId]);
    expect(await short("tag=seo&tag=ai")).toEqual([three.listingId]);
    expect(await short("tag=seo&tag=blog")).toEqual([]);
    expect(await short("tag=seo")).toEqual([three.listingId]);
  });

  it("reads a later page from a window below its cursor, and from the cursor down where the window falls short or is not needed", async () => {
    const viewer = await trader();
    const owner = await trader();
    const word = `zw${crypto.randomUUID().slice(0, 6)}`;
    // Matches of different density, oldest first: 30 together, 20 spread over 200 sites (every tenth), then 110
    // together. The first hundred counted span about a hundred sites, so a window that wide below the cursor holds a
    // page and more among the dense, and too few among the spread, with more below them.
    const matching: string[] = [];
    const add = async (matches: boolean, i: number) => {
      const { listingId } = await listSite(owner.userId, {
        host: uniqueHost(matches ? `${word}-${i}` : "other"),
        description: matches ? `Window ${word} ${i}` : "Something else",
        tags: ["fin-tech", "dropshipping"],
      });
      if (matches) matching.push(listingId);
    };
    for (let i = 0; i < 30; i += 1) await add(true, i);
    for (let i = 30; i < 230; i += 1) await add(i % 10 === 0, i);
    for (let i = 230; i < 340; i += 1) await add(true, i);
    const db = database(env.DB);
    const pages = async (options: { pageWindow?: number }, tags: string[] = []) => {
      const seen: string[] = [];
      const counts: number[] = [];
      let next: string | null = null;
      do {
        const found = await searchListings(db, viewer.userId, { term: word, tags, bands: [], sort: "newest" }, next, options);
        seen.push(...found.posts.map((post) => post.id));
        counts.push(found.count);
        next = found.next;
      } while (next && seen.length < 400);
      return { seen, counts };
    };
    const expected = [...matching].reverse();
    const windowed = await pages({});
    expect(windowed.seen).toEqual(expected);
    expect(new Set(windowed.counts)).toEqual(new Set([100]));
    // A window that may read only three matches never suffices: every later page reads from the cursor down.
    expect(await pages({ pageWindow: 3 })).toEqual(windowed);
    expect(await pages({ pageWindow: 40 })).toEqual(windowed);
    // With tags, the index of their sites is read from the cursor down, newest first, page after page.
    expect(await pages({}, ["fin-tech"])).toEqual(windowed);
    expect(await pages({}, ["dropshipping", "fin-tech"])).toEqual(windowed);
  });

  it("titles a search without a term 'Search results' and survives any input", async () => {
    const viewer = await signUp();
    const page = await read(await get("/search?tag=seo", { cookie: viewer.cookie }));
    expect(page).toContain("Search results");
    const odd = ['"', "a", "ab", "%_\\", "NEAR(x y)", "😀😀😀", "x".repeat(5000), "') OR 1=1 --", "ab\0cd", "\0\0\0", "a\u0007\u001fb"];
    for (const term of odd) {
      for (const extra of ["&band=nope&tag=%00", "&tag=seo", "&sort=record"]) {
        const response = await get(`/search?term=${encodeURIComponent(term)}${extra}`, { cookie: viewer.cookie });
        expect(response.status, `${JSON.stringify(term.slice(0, 20))} ${extra}`).toBe(200);
        expect(await read(response), term.slice(0, 20)).toMatch(/\d+\+ sites available/);
      }
    }
    expect((await get(`/search/${encodeURIComponent("ab\0cd")}`, { cookie: viewer.cookie })).status).toBe(200);
  });

  it("pages through every result with `after`, newest first, without repeats, in both kinds of search", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const word = `zp${crypto.randomUUID().slice(0, 6)}`;
    const listed: string[] = [];
    // Every fifth has one tag, the others two: a term with tags reads its tag's or its pair's sites, a page and more.
    for (let i = 0; i < 30; i += 1)
      listed.push(
        (
          await listSite(other.userId, {
            host: uniqueHost("paged"),
            description: `Paged ${word} ${i}`,
            tags: i % 5 === 0 ? ["news-journalism"] : ["news-journalism", "cybersecurity"],
          })
        ).listingId,
      );
    const walk = async (first: string) => {
      const seen: string[] = [];
      let next: string | null = first;
      for (let pages = 0; next && pages < 10; pages += 1) {
        const html = await read(await get(next, { cookie: viewer.cookie }));
        seen.push(...[...html.matchAll(POST_LINK)].map((m) => m[1]!));
        next = nextResultsOf(html);
      }
      return seen;
    };
    const byTerm = await walk(`/search?term=${word}`);
    expect(byTerm).toHaveLength(30);
    expect(new Set(byTerm).size).toBe(30);
    expect(byTerm).toEqual([...listed].reverse());
    expect(await walk(`/search?term=${word}&tag=news-journalism`)).toEqual([...listed].reverse());
    const paired = listed.filter((_, i) => i % 5 !== 0).reverse();
    expect(paired).toHaveLength(24);
    expect(await walk(`/search?term=${word}&tag=news-journalism&tag=cybersecurity`)).toEqual(paired);
    expect(await walk(`/search?term=${word}&tag=cybersecurity&tag=news-journalism`)).toEqual(paired);
    // A cursor beyond every site reads from the newest, within the tags' group still (not the groups below it).
    const beyond = await read(await get(`/search?term=${word}&tag=cybersecurity&tag=news-journalism&after=99999999999`, { cookie: viewer.cookie }));
    expect([...beyond.matchAll(POST_LINK)].map((m) => m[1])).toEqual(paired.slice(0, SEARCH_PAGE_SIZE));
    // Without a term the listings are walked newest first, same-millisecond ties in id order: made to tie, these 30
    // come first, each once, across the page boundary.
    await env.DB.prepare(
      `UPDATE listings SET created_at = (SELECT max(created_at) + 1 FROM listings) WHERE id IN (${listed.map(() => "?").join(", ")})`,
    )
      .bind(...listed)
      .run();
    const all = await walk("/search?band=mid");
    expect(new Set(all).size).toBe(all.length);
    expect(new Set(all.slice(0, 30))).toEqual(new Set(listed));
    // Without a term, tag or band: the market's own list, in the market's order, paged the same way.
    const browsing = await walk("/search");
    expect(new Set(browsing).size).toBe(browsing.length);
    expect(new Set(browsing.slice(0, 30))).toEqual(new Set(listed));
    const market = await read(await get("/market", { cookie: viewer.cookie }));
    expect(browsing.slice(0, 24)).toEqual([...market.matchAll(POST_LINK)].map((m) => m[1]));
    const total = (await env.DB.prepare(
      "SELECT count(*) AS n FROM listings l JOIN sites s ON s.id = l.site_id WHERE l.active = 1 AND s.verified = 1 AND s.user_id <> ?",
    )
      .bind(viewer.userId)
      .first<number>("n"))!;
    expect(await read(await get("/search", { cookie: viewer.cookie }))).toContain(`${Math.min(total, 100)}+ sites available`);
  });

  it("finds one- and two-character terms anywhere, literally", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const near = await listSite(other.userId, { host: uniqueHost("short"), description: "Notes on the Q7 camera and 5% off %_ deals" });
    await listSite(other.userId, { host: uniqueHost("short"), description: "Notes on other things entirely" });
    const ids = async (term: string) => {
      const html = await read(await get(`/search?term=${encodeURIComponent(term)}`, { cookie: viewer.cookie }));
      return [...html.matchAll(POST_LINK)].map((m) => m[1]);
    };
    expect(await ids("q7")).toContain(near.listingId);
    expect(await ids("%_")).toEqual([near.listingId]);
    expect(await ids("Q")).toContain(near.listingId);
    // Any character, through the index of characters and pairs; it follows edits of the site.
    const accent = `${String.fromCodePoint(0x1f600 + Math.floor(Math.random() * 60))}ü`;
    expect(await ids(accent)).toEqual([]);
    await env.DB.prepare("UPDATE sites SET description = ? WHERE id = ?").bind(`Now with ${accent} inside`, near.siteId).run();
    expect(await ids(accent)).toEqual([near.listingId]);
    expect(await ids(accent.slice(0, 2))).toContain(near.listingId);
    expect(await ids("%_")).toEqual([]);
    await env.DB.prepare("DELETE FROM sites WHERE id = ?").bind(near.siteId).run();
    expect(await ids(accent)).toEqual([]);
  });

  it("reads the tags as their words for short terms, never their stored brackets, quotes and commas", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const tagged = await listSite(other.userId, { host: uniqueHost("tagged"), description: "Plain words only here", tags: ["seo", "travel"] });
    const ids = async (term: string) => {
      const html = await read(await get(`/search?term=${encodeURIComponent(term)}`, { cookie: viewer.cookie }));
      return [...html.matchAll(POST_LINK)].map((m) => m[1]);
    };
    for (const term of ["[", "]", '"', ",", '["', '",']) expect(await ids(term), term).not.toContain(tagged.listingId);
    expect(await ids("tr")).toContain(tagged.listingId);
    // The index of characters and pairs holds none of the JSON's either ('[' is u5B, '"' u22, ',' u2C).
    const row = await env.DB.prepare("SELECT grams FROM site_grams WHERE rowid = (SELECT search_rowid FROM sites WHERE id = ?)")
      .bind(tagged.siteId)
      .first<{ grams: string }>();
    expect(row!.grams.split(" ")).toEqual(expect.arrayContaining(["u74", "b7472"]));
    expect(row!.grams.split(" ").filter((gram) => /^u(5B|5D|22|2C)$/.test(gram))).toEqual([]);
  });

  it("pages through a two-character term newest first", async () => {
    const viewer = await signUp();
    const other = await signUp();
    const pair = `${String.fromCodePoint(0x4e00 + Math.floor(Math.random() * 20000))}x`;
    const listed: string[] = [];
    for (let i = 0; i < 30; i += 1)
      listed.push((await listSite(other.userId, { host: uniqueHost("pair"), description: `Pair ${pair} number ${i}` })).listingId);
    const first = await read(await get(`/search?term=${encodeURIComponent(pair)}`, { cookie: viewer.cookie }));
    expect(first).toContain("30+ sites available");
    const next = nextResultsOf(first);
    const second = await read(await get(next!, { cookie: viewer.cookie }));
    const seen = [first, second].flatMap((html) => [...html.matchAll(POST_LINK)].map((m) => m[1]));
    expect(seen).toEqual([...listed].reverse());
    // A later page counts the whole search, and so does one with nothing left on it (a link older than the results).
    expect(second).toContain("30+ sites available");
    const pastTheEnd = await read(await get(`/search?term=${encodeURIComponent(pair)}&after=1`, { cookie: viewer.cookie }));
    expect([...pastTheEnd.matchAll(POST_LINK)]).toEqual([]);
    expect(pastTheEnd).toContain("30+ sites available");
    expect(pastTheEnd).not.toContain("No sites match this search");
    // It says it is the list's end, and leads back to the first results, as the market does.
    expect(pastTheEnd).toContain("No more posts here. The list starts again on its first page.");
    const firstResults = new RegExp(`<a [^>]*href="/search\\?term=${encodeURIComponent(pair)}"[^>]*>First results</a>`);
    expect(pastTheEnd).toMatch(firstResults);
    expect(second).toMatch(firstResults);
    expect(first).not.toContain("First results");
    // With the term in the address's path, the next page and Clear stay on that address.
    const inPath = `/search/${encodeURIComponent(pair)}`;
    const sorted = await read(await get(`${inPath}?sort=record`, { cookie: viewer.cookie }));
    expect(nextResultsOf(sorted)).toMatch(new RegExp(`^${inPath}\\?sort=record&after=r\\d+_\\d+$`));
    expect(sorted).toMatch(new RegExp(`href="${inPath}"[^>]*>Clear<`));
  });

  it("sorted by record, reads a rare term's matches from the index and walks the sites for a common one, with the same results", async () => {
    const owner = await trader();
    const word = `rec${crypto.randomUUID().slice(0, 6)}`;
    // The record's sort key (rep_sort) decides the order; tags and a short term take the same two ways.
    const siteIds: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const { siteId } = await listSite(owner.userId, {
        host: uniqueHost(`${word}-${i}`),
        description: `About ${word} and more, site ${i}.`,
        tags: i === 3 ? ["seo", "ai", "blog"] : ["seo", "ai"],
      });
      await env.DB.prepare("UPDATE sites SET rep_sort = ? WHERE id = ?")
        .bind(1 + ((i * 3) % 7), siteId)
        .run();
      siteIds.push(siteId);
    }
    const viewer = await trader();
    // Sites every plan must leave out, though their record is the best: unverified, not listed, and the viewer's own.
    const unverified = await listSite(owner.userId, {
      host: uniqueHost(`${word}-u`),
      description: `About ${word}, unverified.`,
      tags: ["seo", "ai"],
      verified: false,
    });
    const unlisted = await listSite(owner.userId, { host: uniqueHost(`${word}-i`), description: `About ${word}, not listed.`, tags: ["seo", "ai"] });
    await env.DB.prepare("UPDATE listings SET active = 0 WHERE id = ?").bind(unlisted.listingId).run();
    const own = await listSite(viewer.userId, { host: uniqueHost(`${word}-o`), description: `About ${word}, the viewer's.`, tags: ["seo", "ai"] });
    for (const { siteId } of [unverified, unlisted, own]) await env.DB.prepare("UPDATE sites SET rep_sort = 100 WHERE id = ?").bind(siteId).run();
    // A site with the term but not the tag, on a better record than the others: only a search without the tag has it.
    const untaggedHost = uniqueHost(`${word}-t`);
    const untagged = await listSite(owner.userId, { host: untaggedHost, description: `About ${word}, travel only.`, tags: ["travel"] });
    await env.DB.prepare("UPDATE sites SET rep_sort = 50 WHERE id = ?").bind(untagged.siteId).run();
    const db = database(env.DB);
    const both = async (query: { term: string; tags: string[]; bands?: AuthorityBand[] }, after?: string | null) => {
      const search = { bands: [], ...query, sort: "record" as const };
      // A small market sorts the counted matches (all of them); told to walk, it walks every site; a walk stopped after
      // three sites (the estimate misjudged) reads the index after all.
      const [fromIndex, walked, stoppedShort] = await Promise.all([
        searchListings(db, viewer.userId, search, after),
        searchListings(db, viewer.userId, search, after, { walkAbove: 0 }),
        searchListings(db, viewer.userId, search, after, { walkAbove: 0, walkSites: 3 }),
      ]);
      for (const other of [walked, stoppedShort]) {
        expect(other.posts.map((post) => post.id)).toEqual(fromIndex.posts.map((post) => post.id));
        expect(other.count).toBe(fromIndex.count);
        expect(other.next).toBe(fromIndex.next);
      }
      return fromIndex;
    };
    const found = await both({ term: word, tags: [] });
    expect(found.posts).toHaveLength(8);
    const descriptions = found.posts.map((post) => post.description);
    expect(descriptions).toEqual([`About ${word}, travel only.`, ...[2, 4, 6, 1, 3, 5, 0].map((i) => `About ${word} and more, site ${i}.`)]);
    // A later page (after site 6, whose rep_sort is 5) goes on in record order, and counts the whole search; site 0 has
    // no record (rep_sort 1), so the page goes on from the good records to the sites without one.
    const afterSite6 = `r5_${await searchRowidOf(siteIds[6]!)}`;
    const later = await both({ term: word, tags: ["seo"] }, afterSite6);
    expect(later.posts.map((post) => post.description)).toEqual([1, 3, 5, 0].map((i) => `About ${word} and more, site ${i}.`));
    expect(later.count).toBe(7);
    expect((await both({ term: word, tags: ["seo"] })).posts).toHaveLength(7);
    expect((await both({ term: word.toUpperCase(), tags: [] })).posts).toHaveLength(8);
    // Two tags: a walk reads the pair's sites best record first (site_tag_pairs), with a term or without, checking
    // any third tag on each.
    const inRecordOrder = [2, 4, 6, 1, 3, 5, 0].map((i) => `About ${word} and more, site ${i}.`);
    expect((await both({ term: word, tags: ["seo", "ai"] })).posts.map((post) => post.description)).toEqual(inRecordOrder);
    const laterOfPair = await both({ term: word, tags: ["ai", "seo"] }, afterSite6);
    expect(laterOfPair.posts.map((post) => post.description)).toEqual(inRecordOrder.slice(3));
    expect(laterOfPair.count).toBe(7);
    expect((await both({ term: word, tags: ["ai", "seo", "blog"] })).posts.map((post) => post.description)).toEqual([inRecordOrder[4]]);
    expect((await both({ term: word, tags: ["ai", "seo", "travel"] })).posts).toHaveLength(0);
    // Without a long term, alone, with a short term, or with a band (the page may end before the poorest of these
    // records, as other tests' sites share the market).
    for (const query of [
      { term: "", tags: ["ai", "seo"] },
      { term: "re", tags: ["ai", "seo"] },
      { term: "", tags: ["seo", "ai"], bands: ["mid"] as AuthorityBand[] },
    ]) {
      const ours = (await both(query)).posts.filter((post) => post.description.includes(word));
      expect(ours.length).toBeGreaterThanOrEqual(5);
      expect(ours.map((post) => post.description)).toEqual(inRecordOrder.slice(0, ours.length));
    }
    expect((await both({ term: word, tags: ["travel"] })).posts.map((post) => post.id)).toEqual([untagged.listingId]);
    // A walk checks a long term on the text the index holds (address, description, category, then the tags as
    // #tag#), so a term across two fields, or on a tag, finds there what the index finds.
    for (const term of [`${untaggedHost} about ${word}`, "travel only. blog #travel#"])
      expect((await both({ term, tags: [] })).posts.map((post) => post.id)).toContain(untagged.listingId);
    expect((await both({ term: `${word}, travel only. blog #travel#`, tags: ["travel"] })).posts.map((post) => post.id)).toEqual([
      untagged.listingId,
    ]);
    for (const tags of await tagsOf((await both({ term: "", tags: ["seo", "travel"] })).posts.map((post) => post.id)))
      expect(tags).toEqual(expect.arrayContaining(["seo", "travel"]));
    expect((await both({ term: `${word}zz`, tags: [] })).posts).toHaveLength(0);
    expect((await both({ term: "", tags: ["seo"] })).count).toBeGreaterThanOrEqual(7);
    expect((await both({ term: "re", tags: [] })).count).toBeGreaterThanOrEqual(7);
    // Bands too (every site here has the default score, 50).
    expect((await both({ term: word, tags: [], bands: ["mid"] })).posts).toHaveLength(8);
    expect((await both({ term: word, tags: ["seo"], bands: ["hi", "low"] })).posts).toHaveLength(0);
    // Bands alone have no index to read: the sites are walked in record order, and the same ones are left out (the
    // page may end before the poorest of these records, as other tests' sites share the market).
    const ours = (await both({ term: "", tags: [], bands: ["mid"] })).posts.filter((post) => post.description.includes(word));
    expect(ours.length).toBeGreaterThanOrEqual(5);
    expect(ours.map((post) => post.description)).toEqual(descriptions.slice(0, ours.length));
  });

  it("sorted by record, finds what the index finds for a term of any letters and any length, walked or not", async () => {
    const owner = await trader();
    const word = `fold${crypto.randomUUID().slice(0, 6)}`;
    const long = "a term longer than the fifty bytes a LIKE pattern may have in D1 [1]*?%_";
    const site = await listSite(owner.userId, {
      host: uniqueHost(word),
      description: `Ёлка и Été, ${word}: ${long}. Big \u017Fale on \u212Aeys.`,
      tags: ["travel"],
    });
    await env.DB.prepare("UPDATE sites SET rep_sort = 2 WHERE id = ?").bind(site.siteId).run();
    const viewer = await trader();
    const db = database(env.DB);
    // The index's plan and a walk of every site in record order, for one term.
    const plans = async (term: string) => {
      const search = { term, tags: [], bands: [], sort: "record" as const };
      const [fromIndex, walked] = await Promise.all([
        searchListings(db, viewer.userId, search, null),
        searchListings(db, viewer.userId, search, null, { walkAbove: 0 }),
      ]);
      return [fromIndex, walked].map((result) => result.posts.map((post) => post.id));
    };
    // The index folds the case of every letter, and the long s and the Kelvin sign into ASCII; a term of more than 50
    // bytes is whole.
    for (const term of [
      `ёлка и été, ${word}`,
      `ЁЛКА И ÉTÉ, ${word.toUpperCase()}`,
      "ёЛКа",
      `${word}: ${long}`,
      `${word.toUpperCase()}: ${long.toUpperCase()}`,
      "%_. big sale on keys.",
    ]) {
      expect(await plans(term), term).toEqual([[site.listingId], [site.listingId]]);
    }
    // Wildcards of LIKE and GLOB in a term are characters like any other, and accents are not folded.
    for (const term of [`${word}: a%term`, `${word}: a_term`, `${word}*`, `${word}: ${long.replace("[1]", "[2]")}`, `ёлка и ete, ${word}`]) {
      expect(await plans(term), term).toEqual([[], []]);
    }
  });

  it("sorted by record, a walk keeps the best matches when more match than it reads, page after page, then the sites without a record and the poor ones newest first", async () => {
    const owner = await trader();
    const word = `many${crypto.randomUUID().slice(0, 6)}`;
    // 60 matches: 39 good records in a shuffled order, up to six on each sort key; 15 with no record yet (key 1) and 6
    // poor ones (key 0). Among equal keys the newest indexed site comes first (it was listed later here). The pages
    // (24 a page) cross from the good records to those without one, and from those to the poor ones; a later page asks
    // for a page and one more of the good records after the first page, so a walk that kept any but the best would
    // show other sites.
    const recordOf = (i: number) => (i % 4 === 0 ? 1 : i % 10 === 3 ? 0 : 1000 + Math.floor(((i * 37) % 60) / 7));
    const siteIds: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      const { siteId } = await listSite(owner.userId, {
        host: uniqueHost(`${word}-${i}`),
        description: `Site ${i} about ${word}.`,
        tags: ["travel", "cybersecurity"],
      });
      await env.DB.prepare("UPDATE sites SET rep_sort = ? WHERE id = ?").bind(recordOf(i), siteId).run();
      siteIds.push(siteId);
    }
    const viewer = await trader();
    const db = database(env.DB);
    const pages = async (plan: { walkAbove?: number; walkSites?: number }, tags: string[] = []) => {
      // Without tags the walk reads every site in record order; with one, its sites (site_tags); with two, their
      // pair's (site_tag_pairs).
      const search = { term: word, tags, bands: [], sort: "record" as const };
      const shown: string[][] = [];
      const counts: number[] = [];
      let after: string | null = null;
      do {
        const found = await searchListings(db, viewer.userId, search, after, plan);
        shown.push(found.posts.map((post) => post.description));
        counts.push(found.count);
        after = found.next;
      } while (after && shown.length < 5);
      return { shown, counts };
    };
    const best = Array.from({ length: 60 }, (_, i) => i)
      .sort((a, b) => recordOf(b) - recordOf(a) || b - a)
      .map((i) => `Site ${i} about ${word}.`);
    const size = SEARCH_PAGE_SIZE;
    const expected = { shown: [best.slice(0, size), best.slice(size, 2 * size), best.slice(2 * size)], counts: [60, 60, 60] };
    expect(await pages({})).toEqual(expected);
    // Told to walk: a walk of 30 sites fills the first page within them and holds every good record left after it; a
    // walk of 3 stops short, and every good match is read from the index and sorted (more of them than a page and
    // one, so only the best must be kept). The sites without a record and the poor ones are read from the index in
    // its order either way.
    for (const tags of [[], ["cybersecurity", "travel"], ["travel", "cybersecurity"], ["travel"]]) {
      expect(await pages({}, tags)).toEqual(expected);
      expect(await pages({ walkAbove: 0 }, tags)).toEqual(expected);
      expect(await pages({ walkAbove: 0, walkSites: 30 }, tags)).toEqual(expected);
      expect(await pages({ walkAbove: 0, walkSites: 3 }, tags)).toEqual(expected);
    }
    // A page that starts inside the sites without a record (after site 40) or inside the poor ones (after site 53, the
    // newest poor one) goes on from there, newest first.
    const startingAfter = async (i: number, plan: { walkAbove?: number }, tags: string[]) => {
      const after = `r${recordOf(i)}_${await searchRowidOf(siteIds[i]!)}`;
      const found = await searchListings(db, viewer.userId, { term: word, tags, bands: [], sort: "record" }, after, plan);
      return found.posts.map((post) => post.description);
    };
    for (const tags of [[], ["travel"], ["travel", "cybersecurity"]])
      for (const plan of [{}, { walkAbove: 0 }]) {
        expect(await startingAfter(40, plan, tags)).toEqual(best.slice(best.indexOf(`Site 40 about ${word}.`) + 1).slice(0, SEARCH_PAGE_SIZE));
        expect(await startingAfter(53, plan, tags)).toEqual([43, 33, 23, 13, 3].map((i) => `Site ${i} about ${word}.`));
      }
  });

  it("sorted by record past the count line's hundred matches, walks the few good records and reads the rest from the index newest first", async () => {
    const owner = await trader();
    const word = `past${crypto.randomUUID().slice(0, 6)}`;
    // 104 matches, more than the count line counts, so the plan is worked out from the estimate: three good records,
    // one poor, and 100 with no record yet. Sorted by record, the good ones come first (walked: the window holds
    // them all), then the others newest first, the poor one last.
    const recordOf = (i: number) => (i === 10 ? 5 : i === 40 ? 9 : i === 70 ? 7 : i === 90 ? 0 : 1);
    for (let i = 0; i < 104; i += 1) {
      const { siteId } = await listSite(owner.userId, {
        host: uniqueHost(`${word}-${i}`),
        description: `Site ${i} about ${word}.`,
        tags: ["dropshipping"],
      });
      if (recordOf(i) !== 1) await env.DB.prepare("UPDATE sites SET rep_sort = ? WHERE id = ?").bind(recordOf(i), siteId).run();
    }
    const viewer = await trader();
    const db = database(env.DB);
    const best = Array.from({ length: 104 }, (_, i) => i)
      .sort((a, b) => recordOf(b) - recordOf(a) || b - a)
      .map((i) => `Site ${i} about ${word}.`);
    expect(best.slice(0, 4)).toEqual([40, 70, 10, 103].map((i) => `Site ${i} about ${word}.`));
    expect(best.at(-1)).toBe(`Site 90 about ${word}.`);
    // As the page shows it, and with a window too small for the good records (read from the index and sorted).
    for (const plan of [{}, { walkSites: 2 }])
      for (const tags of [[], ["dropshipping"]]) {
        const shown: string[] = [];
        let after: string | null = null;
        let pages = 0;
        do {
          const found = await searchListings(db, viewer.userId, { term: word, tags, bands: [], sort: "record" }, after, plan);
          expect(found.count).toBe(100);
          shown.push(...found.posts.map((post) => post.description));
          after = found.next;
          pages += 1;
        } while (after && pages < 10);
        expect(shown).toEqual(best);
      }
    const page = await read(await get(`/search?term=${word}&sort=record`, { cookie: viewer.cookie }));
    expect(page).toContain("100+ sites available");
    expect(page).toMatch(/href="\/search\?[^"]*after=r1_\d+"/);
    // The market sorted by record is the same order (other tests' sites share it), page after page.
    const inMarket: string[] = [];
    let path: string | null = "/market?sort=record";
    for (let pages = 0; path && pages < 30; pages += 1) {
      const html = await read(await get(path, { cookie: viewer.cookie }));
      // Each description shows more than once on a page (the card, the page's data); once per page.
      inMarket.push(...new Set([...html.matchAll(new RegExp(`Site \\d+ about ${word}\\.`, "g"))].map((m) => m[0])));
      path = /href="(\/market\?sort=record&amp;after=r\d+_\d+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&") ?? null;
    }
    expect(inMarket).toEqual(best);
  });

  it("sorted by record, every kind of search pages through its matches best record first, newest first among equal records", async () => {
    const owner = await trader();
    const word = `orc${crypto.randomUUID().slice(0, 6)}`;
    // 50 sites: 10 good records, 20 without a record and 20 poor, so the pages end inside the sites without a record
    // and inside the poor ones. Other tests' sites share the tags and are part of the order too.
    const recordOf = (i: number) => (i % 5 === 0 ? 1000 + ((i * 7) % 13) : i % 5 < 3 ? 1 : 0);
    for (let i = 0; i < 50; i += 1) {
      const { siteId } = await listSite(owner.userId, {
        host: uniqueHost(`${word}-${i}`),
        description: `Site ${i} about ${word}, q9.`,
        tags: i % 2 === 0 ? ["fin-tech", "news-journalism"] : ["fin-tech", "news-journalism", "travel"],
      });
      if (recordOf(i) !== 1) await env.DB.prepare("UPDATE sites SET rep_sort = ? WHERE id = ?").bind(recordOf(i), siteId).run();
    }
    const viewer = await trader();
    const pagesOf = (query: { term: string; tags: string[]; bands?: AuthorityBand[] }, sort: "newest" | "record", plan = {}) =>
      searchPages(viewer.userId, { bands: [], ...query, sort }, plan);
    // The expected order: the search's matches newest first, sorted by their sites' record key, then row id.
    const expectedOrder = async (query: { term: string; tags: string[]; bands?: AuthorityBand[] }) => {
      const ids = await pagesOf(query, "newest");
      const { results } = await env.DB.prepare(
        "SELECT l.id AS id, s.rep_sort AS k, s.search_rowid AS r FROM listings l JOIN sites s ON s.id = l.site_id WHERE l.id IN (SELECT value FROM json_each(?))",
      )
        .bind(JSON.stringify(ids))
        .all<{ id: string; k: number; r: number }>();
      return results.sort((a, b) => b.k - a.k || b.r - a.r).map((row) => row.id);
    };
    for (const query of [
      { term: word, tags: [] },
      { term: word, tags: ["fin-tech"] },
      { term: word, tags: ["news-journalism", "fin-tech", "travel"] },
      { term: "q9", tags: [] },
      { term: "", tags: ["fin-tech"] },
      { term: "", tags: ["fin-tech", "news-journalism"] },
      { term: "", tags: ["fin-tech", "news-journalism", "travel"] },
      { term: word, tags: [], bands: ["mid"] as AuthorityBand[] },
    ]) {
      const expected = await expectedOrder(query);
      expect(expected.length).toBeGreaterThanOrEqual(25);
      for (const plan of [{}, { walkAbove: 0 }, { walkAbove: 0, walkSites: 3 }]) expect(await pagesOf(query, "record", plan)).toEqual(expected);
    }
  });

  it("shares a statement between searches of one shape, each with its own viewer, term and page", async () => {
    const [first, second] = [await trader(), await trader()];
    const words = [`sh${crypto.randomUUID().slice(0, 6)}`, `sh${crypto.randomUUID().slice(0, 6)}`];
    const sites = await Promise.all(
      [first, second].flatMap((owner) => words.map((word) => listSite(owner.userId, { host: uniqueHost(word), description: `About ${word}` }))),
    );
    const db = database(env.DB);
    const found = async (viewer: { userId: string }, term: string, sort: "newest" | "record" = "newest") =>
      (await searchListings(db, viewer.userId, { term, tags: [], bands: [], sort })).posts.map((post) => post.id);
    // The same shape (a long term, newest first, then sorted by record) for each viewer and term in turn: each finds the
    // other's site about its own word, never its own.
    for (const sort of ["newest", "record"] as const) {
      expect(await found(first, words[0]!, sort)).toEqual([sites[2]!.listingId]);
      expect(await found(second, words[0]!, sort)).toEqual([sites[0]!.listingId]);
      expect(await found(first, words[1]!, sort)).toEqual([sites[3]!.listingId]);
      expect(await found(second, words[1]!, sort)).toEqual([sites[1]!.listingId]);
    }
  });

  it("with three tags or more, finds exactly the sites with every one of them, page after page, sorted either way", async () => {
    const owner = await trader();
    const base = ["cybersecurity", "dropshipping", "product-service"];
    // 140 sites: most with the three base tags (more than the count line's hundred), some with two of them; business and
    // technology on some of each; good records, none and poor ones mixed. Other tests' sites with the tags count too.
    for (let i = 0; i < 140; i += 1) {
      const tags = [...(i % 7 === 0 ? base.slice(0, 2) : base), ...(i % 2 === 1 ? ["business"] : []), ...(i % 3 === 0 ? ["technology"] : [])];
      const { siteId } = await listSite(owner.userId, { host: uniqueHost(`all-tags-${i}`), tags });
      const key = i % 9 === 0 ? 1000 + (i % 5) : i % 4 === 0 ? 0 : 1;
      if (key !== 1) await env.DB.prepare("UPDATE sites SET rep_sort = ? WHERE id = ?").bind(key, siteId).run();
    }
    const every = CATEGORY_TAGS.map((tag) => tag.id);
    const everyTag = await listSite(owner.userId, { host: uniqueHost("every-tag"), tags: every });
    await listSite(owner.userId, { host: uniqueHost("every-tag-unverified"), tags: every, verified: false });
    const viewer = await trader();
    const mine = await listSite(viewer.userId, { host: uniqueHost("every-tag-mine"), tags: every });
    const pagesOf = (tags: string[], sort: "newest" | "record", plan = {}) => searchPages(viewer.userId, { term: "", tags, bands: [], sort }, plan);
    // What the rules say: the viewer's tradable sites whose tags include every chosen one, in the order shown.
    const expected = async (tags: string[], sort: "newest" | "record") =>
      (
        await env.DB.prepare(
          `SELECT l.id AS id FROM listings l JOIN sites s ON s.id = l.site_id
           WHERE l.active = 1 AND s.verified = 1 AND s.user_id <> ?
             AND (SELECT count(DISTINCT value) FROM json_each(s.tags) WHERE value IN (SELECT value FROM json_each(?))) = ?
           ORDER BY ${sort === "record" ? "s.rep_sort DESC, " : ""}s.search_rowid DESC`,
        )
          .bind(viewer.userId, JSON.stringify(tags), tags.length)
          .all<{ id: string }>()
      ).results.map((row) => row.id);
    for (const tags of [
      ["product-service", "cybersecurity", "dropshipping"],
      ["business", "technology", "cybersecurity", "dropshipping"],
      ["technology", "product-service", "business", "dropshipping", "cybersecurity"],
      every,
    ]) {
      const newest = await expected(tags, "newest");
      expect(newest.length).toBeGreaterThan(tags.length === 3 ? 100 : 0);
      expect(await pagesOf(tags, "newest")).toEqual(newest);
      const byRecord = await expected(tags, "record");
      for (const plan of [{}, { walkAbove: 0 }]) expect(await pagesOf(tags, "record", plan)).toEqual(byRecord);
    }
    // Withdrawn, so that the other tests' searches with every tag still find nothing.
    await env.DB.prepare("UPDATE listings SET active = 0 WHERE id IN (?, ?)").bind(everyTag.listingId, mine.listingId).run();
  });

  it("stays within D1's 100 bound values a statement, with every tag and band, on every page, sorted either way", async () => {
    const viewer = await trader();
    const bound: number[] = [];
    // The binding as drizzle uses it, counting the values bound to each statement.
    const counting = new Proxy(env.DB, {
      get(target, key) {
        if (key !== "prepare") return Reflect.get(target, key, target);
        return (query: string) => {
          const statement = target.prepare(query);
          return new Proxy(statement, {
            get(inner, name) {
              if (name === "bind")
                return (...values: unknown[]) => {
                  bound.push(values.length);
                  return inner.bind(...values);
                };
              const value = Reflect.get(inner, name, inner);
              return typeof value === "function" ? value.bind(inner) : value;
            },
          });
        };
      },
    });
    const db = database(counting);
    const tags = CATEGORY_TAGS.map((tag) => tag.id);
    const bands = AUTHORITY_BANDS.map((band) => band.id);
    for (const term of ["", "ab", "a longer term"])
      for (const sort of ["newest", "record"] as const)
        for (const after of [null, sort === "record" ? "r5_1000" : "1000"]) {
          const found = await searchListings(db, viewer.userId, { term, tags, bands, sort }, after, { walkAbove: 0 });
          expect(found.count).toBe(0);
        }
    expect(bound.length).toBeGreaterThanOrEqual(12);
    expect(Math.max(...bound)).toBeLessThanOrEqual(100);
  });

  it("finds a site by its new description after settings are saved", async () => {
    const owner = await signUp();
    const viewer = await signUp();
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE user_id = ?").bind(owner.userId).run();
    const word = `kw${crypto.randomUUID().slice(0, 8)}`;
    const saved = await post("/mysite/settings", { description: `Now about ${word}`, listed: "on", connects: "5" }, { cookie: owner.cookie });
    expect(saved.status).toBe(302);
    expect(await read(await get(`/search?term=${word}`, { cookie: viewer.cookie }))).toContain("1+ sites available");
  });
});

describe("settings", () => {
  it("saves the description and the three chip lists of the active site", async () => {
    const owner = await signUp();
    const body = new URLSearchParams([
      ["description", "  A new description  "],
      ["contentTypes", "feature"],
      ["contentTypes", "sub-link"],
      ["materials", "logo"],
      ["tags", "seo"],
      ["tags", "ai"],
    ]);
    const response = await post("/mysite/settings", body, { cookie: owner.cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/mysite/settings?notice=settings-saved");
    const site = await env.DB.prepare("SELECT description, content_types, materials, tags FROM sites WHERE user_id = ?").bind(owner.userId).first();
    expect(site).toEqual({ description: "A new description", content_types: '["feature","sub-link"]', materials: '["logo"]', tags: '["seo","ai"]' });
    const page = await read(await get("/mysite/settings?notice=settings-saved", { cookie: owner.cookie }));
    expect(page).toContain("Settings saved");
  });

  it("clears a list when no chip is chosen, and refuses unknown ids and a blank description", async () => {
    const owner = await signUp();
    await post(
      "/mysite/settings",
      new URLSearchParams([
        ["description", "x"],
        ["tags", "seo"],
      ]),
      { cookie: owner.cookie },
    );
    await post("/mysite/settings", { description: "x" }, { cookie: owner.cookie });
    expect(await env.DB.prepare("SELECT tags FROM sites WHERE user_id = ?").bind(owner.userId).first()).toEqual({ tags: "[]" });
    const unknown = await post(
      "/mysite/settings",
      new URLSearchParams([
        ["description", "x"],
        ["tags", "hacking"],
      ]),
      { cookie: owner.cookie },
    );
    expect(unknown.status).toBe(400);
    const blank = await post("/mysite/settings", { description: "   " }, { cookie: owner.cookie });
    expect(blank.status).toBe(400);
    expect(await read(blank)).toContain(messages.enterDescription);
    const invisible = await post("/mysite/settings", { description: "\u200B\u3164\u200D" }, { cookie: owner.cookie });
    expect(invisible.status).toBe(400);
    expect(await read(invisible)).toContain(messages.enterDescription);
    expect(await env.DB.prepare("SELECT description FROM sites WHERE user_id = ?").bind(owner.userId).first()).toEqual({ description: "x" });
  });

  it("lists the site in the market at its price, and takes it out again", async () => {
    const owner = await signUp();
    const viewer = await signUp();
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE user_id = ?").bind(owner.userId).run();
    const list = new URLSearchParams([
      ["description", "Listed from settings"],
      ["contentTypes", "feature"],
      ["materials", "logo"],
      ["listed", "on"],
      ["connects", "12"],
    ]);
    expect((await post("/mysite/settings", list, { cookie: owner.cookie })).status).toBe(302);
    const listing = await env.DB.prepare("SELECT active, connects, content_types FROM listings WHERE user_id = ?").bind(owner.userId).first();
    expect(listing).toEqual({ active: 1, connects: 12, content_types: '["feature"]' });
    const market = await read(await get("/market", { cookie: viewer.cookie }));
    expect(market).toContain(`class="post-url">${owner.url}<`);
    const settings = await read(await get("/mysite/settings", { cookie: owner.cookie }));
    expect(settings).toMatch(/name="listed" checked=""/);
    expect(settings).toContain('value="12"');

    expect((await post("/mysite/settings", { description: "Not listed now" }, { cookie: owner.cookie })).status).toBe(302);
    expect(await env.DB.prepare("SELECT active FROM listings WHERE user_id = ?").bind(owner.userId).first()).toEqual({ active: 0 });
    expect(await read(await get("/market", { cookie: viewer.cookie }))).not.toContain(`class="post-url">${owner.url}<`);

    const noPrice = await post("/mysite/settings", { description: "x", listed: "on" }, { cookie: owner.cookie });
    expect(noPrice.status).toBe(400);
    expect(await read(noPrice)).toContain(messages.connectsRange);
    expect((await post("/mysite/settings", { description: "x", listed: "on", connects: "100" }, { cookie: owner.cookie })).status).toBe(400);
  });

  it("a tab opened before another took the site off the market saves its other changes and leaves the listing as it is now", async () => {
    const owner = await signUp();
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE user_id = ?").bind(owner.userId).run();
    const form = (fields: Record<string, string>, contentTypes = ["feature"]) =>
      new URLSearchParams([...contentTypes.map((type) => ["contentTypes", type]), ["materials", "logo"], ...Object.entries(fields)]);
    const save = async (fields: Record<string, string>, contentTypes?: string[]) =>
      (await post("/mysite/settings", form(fields, contentTypes), { cookie: owner.cookie })).status;
    const shownListing = async () =>
      /name="shownListing" value="([^"]*)"/.exec(await read(await get("/mysite/settings", { cookie: owner.cookie })))?.[1];
    const listing = () => env.DB.prepare("SELECT active, connects, content_types FROM listings WHERE user_id = ?").bind(owner.userId).first();

    expect(await save({ description: "Listed", listed: "on", connects: "12" })).toBe(302);
    // Tab A and tab B both show the site listed at 12; B takes it off the market.
    expect(await shownListing()).toBe("12");
    expect(await save({ description: "Listed", shownListing: "12" })).toBe(302);
    expect(await listing()).toMatchObject({ active: 0 });
    // A, still showing it listed at 12, saves a new description and content type: the listing stays off the market
    // (and offers the new content type when it is listed again).
    expect(
      await save({ description: "A new description from tab A", listed: "on", connects: "12", shownListing: "12" }, ["feature", "blog-post"]),
    ).toBe(302);
    expect(await listing()).toEqual({ active: 0, connects: 12, content_types: '["feature","blog-post"]' });
    expect(await env.DB.prepare("SELECT description FROM sites WHERE user_id = ?").bind(owner.userId).first()).toEqual({
      description: "A new description from tab A",
    });
    // The mirror case: a tab that showed the site off the market saves while another tab listed it: it stays listed.
    expect(await save({ description: "Listed", listed: "on", connects: "9", shownListing: "off" })).toBe(302);
    expect(await listing()).toMatchObject({ active: 1, connects: 9 });
    expect(await shownListing()).toBe("9");
    expect(await save({ description: "From the tab that showed it off", shownListing: "off" })).toBe(302);
    expect(await listing()).toMatchObject({ active: 1, connects: 9 });
    // What a form changes in the listing is saved: A lists it again at a new price.
    expect(await save({ description: "x", listed: "on", connects: "15", shownListing: "12" })).toBe(302);
    expect(await listing()).toMatchObject({ active: 1, connects: 15 });
  });

  it("changes only the user's own site", async () => {
    const owner = await signUp();
    const intruder = await signUp();
    const ownerSite = await env.DB.prepare("SELECT id, description FROM sites WHERE user_id = ?")
      .bind(owner.userId)
      .first<{ id: string; description: string }>();
    expect((await post("/sites/active", { siteId: ownerSite!.id }, { cookie: intruder.cookie })).status).toBe(403);
    // A session that somehow names the owner's site is still only ever the intruder's own sites.
    await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(ownerSite!.id, intruder.userId).run();
    expect((await post("/mysite/settings", { description: "Hijacked description from elsewhere" }, { cookie: intruder.cookie })).status).toBe(302);
    // And the service refuses anyone else's site outright.
    const settings = { description: "Hijacked again, directly", tags: [], materials: [], contentTypes: [], listed: false };
    expect(await updateSiteSettings(database(env.DB), intruder.userId, ownerSite!.id, settings, Date.now())).toBe(false);
    expect(await env.DB.prepare("SELECT description FROM sites WHERE id = ?").bind(ownerSite!.id).first()).toEqual({
      description: ownerSite!.description,
    });
    expect(await env.DB.prepare("SELECT description FROM sites WHERE user_id = ?").bind(intruder.userId).first()).toEqual({
      description: "Hijacked description from elsewhere",
    });
    const intruderPage = await read(await get("/mysite", { cookie: intruder.cookie }));
    expect(intruderPage).not.toContain(owner.url);
  });
});

describe("feedback", () => {
  it("stores feedback and thanks the user; blank feedback is refused", async () => {
    const user = await signUp();
    const blank = await post("/feedback?back=/market", { feedback: "  \n " }, { cookie: user.cookie });
    expect(blank.status).toBe(400);
    expect(await read(blank)).toContain(messages.feedbackEmpty);
    // Zero-width spaces and a blank Braille pattern show as nothing: no feedback either.
    const invisible = await post("/feedback?back=/market", { feedback: "\u200B\u200B \u2800" }, { cookie: user.cookie });
    expect(invisible.status).toBe(400);
    expect(await read(invisible)).toContain(messages.feedbackEmpty);
    const sent = await post("/feedback?back=%2Fmarket%3Ffeedback%3Dtrue", { feedback: "Love it" }, { cookie: user.cookie });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/market?notice=feedback-sent");
    expect(await env.DB.prepare("SELECT text FROM feedback WHERE user_id = ?").bind(user.userId).first()).toEqual({ text: "Love it" });
  });

  it("feedback that cannot be stored is logged and the dialog still closes, never an error page", async () => {
    const user = await signUp();
    // The session points at a site that is not there: the insert breaks its foreign key.
    await env.DB.prepare("UPDATE sessions SET active_site_id = 'gone' WHERE user_id = ?").bind(user.userId).run();
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const sent = await post("/feedback?back=/market", { feedback: "Please keep this" }, { cookie: user.cookie });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("Location")).toBe("/market");
    expect(logged).toHaveBeenCalledWith("feedback not saved", expect.objectContaining({ text: "Please keep this" }), expect.anything());
    logged.mockRestore();
  });

  it("opens the dialog from /market?feedback=true", async () => {
    const user = await signUp();
    expect(await read(await get("/market?feedback=true", { cookie: user.cookie }))).toContain("Send us feedback");
  });
});

describe("site-add form from the market", () => {
  /** Sends the form; the site listed, it goes back to the market with a notice that says whether others see it yet. */
  async function listFromMarket(cookie: string, fields: Record<string, string>, seen = false) {
    const response = await post("/add-site?source=market", fields, { cookie });
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(`/market?notice=${seen ? "site-listed" : "site-listed-unverified"}`);
    const market = await read(await get(response.headers.get("Location")!, { cookie }));
    expect(market).toContain(seen ? messages.siteListed : messages.siteListedUnverified);
  }

  it("creates the site and its listing and returns to the market", async () => {
    const user = await signUp();
    const host = uniqueHost("listed");
    await listFromMarket(user.cookie, { url: host, category: "product", description: "We make tools", connects: "12" });
    const row = await env.DB.prepare("SELECT s.category, l.connects FROM sites s JOIN listings l ON l.site_id = s.id WHERE s.host = ?")
      .bind(host)
      .first();
    expect(row).toEqual({ category: "product", connects: 12 });
  });

  it("lists a site the user already has, at the new price and with the form's category and description, again and again", async () => {
    const user = await signUp(undefined, `https://www.${uniqueHost("own")}/`);
    const host = user.url.replace(/^https:\/\/www\.|\/$/g, "");
    const listingOf = () =>
      env.DB.prepare(
        "SELECT s.category, s.description, l.connects, l.active, (SELECT COUNT(*) FROM sites WHERE host = s.host) AS sites FROM sites s JOIN listings l ON l.site_id = s.id WHERE s.host = ?",
      )
        .bind(host)
        .all();
    // Typed as it is shown, without the scheme and www. that the account's address has.
    await listFromMarket(user.cookie, { url: host, category: "product", description: "Now in the market", connects: "9" });
    expect((await listingOf()).results).toEqual([{ category: "product", description: "Now in the market", connects: 9, active: 1, sites: 1 }]);

    // Verified, taken out of the market in Settings, then listed from the market again at another price (typed with
    // a query right after the host, still the same site).
    await env.DB.batch([
      env.DB.prepare("UPDATE sites SET verified = 1 WHERE host = ?").bind(host),
      env.DB.prepare("UPDATE listings SET active = 0 WHERE site_id = (SELECT id FROM sites WHERE host = ?)").bind(host),
    ]);
    await listFromMarket(user.cookie, { url: `${host}?ref=market`, category: "blog", description: "Back in the market", connects: "4" }, true);
    expect((await listingOf()).results).toEqual([{ category: "blog", description: "Back in the market", connects: 4, active: 1, sites: 1 }]);
  });

  it("says whether others see the site as the listing leaves it, when a re-check or a deletion comes in between", async () => {
    const user = await signUp();
    const site = await env.DB.prepare("SELECT id, host FROM sites WHERE user_id = ?").bind(user.userId).first<{ id: string; host: string }>();
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE id = ?").bind(site!.id).run();
    const db = database(env.DB);
    // The database as another request changes it between the form's read of the site and its batch.
    const meanwhile = (sql: string): typeof db =>
      Object.assign(Object.create(db), {
        batch: async (statements: Parameters<typeof db.batch>[0]) => {
          await env.DB.prepare(sql).bind(site!.id).run();
          return db.batch(statements);
        },
      });
    const form = { userId: user.userId, url: site!.host, category: "blog", description: "Listed while it was re-checked" };

    const unverified = await addSiteWithListing(meanwhile("UPDATE sites SET verified = 0 WHERE id = ?"), form, 7, Date.now());
    expect(unverified).toEqual({ ok: true, siteId: site!.id, existing: true, verified: false });

    const deleted = await addSiteWithListing(meanwhile("DELETE FROM sites WHERE id = ?"), form, 7, Date.now());
    expect(deleted).toEqual({ ok: false, message: messages.addWebsiteFailed });
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM listings WHERE site_id = ?").bind(site!.id).first("n")).toBe(0);
  });

  it("does not take another blog on the same platform for the one the user has", async () => {
    const user = await signUp();
    const first = `medium.com/@${crypto.randomUUID().slice(0, 8)}`;
    await listFromMarket(user.cookie, { url: first, category: "blog", description: "My first blog", connects: "5" });
    const response = await post(
      "/add-site?source=market",
      { url: "medium.com/@someone-else", category: "blog", description: "Another blog", connects: "5" },
      { cookie: user.cookie },
    );
    expect(response.status).toBe(409);
    expect(await read(response)).toContain(messages.siteOnHostAlready("medium.com"));
    const sites = await env.DB.prepare("SELECT url, description FROM sites WHERE user_id = ? AND host = 'medium.com'").bind(user.userId).all();
    expect(sites.results).toEqual([{ url: first, description: "My first blog" }]);

    // The same blog, typed in capitals and with a post's path, is the blog the user has: listed again.
    await listFromMarket(user.cookie, {
      url: `https://MEDIUM.com/${first.slice("medium.com/".length).toUpperCase()}/a-post/`,
      category: "blog",
      description: "My blog again",
      connects: "6",
    });
    const again = await env.DB.prepare(
      "SELECT s.url, s.description, l.connects FROM sites s JOIN listings l ON l.site_id = s.id WHERE s.user_id = ? AND s.host = 'medium.com'",
    )
      .bind(user.userId)
      .all();
    expect(again.results).toEqual([{ url: first, description: "My blog again", connects: 6 }]);
  });

  it("shows every message, including the connects range, and needs a signed-in user", async () => {
    const user = await signUp();
    const response = await post("/add-site?source=market", { url: "x", connects: "100" }, { cookie: user.cookie });
    expect(response.status).toBe(400);
    const page = await read(response);
    for (const message of [messages.invalidUrl, messages.selectCategory, messages.enterDescription, messages.connectsRange])
      expect(page).toContain(message);
    expect(page).not.toContain('name="email"');
    expect(page).toMatch(/href="\/market"[^>]*>Exit</);
    expect((await get("/add-site?source=market")).headers.get("Location")).toMatch(/^\/login/);
  });

  it("sends a signed-in owner who typed a site on the landing page to the market's form with it, not the waitlist", async () => {
    const user = await signUp();
    const fromHero = await get("/add-site?source=hero&url=example-garden.com", { cookie: user.cookie });
    expect(fromHero.status).toBe(302);
    expect(fromHero.headers.get("Location")).toBe("/add-site?source=market&url=example-garden.com");
    expect((await get("/add-site?source=hero", { cookie: user.cookie })).headers.get("Location")).toBe("/add-site?source=market");
    // Signed out, the landing page's form is the waitlist's, as before.
    expect((await get("/add-site?source=hero&url=example-garden.com")).status).toBe(200);
  });

  it("source other stores a waitlist entry without an email", async () => {
    const host = uniqueHost("other");
    const response = await post("/add-site?source=other", { url: host, category: "blog", description: "Other source" });
    expect(response.headers.get("Location")).toBe("/newbeta");
    expect(await env.DB.prepare("SELECT email, source FROM beta_signups WHERE host = ?").bind(host).first()).toEqual({
      email: null,
      source: "other",
    });
  });
});

describe("dashboard", () => {
  it("counts offers of the active site and lists them with their empty states", async () => {
    const me = await signUp();
    const other = await signUp();
    const empty = await read(await get("/mysite", { cookie: me.cookie }));
    expect(empty).toContain("Happy trading with");
    expect(empty).toContain("No trades yet, get the ball rolling by sending an offer!");
    expect(empty).toContain("No offers yet, throw your hat in the ring!");
    expect(empty).toContain(messages.verifyBanner);

    // Made the way users make them: proposals to listings, then answers.
    await env.DB.prepare("UPDATE sites SET verified = 1 WHERE user_id IN (?, ?)").bind(me.userId, other.userId).run();
    const mine = await listSite(me.userId, { host: uniqueHost("mine"), connects: 2 });
    await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(mine.siteId, me.userId).run();
    const theirs = await Promise.all([1, 2, 3].map((i) => listSite(other.userId, { host: uniqueHost(`theirs${i}`), connects: 5 })));
    const otherSecond = await trader();
    const latest = async (userId: string) =>
      (await env.DB.prepare("SELECT id FROM offers WHERE sender_user_id = ? ORDER BY created_at DESC LIMIT 1").bind(userId).first<{ id: string }>())!
        .id;
    // Received: two pending (one from the other user's first site, proposed while it is their active site), one declined.
    expect((await propose(other.cookie, mine.listingId)).status).toBe(302);
    // Sent by me: one still pending, one accepted (a trade; answering it makes its site the other user's active one).
    expect((await propose(me.cookie, theirs[0]!.listingId)).status).toBe(302);
    expect((await propose(me.cookie, theirs[1]!.listingId)).status).toBe(302);
    expect((await act(other.cookie, await latest(me.userId), [["intent", "accept"]])).status).toBe(302);
    expect((await propose(otherSecond.cookie, mine.listingId)).status).toBe(302);
    const third = await trader();
    expect((await propose(third.cookie, mine.listingId)).status).toBe(302);
    expect((await act(me.cookie, await latest(third.userId), [["intent", "decline"]])).status).toBe(302);
    const page = await read(await get("/mysite", { cookie: me.cookie }));
    const counter = (label: string) => page.match(new RegExp(`<strong>(\\d+)</strong><span>${label}</span>`))?.[1];
    expect(counter("Received Offers")).toBe("2");
    expect(counter("Pending Offers")).toBe("1");
    expect(counter("Trades")).toBe("1");
    // 20 starter connects, less the 5 the pending offer holds and the 5 the trade spent.
    expect(counter("Connects")).toBe("10");
    expect(page).not.toContain("No trades yet");
    expect(page).toContain(other.url);
  });

  it("counts every offer, not only the ones the lists show", async () => {
    const me = await trader();
    const mine = await listSite(me.userId, { host: uniqueHost("popular"), connects: 1 });
    await env.DB.prepare("UPDATE sessions SET active_site_id = ? WHERE user_id = ?").bind(mine.siteId, me.userId).run();
    // 205 trades, each a proposal accepted: 11 partners, 19 each (their starter connects, under the hourly limit).
    const partners = await Promise.all(Array.from({ length: 11 }, () => trader()));
    let trades = 0;
    for (const partner of partners) {
      for (let i = 0; i < 19 && trades < 205; i += 1, trades += 1) {
        expect((await propose(partner.cookie, mine.listingId)).status).toBe(302);
        const offer = await env.DB.prepare("SELECT id FROM offers WHERE sender_user_id = ? AND status = 'pending'")
          .bind(partner.userId)
          .first<{ id: string }>();
        expect((await act(me.cookie, offer!.id, [["intent", "accept"]])).status).toBe(302);
      }
    }
    const page = await read(await get("/mysite", { cookie: me.cookie }));
    expect(page).toMatch(/<strong>205<\/strong><span>Trades<\/span>/);
  });

  it("suggests sites about the day's tag when enough match, and random sites otherwise", async () => {
    const me = await signUp();
    const other = await signUp();
    const none = await read(await get("/mysite", { cookie: me.cookie }));
    expect(none).toContain("Try these sites<");
    expect(none).toContain("Try something new");
    await post(
      "/mysite/settings",
      new URLSearchParams([
        ["description", "x"],
        ["tags", "fin-tech"],
      ]),
      { cookie: me.cookie },
    );
    for (let i = 0; i < 3; i += 1) await listSite(other.userId, { host: uniqueHost("fintech"), tags: ["fin-tech"] });
    const tagged = await read(await get("/mysite", { cookie: me.cookie }));
    expect(tagged).toContain("Try these sites about Fin-tech");
  });

  it("samples suggestions from a random point of the index, wrapping round to the start, tradable sites only", async () => {
    const db = database(env.DB);
    const me = await signUp();
    const other = await signUp();
    const mine = await listSite(me.userId, { host: uniqueHost("mine"), tags: ["fin-tech"] });
    await listSite(other.userId, { host: uniqueHost("hidden"), tags: ["fin-tech"], verified: false });
    for (let i = 0; i < 4; i += 1) await listSite(other.userId, { host: uniqueHost("fintech"), tags: ["fin-tech"] });
    for (let i = 0; i < 6; i += 1) await listSite(other.userId, { host: uniqueHost("other") });
    const tradable = await env.DB.prepare(
      "SELECT s.id, s.tags FROM sites s JOIN listings l ON l.site_id = s.id AND l.active = 1 WHERE s.verified = 1 AND s.user_id != ? ORDER BY s.search_rowid",
    )
      .bind(me.userId)
      .all<{ id: string; tags: string }>();
    const ids = tradable.results.map((site) => site.id);
    const taggedIds = tradable.results.filter((site) => site.tags.includes("fin-tech")).map((site) => site.id);
    const now = Date.UTC(2026, 10, 22);
    for (const fraction of [0, 0.5, 0.999999]) {
      const found = (await dashboardFor(db, me.userId, mine.siteId, now, "UTC", () => fraction)).suggestions;
      expect(found.tag).toBe("fin-tech");
      expect(found.matched.length).toBe(Math.min(5, taggedIds.length));
      expect(found.matched.every((site) => taggedIds.includes(site.siteId))).toBe(true);
      expect(found.somethingNew.length).toBe(5);
      expect(found.somethingNew.every((site) => ids.includes(site.siteId))).toBe(true);
    }
    // From the very start of the index: the first tradable sites in index order.
    const first = (await dashboardFor(db, me.userId, mine.siteId, now, "UTC", () => 0)).suggestions;
    expect(first.somethingNew.map((site) => site.siteId)).toEqual(ids.slice(0, 5));
    // From past the end: round to the start again.
    const wrapped = (await dashboardFor(db, me.userId, mine.siteId, now, "UTC", () => 1)).suggestions;
    expect(wrapped.somethingNew.map((site) => site.siteId)).toEqual(
      ids.length > 5 && ids.at(-1) ? [ids.at(-1), ...ids.slice(0, 4)] : ids.slice(0, 5),
    );
  });
});

describe("the day's tag", () => {
  it("is the site's stored tags in turn by the viewer's weekday, in the suggestions' query as on the page", async () => {
    const db = database(env.DB);
    const me = await signUp();
    const other = await signUp();
    const mine = await listSite(me.userId, { host: uniqueHost("mine"), tags: ["seo", "ai", "travel"] });
    // Its text spells both tags' tokens; its one tag is neither.
    const posing = await listSite(other.userId, { host: uniqueHost("posing"), description: "Says #ai# and #seo# in its text", tags: ["travel"] });
    for (const tag of ["seo", "ai"]) for (let i = 0; i < 3; i += 1) await listSite(other.userId, { host: uniqueHost(tag), tags: [tag] });
    const { at, last } = (await env.DB.prepare("SELECT (SELECT search_rowid FROM sites WHERE id = ?) AS at, max(search_rowid) AS last FROM sites")
      .bind(posing.siteId)
      .first<{ at: number; last: number }>())!;
    const sundayEvening = Date.UTC(2026, 10, 22, 20, 0);
    for (const [timeZone, tag] of [
      ["UTC", "seo"],
      ["Pacific/Auckland", "ai"],
    ] as const) {
      // From just before the posing site.
      const { suggestions } = await dashboardFor(db, me.userId, mine.siteId, sundayEvening, timeZone, () => (at - 1) / last);
      expect(suggestions.tag).toBe(tag);
      expect(suggestions.matched.length).toBeGreaterThanOrEqual(3);
      for (const found of suggestions.matched) {
        const stored = await env.DB.prepare("SELECT tags FROM sites WHERE id = ?").bind(found.siteId).first<{ tags: string }>();
        expect(JSON.parse(stored!.tags)).toContain(tag);
      }
    }
  });
});

describe("the tags' indexes (site_tags for the suggestions and search, site_tag_pairs and site_tag_search for search)", () => {
  /** Removes a site and its listing; answers the site's index row id. */
  const removeSite = async (siteId: string) => {
    const { search_rowid: rowid } = (await env.DB.prepare("SELECT search_rowid FROM sites WHERE id = ?")
      .bind(siteId)
      .first<{ search_rowid: number }>())!;
    await env.DB.batch([
      env.DB.prepare("DELETE FROM listings WHERE site_id = ?").bind(siteId),
      env.DB.prepare("DELETE FROM sites WHERE id = ?").bind(siteId),
    ]);
    return rowid;
  };

  it("follows a site's tags as they are saved, and forgets a site that goes", async () => {
    const db = database(env.DB);
    const me = await signUp();
    const other = await signUp();
    const mine = await listSite(me.userId, { host: uniqueHost("mine"), tags: ["gaming"] });
    const changing = await listSite(other.userId, { host: uniqueHost("changing"), tags: ["gaming", "seo"] });
    for (let i = 0; i < 3; i += 1) await listSite(other.userId, { host: uniqueHost("gamer"), tags: ["gaming"] });
    const rowsOf = async (siteId: string) =>
      (
        await env.DB.prepare("SELECT t.tag FROM site_tags t JOIN sites s ON s.search_rowid = t.search_rowid WHERE s.id = ? ORDER BY t.tag")
          .bind(siteId)
          .all<{ tag: string }>()
      ).results.map((row) => row.tag);
    const gamingSuggestions = async () => {
      const { suggestions } = await dashboardFor(db, me.userId, mine.siteId, Date.now(), "UTC", () => 0);
      expect(suggestions.tag).toBe("gaming");
      return suggestions.matched.map((site) => site.siteId);
    };
    expect(await rowsOf(changing.siteId)).toEqual(["gaming", "seo"]);
    expect(await gamingSuggestions()).toContain(changing.siteId);

    // Saved through the settings, as an owner does.
    const settings = { description: "Now about travel", tags: ["travel"], materials: [], contentTypes: [], listed: true, connects: 10 };
    expect(await updateSiteSettings(db, other.userId, changing.siteId, settings, Date.now())).toBe(true);
    expect(await rowsOf(changing.siteId)).toEqual(["travel"]);
    expect(await gamingSuggestions()).not.toContain(changing.siteId);

    const rowid = await removeSite(changing.siteId);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM site_tags WHERE search_rowid = ?").bind(rowid).first("n")).toBe(0);
  });

  it("keeps each site's pairs of tags (site_tag_pairs) as its tags are saved, and forgets a site that goes", async () => {
    const db = database(env.DB);
    const owner = await signUp();
    const site = await listSite(owner.userId, { host: uniqueHost("pairs"), tags: ["travel", "ai", "seo"] });
    const pairsOf = async () =>
      (
        await env.DB.prepare("SELECT p.pair FROM site_tag_pairs p JOIN sites s ON s.search_rowid = p.search_rowid WHERE s.id = ? ORDER BY p.pair")
          .bind(site.siteId)
          .all<{ pair: string }>()
      ).results.map((row) => row.pair);
    expect(await pairsOf()).toEqual(["ai seo", "ai travel", "seo travel"]);
    // Each row of the pairs and of the tags holds the site's record sort key (the search sorted by record walks a pair
    // or a tag in that order), and follows the key as the reputation job changes it.
    const recordOf = async () =>
      (
        await env.DB.prepare(
          `SELECT DISTINCT t.rep_sort AS repSort
           FROM (SELECT rep_sort, search_rowid FROM site_tag_pairs UNION ALL SELECT rep_sort, search_rowid FROM site_tags) t
           JOIN sites s ON s.search_rowid = t.search_rowid WHERE s.id = ?`,
        )
          .bind(site.siteId)
          .all<{ repSort: number }>()
      ).results;
    expect(await recordOf()).toEqual([{ repSort: 1 }]);
    await env.DB.prepare("UPDATE sites SET rep_sort = 742 WHERE id = ?").bind(site.siteId).run();
    expect(await recordOf()).toEqual([{ repSort: 742 }]);

    const settings = { description: "Now about news", tags: ["news-journalism", "ai"], materials: [], contentTypes: [], listed: true, connects: 10 };
    expect(await updateSiteSettings(db, owner.userId, site.siteId, settings, Date.now())).toBe(true);
    expect(await pairsOf()).toEqual(["ai news-journalism"]);
    expect(await recordOf()).toEqual([{ repSort: 742 }]);
    expect(await updateSiteSettings(db, owner.userId, site.siteId, { ...settings, tags: ["ai"] }, Date.now())).toBe(true);
    expect(await pairsOf()).toEqual([]);
    expect(await updateSiteSettings(db, owner.userId, site.siteId, { ...settings, tags: ["seo", "blog"] }, Date.now())).toBe(true);
    expect(await pairsOf()).toEqual(["blog seo"]);

    const rowid = await removeSite(site.siteId);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM site_tag_pairs WHERE search_rowid = ?").bind(rowid).first("n")).toBe(0);
  });

  it("keeps each site's rows of the term-with-tags index (site_tag_search) as its text and tags are saved, and forgets a site that goes", async () => {
    const db = database(env.DB);
    const owner = await signUp();
    const viewer = await signUp();
    const [before, after] = [`zb${crypto.randomUUID().slice(0, 6)}`, `za${crypto.randomUUID().slice(0, 6)}`];
    // The tests' database starts without sites, so every group (a tag, a pair of tags) is made by the triggers as the
    // first site with it is saved.
    const site = await listSite(owner.userId, { host: uniqueHost("grouped"), description: `Once about ${before}`, tags: ["travel", "ai", "seo"] });
    // One row per tag and per pair of tags: 3 + 3.
    const rowsWith = async (word: string) =>
      env.DB.prepare("SELECT count(*) AS n FROM site_tag_search WHERE site_tag_search MATCH ?").bind(`"${word}"`).first<number>("n");
    expect(await rowsWith(before)).toBe(6);
    const found = async (term: string, tags: string[]) =>
      (await searchListings(db, viewer.userId, { term, tags, bands: [], sort: "newest" })).posts.map((post) => post.id);
    expect(await found(before, ["ai"])).toEqual([site.listingId]);
    expect(await found(before, ["seo", "travel"])).toEqual([site.listingId]);
    expect(await found(before, ["seo", "travel", "ai"])).toEqual([site.listingId]);
    expect(await found(before, ["blog"])).toEqual([]);
    expect(await found(before, ["ai", "blog"])).toEqual([]);

    const settings = {
      description: `Now about ${after}`,
      tags: ["news-journalism", "ai"],
      materials: [],
      contentTypes: [],
      listed: true,
      connects: 10,
    };
    expect(await updateSiteSettings(db, owner.userId, site.siteId, settings, Date.now())).toBe(true);
    expect(await rowsWith(before)).toBe(0);
    expect(await rowsWith(after)).toBe(3);
    expect(await found(before, ["ai"])).toEqual([]);
    expect(await found(after, ["ai", "news-journalism"])).toEqual([site.listingId]);
    expect(await found(after, ["news-journalism"])).toEqual([site.listingId]);
    expect(await found(after, ["seo"])).toEqual([]);
    await removeSite(site.siteId);
    expect(await rowsWith(after)).toBe(0);
  });

  it("finds one site's rows through an index, as its triggers do for every new site, saved tags and removed site", async () => {
    // The triggers' statement; a scan of the table here made each of them read every site's tags.
    for (const table of ["site_tags", "site_tag_pairs"]) {
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN DELETE FROM ${table} WHERE search_rowid = ?`).bind(1).all<{ detail: string }>();
      const details = plan.results.map((row) => row.detail);
      expect(
        details.some((detail) => new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX \\w+ \\(search_rowid=\\?\\)$`).test(detail)),
        details.join("; "),
      ).toBe(true);
    }
    // The term-with-tags index is deleted from by row id, one lookup per group of the site.
    const plan = await env.DB.prepare(
      `EXPLAIN QUERY PLAN DELETE FROM site_tag_search WHERE rowid IN (
        SELECT g.id * 4294967296 + 4294967295 - ? FROM search_tag_groups AS g WHERE g.tags IN (SELECT value FROM json_each(?)))`,
    )
      .bind(1, '["ai"]')
      .all<{ detail: string }>();
    expect(plan.results.map((row) => row.detail)).toContain("SCAN site_tag_search VIRTUAL TABLE INDEX 0:=");
  });
});

describe("your score", () => {
  it("shows the stored audit with the card formatting", async () => {
    const me = await signUp();
    await env.DB.prepare(
      "UPDATE sites SET score = 64, score_run_at = ?, domain_authority = 30, on_page_seo = 35, technical_seo = 10, links = 0, speed = 77, ssl = 20 WHERE user_id = ?",
    )
      .bind(Date.UTC(2025, 0, 5), me.userId)
      .run();
    const page = await read(await get("/mysite/your-score", { cookie: me.cookie }));
    expect(page).toContain("Last run 1/5/2025");
    expect(page).toContain(`Here is the information we were able to gather about ${me.url}`);
    expect(page).toContain('href="/market?feedback=true"');
    const values = [...page.matchAll(/class="score-value">([^<]+)</g)].map((m) => m[1]);
    expect(values).toEqual(["30%", "50%", "A+", "0", "77%", "B"]);
  });
});

describe("connects page", () => {
  it("shows the balance and the three bundles with 30 chosen", async () => {
    const me = await signUp();
    const page = await read(await get("/mysite/connects", { cookie: me.cookie }));
    expect(page).toMatch(/data-testid="available-connects">20</);
    for (const text of ["30 connects", "$20 + tax", "60 connects", "$32 + tax", "100 connects", "$53 + tax"]) expect(page).toContain(text);
    expect(page).toContain('<input type="radio" name="bundle" checked="" value="30"/>');
    expect(page).toContain("Connects expire one year after purchase");
  });

  it("pages the history, oldest moves included, and says what the lots it lists leave out", async () => {
    const me = await signUp();
    const start = Date.now() - 10_000_000;
    // 204 returned holds after the starter grant (205 moves), ten at a time at the same moment (as a job writes them,
    // so pages end between moves of one moment), and 102 lots of one connect expiring before the grant's.
    await env.DB.batch([
      env.DB.prepare("UPDATE connect_ledger SET created_at = ?2 WHERE user_id = ?1 AND kind = 'grant'").bind(me.userId, start - 1000),
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 204)
         INSERT INTO connect_ledger (id, user_id, kind, amount, held, created_at) SELECT ?1 || '-' || i, ?1, 'return', 1, -1, ?2 + (i / 10) * 1000 FROM n`,
      ).bind(me.userId, start),
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 102)
         INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at, created_at) SELECT ?1 || '-lot-' || i, ?1, 'return', 1, 1, ?2 + i, ?3 FROM n`,
      ).bind(me.userId, Date.now() + 86_400_000, start),
    ]);
    const rowsOf = (page: string) => {
      const table = /data-testid="connects-history">(.*?)<\/table>/s.exec(page)?.[1] ?? "";
      return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].map((row) => row[1]!).filter((row) => row.includes("<td"));
    };
    const olderLink = (page: string) =>
      /href="(\/mysite\/connects\?history=[^"#]+)#history"[^>]*>Older moves</.exec(page)?.[1]?.replaceAll("&amp;", "&");

    const first = await read(await get("/mysite/connects", { cookie: me.cookie }));
    expect(rowsOf(first)).toHaveLength(100);
    expect(first).toContain("3 more lots with 22 connects expire later.");
    expect(first).not.toContain(">Newest moves<");
    const second = await read(await get(olderLink(first)!, { cookie: me.cookie }));
    expect(rowsOf(second)).toHaveLength(100);
    expect(second).toContain('href="/mysite/connects#history"');
    const thirdResponse = await get(olderLink(second)!, { cookie: me.cookie });
    const third = await read(thirdResponse);
    const last = rowsOf(third);
    // The oldest: four returns and the starter grant, which a single list of the newest hundred never showed.
    expect(last).toHaveLength(5);
    expect(last.at(-1)).toContain("Starter grant");
    expect(olderLink(third)).toBeUndefined();

    const malformed = await get("/mysite/connects?history=yesterday", { cookie: me.cookie });
    expect(malformed.status).toBe(400);
    const refusedPage = await read(malformed);
    expect(refusedPage).toContain(messages.pageLinkInvalid);
    expect(rowsOf(refusedPage)).toHaveLength(100);
  });
});
