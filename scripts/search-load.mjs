// npm run search-load: the search's time inside the Worker (its Server-Timing) for twenty kinds of search, with
// SEARCH_LOAD_CLIENTS clients at once (default 8) and then one at a time, on a database already seeded, as the
// README's million-site figures were measured. Make the database once with the bench, which keeps it where
// BENCH_STATE says (`BENCH_STATE=/tmp/market-1m BENCH_SITES=1000000 BENCH_ONLY=pages npm run bench`, about 13 minutes
// to seed a million sites), then `SEARCH_LOAD_STATE=/tmp/market-1m npm run search-load`.
// Options (environment): SEARCH_LOAD_STATE (required: a wrangler state directory), SEARCH_LOAD_SECONDS (per search
// under load, default 6), SEARCH_LOAD_WARM (seconds of every search in turn before measuring, default 10: the first
// search measured would otherwise run on a cold Worker), SEARCH_LOAD_CLIENTS (default 8), SEARCH_LOAD_ONLY (names,
// comma-separated). It signs in 200 of the seeded owners (new sessions in the database), as searches are limited per
// user and minute. Run it on an idle machine: the Worker, the D1 simulator and SQLite share one thread, so whatever
// else runs shows in the figures.
import { existsSync } from "node:fs";
import { build, closedLoop, ownerSessions, quantile, serverTimingOf, startWorker } from "./lib.mjs";

const persistTo = process.env.SEARCH_LOAD_STATE;
if (!persistTo || !existsSync(persistTo)) {
  console.error("SEARCH_LOAD_STATE must name a seeded wrangler state directory (BENCH_STATE of an earlier npm run bench).");
  process.exit(1);
}
const SECONDS = Number(process.env.SEARCH_LOAD_SECONDS ?? 6);
const WARM = Number(process.env.SEARCH_LOAD_WARM ?? 10);
const CLIENTS = Number(process.env.SEARCH_LOAD_CLIENTS ?? 8);
const ALONE = 40;
const only = process.env.SEARCH_LOAD_ONLY?.split(",");
const PORT = 8797;
const base = `http://127.0.0.1:${PORT}`;

const searches = [
  ["term 2 tags", "/search?term=marketing&tag=ai&tag=seo"],
  ["practical 2 tags", "/search?term=practical&tag=ai&tag=seo"],
  ["shop 1 tag", "/search?term=shop&tag=e-commerce"],
  ["shop", "/search?term=shop"],
  ["R shop", "/search?term=shop&sort=record"],
  ["common term", "/search?term=blog"],
  ["two tags", "/search?tag=ai&tag=seo"],
  ["re", "/search?term=re"],
  ["long no match", "/search?term=nothing-matches-this"],
  ["later page", "/search?term=blog&after=500000"],
  ["R two tags", "/search?tag=ai&tag=seo&sort=record"],
  ["R three tags", "/search?tag=ai&tag=seo&tag=marketing&sort=record"],
  ["R one tag", "/search?tag=seo&sort=record"],
  ["R practical 2 tags", "/search?term=practical&tag=ai&tag=seo&sort=record"],
  ["R shop 2 tags", "/search?term=shop&tag=ai&tag=seo&sort=record"],
  ["R marketing 2 tags", "/search?term=marketing&tag=ai&tag=seo&sort=record"],
  ["R marketing 1 tag", "/search?term=marketing&tag=seo&sort=record"],
  ["R shop 1 tag", "/search?term=shop&tag=e-commerce&sort=record"],
  ["R common term", "/search?term=blog&sort=record"],
  ["R tag band", "/search?tag=seo&band=hi&sort=record"],
].filter(([name]) => !only || only.includes(name));

console.log("Building…");
build();
// Searches are limited per user and minute: 200 users take turns.
const users = ownerSessions(persistTo, 200).map((session) => ({ Cookie: session.cookie }));
let turn = 0;
/** One search as a signed-in user (in turn): its status, its time inside the Worker and its count line. */
async function search(path) {
  const response = await fetch(base + path, { headers: users[turn++ % users.length] });
  const body = await response.text();
  const ms = serverTimingOf(response, "search");
  // React writes a comment between the number and the text after it.
  const count = body.match(/(\d+)(?:<!-- -->)?\+ sites available/)?.[1] ?? "";
  return { status: response.status, ms, count };
}

const worker = await startWorker({ port: PORT, persistTo, localObservability: false, vars: { SIGNUP_DELAY_MS: "0", APP_URL: base } });
const rows = [];
try {
  let next = 0;
  await closedLoop({ clients: CLIENTS, seconds: WARM }, () => search(searches[next++ % searches.length][1]));
  for (const [name, path] of searches) {
    const first = await search(path);
    const loaded = [];
    await closedLoop({ clients: CLIENTS, seconds: SECONDS }, async () => {
      const result = await search(path);
      if (result.status === 200) loaded.push(result.ms);
    });
    const alone = [];
    for (let i = 0; i < ALONE; i += 1) alone.push((await search(path)).ms);
    rows.push({
      search: name,
      "count line": first.count ? `${first.count}+` : "",
      [`answered in ${SECONDS} s`]: loaded.length,
      [`p95 ms, ${CLIENTS} clients`]: quantile(loaded, 0.95).toFixed(0),
      "p50 ms alone": quantile(alone, 0.5).toFixed(1),
      "p95 ms alone": quantile(alone, 0.95).toFixed(1),
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
  console.table(rows);
} finally {
  worker.stop();
}
