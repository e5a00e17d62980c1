// npm run lighthouse: Lighthouse (mobile, its defaults) on every main page of the built Worker under wrangler dev with
// the demo data, signed in where a page needs it. Prints each page's four scores and fails unless accessibility and
// best practices are 100 on every page, SEO 100 on the public pages (signed-in pages are kept out of search indexes
// on purpose) and performance at least LIGHTHOUSE_MIN_PERFORMANCE (default 98).
// Options (environment): LIGHTHOUSE_PAGES (comma-separated paths, default all), LIGHTHOUSE_NO_BUILD=1.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lighthouse from "lighthouse";
import { launch } from "chrome-launcher";
import { applyMigrations, build, findChromium, startWorker } from "./lib.mjs";
import { DEMO_EMAIL, DEMO_PASSWORD, seedIfEmpty } from "./seed.mjs";

const PORT = 8793;
const base = `http://127.0.0.1:${PORT}`;
const MIN_PERFORMANCE = Number(process.env.LIGHTHOUSE_MIN_PERFORMANCE ?? 98);
const PUBLIC = ["/", "/login", "/signup", "/reset-password", "/add-site?source=hero", "/newbeta", "/privacy", "/briefs"];
const SIGNED_IN = [
  "/market",
  "/search/blog",
  "/mysite",
  "/mysite/offers",
  "/mysite/messages",
  "/mysite/connects",
  "/mysite/settings",
  "/mysite/your-score",
];
const only = process.env.LIGHTHOUSE_PAGES?.split(",");

const persistTo = mkdtempSync(join(tmpdir(), "lighthouse-state-"));
let worker;
let chrome;
let failed = false;
try {
  if (!process.env.LIGHTHOUSE_NO_BUILD) build();
  applyMigrations(persistTo);
  seedIfEmpty({ persistTo, sites: 60 });
  worker = await startWorker({ port: PORT, persistTo, vars: { SIGNUP_DELAY_MS: "0", APP_URL: base } });
  const login = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ email: DEMO_EMAIL, password: DEMO_PASSWORD }),
  });
  const session = login.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith("session="))
    ?.split(";")[0];
  if (!session) throw new Error(`demo login failed: ${login.status}`);
  chrome = await launch({
    chromePath: findChromium() ?? undefined,
    chromeFlags: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const rows = [];
  for (const path of [...PUBLIC, ...SIGNED_IN].filter((p) => !only || only.includes(p))) {
    const signedIn = SIGNED_IN.includes(path);
    const result = await lighthouse(
      `${base}${path}`,
      { port: chrome.port, output: "json", logLevel: "error", extraHeaders: signedIn ? { Cookie: session } : undefined },
      { extends: "lighthouse:default", settings: { onlyCategories: ["performance", "accessibility", "best-practices", "seo"] } },
    );
    const { categories, audits, runtimeError } = result.lhr;
    // A page Lighthouse could not measure scores 0 with no failed audit to show: say why.
    if (runtimeError) console.log(`  ${path}: Lighthouse could not run it: ${runtimeError.code} ${runtimeError.message}`);
    const score = (name) => Math.round((categories[name]?.score ?? 0) * 100);
    const row = {
      page: path,
      performance: score("performance"),
      accessibility: score("accessibility"),
      "best practices": score("best-practices"),
      seo: score("seo"),
    };
    const problems = [];
    if (row.performance < MIN_PERFORMANCE) problems.push(`performance ${row.performance}`);
    if (row.accessibility < 100) problems.push("accessibility");
    if (row["best practices"] < 100) problems.push("best practices");
    if (!signedIn && row.seo < 100) problems.push("seo");
    row.result = problems.length ? `LOW: ${problems.join(", ")}` : "ok";
    rows.push(row);
    if (problems.length) {
      failed = true;
      // What cost the points: every audit of a low category that did not pass.
      for (const [name, category] of Object.entries(categories)) {
        if ((name === "seo" && signedIn) || category.score === 1) continue;
        for (const ref of category.auditRefs.filter((r) => r.weight > 0)) {
          const audit = audits[ref.id];
          if (audit.score !== null && audit.score < 1) console.log(`  ${path} ${name}: ${audit.id} (${audit.score}) ${audit.displayValue ?? ""}`);
        }
      }
    }
  }
  console.table(rows);
} finally {
  await chrome?.kill();
  worker?.stop();
  rmSync(persistTo, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
