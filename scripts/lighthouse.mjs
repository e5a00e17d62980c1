// npm run lighthouse: Lighthouse (mobile, its defaults) on every main page of the built Worker under wrangler dev with
// the demo data, signed in where a page needs it. Prints each page's four scores and fails unless accessibility and
// best practices are 100 on every page, SEO 100 on the public pages (signed-in pages are kept out of search indexes
// on purpose) and performance at least LIGHTHOUSE_MIN_PERFORMANCE (default 98).
// The CPU slowdown is calibrated to this machine, as Lighthouse's documentation asks (docs/throttling.md, "Calibrating
// the CPU slowdown"; docs/decisions/0045-lighthouse-runs-calibrated-and-median.md): its fixed 4x turns a high-end desktop
// into the mid-tier phone it emulates, and a slower or faster host into a slower or faster phone.
// Options (environment): LIGHTHOUSE_PAGES (comma-separated paths, default all), LIGHTHOUSE_NO_BUILD=1,
// LIGHTHOUSE_CPU_SLOWDOWN (a number, e.g. 4 for Lighthouse's own constant; default: calibrated), LIGHTHOUSE_RUNS
// (runs per page, default 3; the median counts), LIGHTHOUSE_REPORTS (a folder: each run's full report is written there as
// JSON, to read what its scores came from).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lighthouse from "lighthouse";
import { throttling } from "lighthouse/core/config/constants.js";
import { pageFunctions } from "lighthouse/core/lib/page-functions.js";
import { launch } from "chrome-launcher";
import { chromium } from "playwright-core";
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
const RUNS = Number(process.env.LIGHTHOUSE_RUNS ?? 3);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`LIGHTHOUSE_RUNS must be a whole number from 1: ${process.env.LIGHTHOUSE_RUNS}`);

/**
 * The CPU slowdown that makes a host with this BenchmarkIndex (Lighthouse's measure of the host's CPU) the phone
 * Lighthouse's mobile preset stands for: the mapping of the calculator Lighthouse's documentation links to
 * (lighthouse-cpu-throttling-calculator), where its default 4x is a host of 1,533. A faster host gets more, a slower
 * one less: 1,300 is 3x, 800 is 2x, 150 is 1x.
 */
function calibratedSlowdown(benchmarkIndex) {
  if (benchmarkIndex >= 1300) return 3 + (benchmarkIndex - 1300) / 233;
  if (benchmarkIndex >= 800) return 2 + (benchmarkIndex - 800) / 500;
  // Below 150 the calculator declines: the host is too slow to emulate the phone at all.
  if (benchmarkIndex < 150) console.log(`This host's BenchmarkIndex (${benchmarkIndex}) is too low to emulate a mid-tier phone: no slowdown.`);
  return Math.max(1, 1 + (benchmarkIndex - 150) / 650);
}

/** Lighthouse's own BenchmarkIndex of this host, the median of five runs in the Chromium it drives. */
async function hostBenchmarkIndex(port) {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const page = await (browser.contexts()[0] ?? (await browser.newContext())).newPage();
    const runs = [];
    for (let i = 0; i < 5; i += 1) runs.push(await page.evaluate(`(${pageFunctions.computeBenchmarkIndex})()`));
    await page.close();
    return runs.sort((a, b) => a - b)[2];
  } finally {
    await browser.close(); // a browser connected to is only disconnected from
  }
}

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
  let slowdown = Number(process.env.LIGHTHOUSE_CPU_SLOWDOWN);
  if (!(slowdown > 0)) {
    const index = await hostBenchmarkIndex(chrome.port);
    slowdown = calibratedSlowdown(index);
    console.log(`This host's BenchmarkIndex: ${index} (median of 5), so a CPU slowdown of ${slowdown.toFixed(2)}x (Lighthouse's constant: 4x).`);
  } else {
    console.log(`CPU slowdown: ${slowdown}x (LIGHTHOUSE_CPU_SLOWDOWN).`);
  }
  const rows = [];
  for (const path of [...PUBLIC, ...SIGNED_IN].filter((p) => !only || only.includes(p))) {
    const signedIn = SIGNED_IN.includes(path);
    // Each page RUNS times, and the run with the median performance score counts, as Lighthouse's documentation
    // advises (docs/variability.md): one run's score moves by several points on a shared machine.
    const runs = [];
    for (let run = 0; run < RUNS; run += 1) {
      const result = await lighthouse(
        `${base}${path}`,
        { port: chrome.port, output: "json", logLevel: "error", extraHeaders: signedIn ? { Cookie: session } : undefined },
        {
          extends: "lighthouse:default",
          settings: {
            onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
            throttling: { ...throttling.mobileSlow4G, cpuSlowdownMultiplier: slowdown },
          },
        },
      );
      // A page Lighthouse could not measure scores 0 with no failed audit to show: say why.
      const { runtimeError } = result.lhr;
      if (runtimeError) console.log(`  ${path}: Lighthouse could not run it: ${runtimeError.code} ${runtimeError.message}`);
      runs.push(result.lhr);
      if (process.env.LIGHTHOUSE_REPORTS) {
        mkdirSync(process.env.LIGHTHOUSE_REPORTS, { recursive: true });
        const name = `${path.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "home"}-${run + 1}.json`;
        writeFileSync(join(process.env.LIGHTHOUSE_REPORTS, name), JSON.stringify(result.lhr));
      }
    }
    // A run Lighthouse could not complete is left out; the page fails if none completed. Performance is the median
    // run's; accessibility, best practices and SEO the lowest of the completed runs' (they should not vary at all).
    const completed = runs.filter((run) => !run.runtimeError);
    const performanceOf = (lhr) => lhr.categories.performance?.score ?? 0;
    const lhr = [...completed].sort((a, b) => performanceOf(a) - performanceOf(b))[Math.floor(completed.length / 2)] ?? runs[0];
    const { categories } = lhr;
    const score = (name) => Math.round((categories[name]?.score ?? 0) * 100);
    const lowest = (name) => Math.min(...(completed.length ? completed : runs).map((run) => Math.round((run.categories[name]?.score ?? 0) * 100)));
    const row = {
      page: path,
      performance: score("performance"),
      accessibility: lowest("accessibility"),
      "best practices": lowest("best-practices"),
      seo: lowest("seo"),
      runs: runs.map((run) => Math.round(performanceOf(run) * 100)).join(" "),
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
      // What cost the points: every audit of a low category that did not pass, in the run that counted for it.
      for (const name of Object.keys(categories)) {
        const counted = name === "performance" ? lhr : [...completed].sort((a, b) => a.categories[name].score - b.categories[name].score)[0] ?? lhr;
        const category = counted.categories[name];
        if ((name === "seo" && signedIn) || category.score === 1) continue;
        for (const ref of category.auditRefs.filter((r) => r.weight > 0)) {
          const audit = counted.audits[ref.id];
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
