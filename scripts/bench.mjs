// npm run bench: build, start the Worker under wrangler dev with the demo data, and measure the main pages:
// requests per second, p50/p99 latency, and the gzipped JavaScript each page loads. A static file served by the
// same Worker is measured in the same run, so the ratios hold on a noisy machine.
// The market is seeded with BENCH_SITES sites (default 100,000) so /market and /search run at that size; the
// search's own time inside the Worker (its Server-Timing header) is reported as p50/p95 too.
// Verification checks run against pages of the dev web sandbox (no network), with the Worker's CPU time per check
// read from its processes' counters.
// Live chat: BENCH_CHAT_SOCKETS sockets (default 100) in one conversation, both participants sending; the time from
// send to receipt on every socket, messages per second, and any message lost, duplicated or out of order.
// Options (environment): BENCH_SECONDS (default 5), BENCH_CONCURRENCY (default 8), BENCH_SITES (default 100000),
// BENCH_PROPOSALS (default 400), BENCH_CHECKS (default 300), BENCH_CHAT_SOCKETS (default 100),
// BENCH_CHAT_MESSAGES (default 1000), BENCH_WEBHOOKS (default 300 checkouts, each delivered 5 times),
// BENCH_LINK_CHECKS (default 200 delivered links re-checked by the five-minute job), BENCH_AUDITS (default 120
// sites audited by the audits' five-minute job, AUDITS_PER_RUN at its default of 40), BENCH_LOCAL_OBSERVABILITY=1 (keeps
// wrangler's local tracing of every invocation on, as `npm start` has it), BENCH_STATE (a directory for the local
// database, kept after the run; a run given one that holds a database already uses it as it is, without seeding: a
// million sites take about 13 minutes to seed. Reused, it suits BENCH_ONLY=pages and `npm run search-load`; the rest
// of the bench writes proposals, messages and payments, and wants a fresh one. By default a temporary directory,
// removed at the end).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { applyMigrations, build, closedLoop, executeFile, ownerSessions, quantile, queryLocal, serverTimingOf, startWorker } from "./lib.mjs";
import { DEMO_EMAIL, DEMO_PASSWORD, seedIfEmpty } from "./seed.mjs";

const PORT = 8795;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SITES = Number(process.env.BENCH_SITES ?? 100_000);
const base = `http://127.0.0.1:${PORT}`;
/** The issue's targets: signed-in pages at this share of the static file's throughput, and JavaScript per page. */
const RATIO_TARGET = 0.35;
const JS_BUDGET_KB = 98;
/** BENCH_ONLY=pages measures the pages and searches only (e.g. at BENCH_SITES=1000000). */
const PAGES_ONLY = process.env.BENCH_ONLY === "pages";

async function logInDemo() {
  const response = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ email: DEMO_EMAIL, password: DEMO_PASSWORD }),
  });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("session="));
  if (response.status !== 302 || !cookie) throw new Error(`demo login failed: ${response.status}`);
  return cookie.split(";")[0];
}

/** Closed-loop load: CONCURRENCY clients each send the next request when the last one is answered. */
async function load(path, headers = {}) {
  // A list of headers is a pool of signed-in users, taken in turn (searches are limited per user and minute).
  let turn = 0;
  const next = () => (Array.isArray(headers) ? headers[turn++ % headers.length] : headers);
  const latencies = [];
  const serverTimes = [];
  const queries = [];
  let errors = 0;
  // Only answers of 200 count in throughput and latency: a fast error page is no page.
  const elapsed = await closedLoop({ clients: CONCURRENCY, seconds: SECONDS }, async () => {
    const started = performance.now();
    try {
      const response = await fetch(`${base}${path}`, { headers: next(), redirect: "manual" });
      await response.arrayBuffer();
      if (response.status !== 200) {
        errors += 1;
        return;
      }
      const search = serverTimingOf(response, "search");
      if (!Number.isNaN(search)) serverTimes.push(search);
      const count = response.headers.get("Server-Timing")?.match(/desc="(\d+) queries"/);
      if (count) queries.push(Number(count[1]));
    } catch {
      errors += 1;
      return;
    }
    latencies.push(performance.now() - started);
  });
  return {
    rps: latencies.length / elapsed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    server: serverTimes.length ? { p50: quantile(serverTimes, 0.5), p95: quantile(serverTimes, 0.95) } : null,
    queries: queries.length ? Math.max(...queries) : null,
    requests: latencies.length,
    errors,
  };
}

/**
 * Gzipped size of every script a page loads: its module preloads and the modules its inline script imports. (The
 * route manifest in the page names other routes' modules too; the browser loads those only on the way there.)
 */
async function javascriptOf(path, headers = {}) {
  const html = await (await fetch(`${base}${path}`, { headers: Array.isArray(headers) ? headers[0] : headers })).text();
  const loaded = html.matchAll(/<link rel="modulepreload" href="(\/assets\/[^"]+\.js)"|import (?:\* as \w+ from )?"(\/assets\/[^"]+\.js)"/g);
  const scripts = [...new Set([...loaded].map((match) => match[1] ?? match[2]))];
  let gzipped = 0;
  for (const script of scripts) {
    const body = Buffer.from(await (await fetch(`${base}${script}`)).arrayBuffer());
    gzipped += gzipSync(body, { level: 9 }).length;
  }
  return { files: scripts.length, kb: gzipped / 1024 };
}

/**
 * Signed-in sessions for `count` demo owners whose site is verified (made directly in the database: signing in
 * that many accounts would measure scrypt, not trading), and one listing they can all afford.
 */
function prepareProposers(count) {
  const owners = queryLocal(
    `SELECT u.id AS userId, (SELECT id FROM sites WHERE user_id = u.id AND verified = 1 LIMIT 1) AS siteId
     FROM users u WHERE u.email LIKE 'owner%' AND u.connects >= 5 AND siteId IS NOT NULL LIMIT ${count + 1}`,
    persistTo,
  );
  const [target, ...senders] = owners;
  const [listing] = queryLocal(
    `SELECT l.id FROM listings l JOIN sites s ON s.id = l.site_id WHERE l.user_id = '${target.userId}' AND s.verified = 1 LIMIT 1`,
    persistTo,
  );
  queryLocal(`UPDATE listings SET connects = 5 WHERE id = '${listing.id}'`, persistTo);
  const far = Date.now() + 30 * 24 * 3600 * 1000;
  const cookies = [];
  const rows = senders.map((sender) => {
    const token = randomBytes(20).toString("hex");
    cookies.push(`session=${token}`);
    const id = createHash("sha256").update(token).digest("hex");
    return `('${id}', '${sender.userId}', '${sender.siteId}', ${far}, ${far})`;
  });
  const file = join(persistTo, "bench-sessions.sql");
  writeFileSync(file, `INSERT INTO sessions (id, user_id, active_site_id, expires_at, absolute_expires_at) VALUES\n${rows.join(",\n")};`);
  executeFile(file, persistTo);
  return { listingId: listing.id, cookies };
}

/** Each account sends one proposal to the same listing, CONCURRENCY at a time. */
async function proposalLoad({ listingId, cookies }) {
  const latencies = [];
  const failures = new Map();
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < cookies.length) {
      const cookie = cookies[next++];
      const began = performance.now();
      const response = await fetch(`${base}/market?post=${listingId}`, {
        method: "POST",
        redirect: "manual",
        headers: { Cookie: cookie },
        body: new URLSearchParams({ intent: "propose", listingId, myContentType: "blog-post", theirContentType: "feature" }),
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - began);
      if (response.status !== 302) failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const elapsed = (performance.now() - started) / 1000;
  const q = (p) => quantile(latencies, p);
  return { proposals: cookies.length, perSecond: cookies.length / elapsed, p50: q(0.5), p99: q(0.99), failures };
}

/** Signed-in sessions of `count` demo owners from the `offset`-th on, each on its own site (`ownerSessions`). */
function sessionsOnOwnSites(count, offset) {
  return ownerSessions(persistTo, count, offset);
}

/** Resident memory now and at its peak, in MiB, of the Worker's processes (wrangler and workerd). */
function workerMemory(groupId) {
  let rss = 0;
  let peak = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      if (Number(fields[2]) !== groupId) continue;
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      rss += Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
      peak += Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0) / 1024;
    } catch {
      // the process ended
    }
  }
  return { rss, peak };
}

/** CPU seconds used so far by the processes of the Worker's process group (wrangler and workerd). */
function workerCpuSeconds(groupId) {
  let ticks = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      if (Number(fields[2]) === groupId && /workerd/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8")))
        ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended
    }
  }
  return ticks / 100;
}

/**
 * Each owner publishes a home page with its tag (a 4 KB head, a 60 KB body) in the dev web sandbox and checks it
 * once, CONCURRENCY at a time. The Worker reads each page through the safe fetch and HTMLRewriter.
 */
async function verificationLoad(count) {
  // Owners after the ones the proposal run used, so no session or site is shared with it.
  const owners = sessionsOnOwnSites(count, Number(process.env.BENCH_PROPOSALS ?? 400) + 1);
  const filler = '<link rel="preload" href="/assets/font.woff2" as="font">'.repeat(70);
  const body = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(950);
  const file = join(persistTo, "bench-sandbox.sql");
  writeFileSync(
    file,
    owners
      .map(
        (o) =>
          `INSERT OR REPLACE INTO dev_sandbox_pages (host, path, content_type, body, updated_at) VALUES ('${o.host}', '/', 'text/html; charset=utf-8', '<!doctype html><html><head><title>${o.host}</title>${filler}<meta name="backlink-verification" content="${o.token}"></head><body>${body}</body></html>', 0);`,
      )
      .join("\n"),
  );
  executeFile(file, persistTo);
  const latencies = [];
  const failures = new Map();
  let next = 0;
  const cpuBefore = workerCpuSeconds(worker.child.pid);
  const started = performance.now();
  const client = async () => {
    while (next < owners.length) {
      const owner = owners[next++];
      const began = performance.now();
      const response = await fetch(`${base}/mysite/verify`, {
        method: "POST",
        redirect: "manual",
        headers: { Cookie: owner.cookie },
        body: new URLSearchParams({ intent: "check" }),
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - began);
      const location = response.headers.get("Location") ?? "";
      if (response.status !== 302 || !location.startsWith("/mysite/verify")) failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = workerCpuSeconds(worker.child.pid) - cpuBefore;
  const [{ verified }] = queryLocal(
    `SELECT COUNT(*) AS verified FROM sites WHERE verified = 1 AND verification_error IS NULL AND id IN (${owners
      .map((o) => `'${o.siteId}'`)
      .join(",")})`,
    persistTo,
  );
  const q = (p) => quantile(latencies, p);
  return {
    checks: owners.length,
    verified,
    perSecond: owners.length / elapsed,
    p50: q(0.5),
    p99: q(0.99),
    cpuMsPerCheck: (cpu * 1000) / owners.length,
    failures,
  };
}

/**
 * One conversation between two owners with `socketCount` sockets open (half each, as tabs and devices), and
 * `messageCount` messages sent by CONCURRENCY senders in a closed loop (each sends its next message when the last
 * one comes back). Every socket must receive every message once, in one order.
 */
async function chatLoad(socketCount, messageCount) {
  const [first, second] = sessionsOnOwnSites(2, 0);
  const [userA, userB] = [first, second].sort((x, y) => (x.userId < y.userId ? -1 : 1));
  const chatId = `bench-${randomBytes(6).toString("hex")}`;
  queryLocal(
    `INSERT INTO chats (id, user_a_id, user_b_id, site_a_id, site_b_id, last_updated) VALUES ('${chatId}', '${userA.userId}', '${userB.userId}', '${
      userA.siteId
    }', '${userB.siteId}', ${Date.now()})`,
    persistTo,
  );
  const sockets = [];
  for (let i = 0; i < socketCount; i += 1) {
    const owner = i % 2 === 0 ? userA : userB;
    const socket = new WebSocket(`ws://127.0.0.1:${PORT}/chats/${chatId}/socket`, { headers: { Cookie: owner.cookie, Origin: base } });
    const entry = { socket, owner, received: [], waiters: new Map() };
    socket.addEventListener("message", (event) => {
      const data = JSON.parse(event.data);
      if (data.type !== "message") return;
      const at = performance.now();
      entry.received.push({ id: data.message.id, clientId: data.message.clientId, at });
      entry.waiters.get(data.message.clientId)?.();
    });
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve, { once: true });
      socket.addEventListener("error", () => reject(new Error("a chat socket did not open")), { once: true });
    });
    sockets.push(entry);
  }
  const sentAt = new Map();
  let next = 0;
  const started = performance.now();
  const sender = async (entry) => {
    while (next < messageCount) {
      const clientId = `bench-${String(next++).padStart(8, "0")}`;
      const echoed = new Promise((resolve) => entry.waiters.set(clientId, resolve));
      sentAt.set(clientId, performance.now());
      entry.socket.send(JSON.stringify({ type: "send", clientId, text: `Message ${clientId} about anchors and deadlines.` }));
      await echoed;
      entry.waiters.delete(clientId);
    }
  };
  await Promise.all(sockets.slice(0, CONCURRENCY).map(sender));
  // Everyone has everything (or it never comes): wait for the last deliveries.
  const deadline = performance.now() + 10_000;
  while (sockets.some((entry) => entry.received.length < messageCount) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const elapsed = (Math.max(...sockets.flatMap((entry) => entry.received.map((r) => r.at))) - started) / 1000;
  const latencies = [];
  let lost = 0;
  let duplicated = 0;
  let outOfOrder = 0;
  for (const entry of sockets) {
    const ids = new Set(entry.received.map((r) => r.id));
    lost += messageCount - ids.size;
    duplicated += entry.received.length - ids.size;
    entry.received.forEach((r, i) => {
      if (i > 0 && r.id <= entry.received[i - 1].id) outOfOrder += 1;
      latencies.push(r.at - sentAt.get(r.clientId));
    });
    entry.socket.close(1000);
  }
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.floor(p * (latencies.length - 1))];
  return { sockets: socketCount, messages: messageCount, perSecond: messageCount / elapsed, p50: q(0.5), p99: q(0.99), lost, duplicated, outOfOrder };
}

const WEBHOOK_SECRET = "whsec_bench_only";

/** A Stripe-Signature header, made as Stripe makes it: HMAC-SHA256 of "timestamp.payload" with the endpoint secret. */
function stripeSignature(payload) {
  const timestamp = Math.floor(Date.now() / 1000);
  const digest = createHmac("sha256", WEBHOOK_SECRET).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${digest}`;
}

/**
 * Stripe webhooks: `count` paid checkouts for demo owners, each event delivered `replays` times, shuffled and
 * CONCURRENCY at a time (as Stripe's retries and duplicates arrive). Every checkout must be credited exactly once.
 */
async function webhookLoad(count, replays) {
  const owners = queryLocal(`SELECT id FROM users WHERE email LIKE 'owner%' LIMIT ${count}`, persistTo);
  const events = owners.map((owner, i) => {
    const payload = JSON.stringify({
      id: `evt_bench_${i}_${randomBytes(4).toString("hex")}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `cs_bench_${i}_${randomBytes(4).toString("hex")}`,
          object: "checkout.session",
          client_reference_id: owner.id,
          payment_status: "paid",
          amount_total: 2000,
          currency: "usd",
          payment_intent: `pi_bench_${i}`,
          line_items: { object: "list", data: [{ object: "item", quantity: 1, price: { id: "price_bench_30", object: "price" } }] },
        },
      },
    });
    return payload;
  });
  const deliveries = events.flatMap((payload) => Array.from({ length: replays }, () => payload));
  for (let i = deliveries.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [deliveries[i], deliveries[j]] = [deliveries[j], deliveries[i]];
  }
  const latencies = [];
  const failures = new Map();
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < deliveries.length) {
      const payload = deliveries[next++];
      const sent = performance.now();
      const response = await fetch(`${base}/webhooks/stripe`, {
        method: "POST",
        body: payload,
        headers: { "Content-Type": "application/json", "Stripe-Signature": stripeSignature(payload) },
      });
      await response.arrayBuffer();
      latencies.push(performance.now() - sent);
      if (response.status !== 200) failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  const elapsed = (performance.now() - started) / 1000;
  // Each owner bought once: more than one lot for an owner is a double credit, none is a lost one.
  const [credited] = queryLocal(
    `SELECT count(*) AS owners, coalesce(sum(lots > 1), 0) AS doubled, coalesce(sum(connects), 0) AS connects FROM (
       SELECT user_id, count(*) AS lots, sum(amount) AS connects FROM connect_lots
       WHERE source = 'purchase' AND payment_event_id LIKE 'evt_bench_%' GROUP BY user_id)`,
    persistTo,
  );
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.floor(p * (latencies.length - 1))];
  return {
    checkouts: events.length,
    deliveries: deliveries.length,
    perSecond: deliveries.length / elapsed,
    p50: q(0.5),
    p99: q(0.99),
    failures,
    credited,
  };
}

/**
 * Runs a five-minute job (GET /__scheduled, `cron`: the link checks' or the audits' trigger) until `dueQuery` counts
 * nothing due or `maxRuns` is reached: how many runs, the seconds they took and the Worker's CPU seconds.
 */
async function runFiveMinuteJob(cron, dueQuery, maxRuns) {
  const due = () => queryLocal(dueQuery, persistTo)[0].n;
  const cpuBefore = workerCpuSeconds(worker.child.pid);
  const started = performance.now();
  let runs = 0;
  while (due() > 0 && runs < maxRuns) {
    const url = `${base}/__scheduled?cron=${encodeURIComponent(cron)}`;
    // Preparing the next load can leave the client's kept-alive connection idle past the local server's timeout, and a
    // request sent on it as the server closes it fails before it reaches the Worker ("other side closed"): that one
    // is sent again (the pool opens a new connection). A Worker that stopped answering fails the second time too.
    const response = await fetch(url).catch((error) => {
      if (error?.cause?.code !== "UND_ERR_SOCKET") throw error;
      console.log(`(${error.cause.message} before the job's run: sent again)`);
      return fetch(url);
    });
    await response.arrayBuffer();
    runs += 1;
  }
  return { runs, elapsed: (performance.now() - started) / 1000, cpu: workerCpuSeconds(worker.child.pid) - cpuBefore };
}

/**
 * Delivered-link re-checks as the five-minute job runs them: `count` completed trades whose links are due, each
 * content page a 64 KB sandbox page linking to the partner. The job is run (GET /__scheduled) until none is due.
 */
async function linkCheckLoad(count, offset) {
  const owners = sessionsOnOwnSites(count, offset);
  const body = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(1000);
  const now = Date.now();
  const statements = owners.flatMap((owner, i) => {
    const partner = owners[(i + 1) % owners.length];
    const offerId = `bench-link-${i}-${randomBytes(4).toString("hex")}`;
    return [
      `INSERT OR REPLACE INTO dev_sandbox_pages (host, path, content_type, body, updated_at) VALUES ('${owner.host}', '/delivered', 'text/html; charset=utf-8', '<!doctype html><html><body>${body}<p>Thanks to <a href="https://${partner.host}/">${partner.host}</a>.</p></body></html>', 0);`,
      `INSERT INTO offers (id, sender_user_id, sender_site_id, receiver_user_id, receiver_site_id, connects, status, answer_by, created_at, updated_at) VALUES ('${offerId}', '${
        owner.userId
      }', '${owner.siteId}', '${partner.userId}', '${partner.siteId}', 1, 'pending', ${now + 1e9}, ${now}, ${now});`,
      `UPDATE offers SET status = 'accepted' WHERE id = '${offerId}';`,
      `INSERT INTO offer_entries (offer_id, user_id, site_id, role, create_content_type, provide_materials, status, content_url, link_status, link_due_at, link_watch_until, updated_at) VALUES ('${offerId}', '${
        owner.userId
      }', '${owner.siteId}', 'sender', 'blog-post', '["logo"]', 'completed', 'https://${owner.host}/delivered', 'live', 0, ${
        now + 365 * 86_400_000
      }, ${now});`,
    ];
  });
  const file = join(persistTo, "bench-links.sql");
  writeFileSync(file, statements.join("\n"));
  executeFile(file, persistTo);
  const { runs, elapsed, cpu } = await runFiveMinuteJob(
    "*/5 * * * *",
    `SELECT count(*) AS n FROM offer_entries WHERE link_due_at = 0`,
    Math.ceil(count / 50) + 5,
  );
  const [result] = queryLocal(
    `SELECT count(*) AS checked, coalesce(sum(link_status = 'live'), 0) AS live FROM offer_entries WHERE offer_id LIKE 'bench-link-%' AND link_due_at > 0`,
    persistTo,
  );
  return {
    count,
    runs,
    checked: result.checked,
    live: result.live,
    perMinute: (result.checked / elapsed) * 60,
    cpuMsPerCheck: (cpu * 1000) / Math.max(1, result.checked),
    msPerRun: (elapsed * 1000) / runs,
  };
}

/**
 * Weekly audits as their five-minute job (cron 1-59/5) runs them: `count` sites due, each with a 64 KB home page, a robots.txt and
 * a sitemap in the dev web sandbox (the http address answers the same page, as the sandbox does). The job is run
 * (GET /__scheduled) until none of them is due; every other site waits.
 */
async function auditLoad(count, offset) {
  const owners = sessionsOnOwnSites(count, offset);
  const body = "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(1000);
  const page = (host) =>
    `<!doctype html><html lang="en"><head><title>${host}</title><meta name="description" content="A bench site."><meta name="viewport" content="width=device-width"><link rel="canonical" href="https://${host}/"></head><body><h1>${host}</h1><img src="/a.png" alt="A">${body}</body></html>`;
  const statements = [
    "UPDATE sites SET audit_due_at = 9999999999999;",
    ...owners.flatMap((owner) => [
      `INSERT OR REPLACE INTO dev_sandbox_pages (host, path, content_type, body, updated_at) VALUES ('${
        owner.host
      }', '/', 'text/html; charset=utf-8', '${page(owner.host)}', 0);`,
      `INSERT OR REPLACE INTO dev_sandbox_pages (host, path, content_type, body, updated_at) VALUES ('${owner.host}', '/robots.txt', 'text/plain; charset=utf-8', 'User-agent: *
Allow: /
Sitemap: https://${owner.host}/sitemap.xml', 0);`,
      `INSERT OR REPLACE INTO dev_sandbox_pages (host, path, content_type, body, updated_at) VALUES ('${owner.host}', '/sitemap.xml', 'application/xml; charset=utf-8', '<?xml version="1.0"?><urlset></urlset>', 0);`,
      `UPDATE sites SET audit_due_at = 0 WHERE id = '${owner.siteId}';`,
    ]),
  ];
  const file = join(persistTo, "bench-audits.sql");
  writeFileSync(file, statements.join("\n"));
  executeFile(file, persistTo);
  const ids = owners.map((owner) => `'${owner.siteId}'`).join(",");
  const { runs, elapsed, cpu } = await runFiveMinuteJob(
    "1-59/5 * * * *",
    `SELECT count(*) AS n FROM sites WHERE audit_due_at = 0`,
    Math.ceil(count / 40) + 5,
  );
  const [result] = queryLocal(
    `SELECT count(*) AS runs, coalesce(sum(status = 'done'), 0) AS done, min(score) AS low, max(score) AS high FROM score_runs WHERE site_id IN (${ids}) AND reason = 'weekly'`,
    persistTo,
  );
  return {
    count,
    runs,
    audited: result.runs,
    done: result.done,
    scores: result.low === result.high ? String(result.low) : `${result.low}–${result.high}`,
    perMinute: (result.runs / elapsed) * 60,
    cpuMsPerAudit: (cpu * 1000) / Math.max(1, result.runs),
    msPerRun: (elapsed * 1000) / runs,
  };
}

const keptState = process.env.BENCH_STATE;
const persistTo = keptState ?? mkdtempSync(join(tmpdir(), "bench-state-"));
if (keptState) mkdirSync(keptState, { recursive: true });
let worker;
try {
  console.log(`Building and preparing a local database with ${SITES} demo sites…`);
  build();
  applyMigrations(persistTo);
  seedIfEmpty({ persistTo, sites: SITES });
  // The per-sender chat limit (30 a minute) is lifted here: the chat figure is the conversation's own throughput.
  worker = await startWorker({
    port: PORT,
    persistTo,
    // What is measured is the Worker: wrangler's local tracing of each invocation cost a page 1.2 to 1.8 ms of the
    // Worker's thread (docs/decisions/0034-bench-without-local-observability.md). BENCH_LOCAL_OBSERVABILITY=1 keeps it.
    localObservability: process.env.BENCH_LOCAL_OBSERVABILITY === "1",
    vars: {
      SIGNUP_DELAY_MS: "0",
      APP_URL: base,
      CHAT_MESSAGES_PER_MINUTE: "1000000",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_30: "price_bench_30",
    },
  });
  const cookie = await logInDemo();
  // Many signed-in users, as a real market has: each may search 120 times a minute.
  const users = [
    { Cookie: cookie },
    ...sessionsOnOwnSites(300, Number(process.env.BENCH_PROPOSALS ?? 400) + 1 + Number(process.env.BENCH_CHECKS ?? 300)).map((s) => ({
      Cookie: s.cookie,
    })),
  ];
  // One site gets a pair of letters no other has: the rare short term. "jq" and a long term match nothing.
  queryLocal(
    `UPDATE sites SET description = description || ' qx' WHERE rowid = (SELECT rowid FROM sites ORDER BY rowid LIMIT 1 OFFSET ${Math.floor(
      SITES / 2,
    )})`,
    persistTo,
  );
  const signedIn = ["/market", "/search", "/mysite", "/mysite/offers"];
  const targets = [
    { name: "/", path: "/", headers: {} },
    { name: "/login", path: "/login", headers: {} },
    { name: "/market (signed in)", path: "/market", headers: users },
    { name: "/search (signed in)", path: "/search", headers: users },
    { name: "/search?term=blog", path: "/search?term=blog", headers: users },
    { name: "/search?tag=seo&band=hi", path: "/search?tag=seo&band=hi", headers: users },
    { name: "/search term+2 tags", path: "/search?term=practical&tag=ai&tag=seo", headers: users },
    { name: "/search?term=qx (one site)", path: "/search?term=qx", headers: users },
    { name: "/search?term=jq (no match)", path: "/search?term=jq", headers: users },
    { name: "/search long term, no match", path: "/search?term=nothing-matches-this", headers: users },
    { name: "/mysite (signed in)", path: "/mysite", headers: users },
    { name: "/mysite/offers", path: "/mysite/offers", headers: users },
    { name: "/your-score", path: "/mysite/your-score", headers: users },
    { name: "/market?sort=record", path: "/market?sort=record", headers: users },
    { name: "/search?term=blog&sort=record", path: "/search?term=blog&sort=record", headers: users },
    // Sorted by record, two tags walk their pair's sites best record first, with a term or without (decision 43).
    { name: "/search 2 tags by record", path: "/search?tag=ai&tag=seo&sort=record", headers: users },
    { name: "/search term+2 tags by record", path: "/search?term=marketing&tag=ai&tag=seo&sort=record", headers: users },
    // A later page halfway down a common term's matches (its position is an index row id).
    { name: "/search?term=blog, a later page", path: `/search?term=blog&after=${Math.floor(SITES / 2)}`, headers: users },
  ];
  console.log(`\n${SITES} sites, ${SECONDS} s per page, ${CONCURRENCY} concurrent clients, against wrangler dev on this machine.\n`);
  // The static file is measured before the pages and again after each one; a page's ratio is to the mean of the
  // measurements right before and right after it, so a machine that slows down (or warms up) during the run (by up
  // to 28% between its start and end on a 2-core machine) neither favours nor penalises the pages measured late.
  await load("/favicon.svg");
  const staticBefore = await load("/favicon.svg");
  const measured = [];
  let staticPrevious = staticBefore;
  const statics = [staticBefore.rps];
  for (const target of targets) {
    await load(target.path, target.headers); // warm up
    const result = await load(target.path, target.headers);
    const js = await javascriptOf(target.path, target.headers);
    const staticNext = await load("/favicon.svg");
    measured.push({ target, result, js, staticRps: (staticPrevious.rps + staticNext.rps) / 2 });
    staticPrevious = staticNext;
    statics.push(staticNext.rps);
  }
  console.log(
    `Static file: ${staticBefore.rps.toFixed(0)} req/s before the pages, ${staticPrevious.rps.toFixed(0)} after them, ` +
      `from ${Math.min(...statics).toFixed(0)} to ${Math.max(...statics).toFixed(0)} between the pages.`,
  );
  const rows = measured.map(({ target, result, js, staticRps }) => {
    const ratio = result.rps / staticRps;
    const required = signedIn.includes(target.path);
    return {
      page: target.name,
      "req/s": result.rps.toFixed(0),
      "static req/s": staticRps.toFixed(0),
      "vs static": `${ratio.toFixed(2)}x${required ? (ratio >= RATIO_TARGET ? " ok" : " LOW") : ""}`,
      "p50 ms": result.p50.toFixed(1),
      "p99 ms": result.p99.toFixed(1),
      errors: result.errors,
      queries: result.queries ?? "-",
      "search in Worker p50/p95 ms": result.server ? `${result.server.p50.toFixed(0)} / ${result.server.p95.toFixed(0)}` : "-",
      "JS gzip KiB": `${js.kb.toFixed(1)} (${js.files} files)${js.kb > JS_BUDGET_KB ? " OVER" : ""}`,
    };
  });
  console.table(rows);
  console.log(
    `Targets: the signed-in pages (${signedIn.join(
      ", ",
    )}) at ${RATIO_TARGET}x the static file or more; JavaScript per page at most ${JS_BUDGET_KB} KiB gzipped (1.15x Remix and React alone).`,
  );
  // Every other page's JavaScript against the same budget: the pages above are measured for speed, these for weight.
  const otherPages = [
    ["/signup", {}],
    ["/reset-password", {}],
    ["/add-site", {}],
    ["/newbeta", {}],
    ["/privacy", {}],
    ["/briefs", {}],
    ["/sites/new", { Cookie: cookie }],
    ["/feedback", { Cookie: cookie }],
    ["/mysite/messages", { Cookie: cookie }],
    ["/mysite/connects", { Cookie: cookie }],
    ["/mysite/settings", { Cookie: cookie }],
    ["/mysite/verify", { Cookie: cookie }],
  ];
  const weights = [];
  for (const [path, headers] of otherPages) {
    const js = await javascriptOf(path, headers);
    weights.push({ page: path, "JS gzip KiB": `${js.kb.toFixed(1)} (${js.files} files)${js.kb > JS_BUDGET_KB ? " OVER" : ""}` });
  }
  console.log("\nJavaScript of the other pages:");
  console.table(weights);
  const memory = workerMemory(worker.child.pid);
  console.log(`Worker memory after the pages: ${memory.rss.toFixed(0)} MiB resident (peak ${memory.peak.toFixed(0)} MiB), workerd and wrangler.`);

  // How fast one search answers: one client, one request at a time, so no time is spent queueing behind others.
  const latencyRows = [];
  for (const target of targets.filter((t) => t.path.startsWith("/search"))) {
    const server = [];
    const total = [];
    for (let i = 0; i < 150; i += 1) {
      const started = performance.now();
      const response = await fetch(`${base}${target.path}`, { headers: target.headers[i % target.headers.length] });
      await response.arrayBuffer();
      total.push(performance.now() - started);
      server.push(serverTimingOf(response, "search"));
    }
    latencyRows.push({
      search: target.name,
      "in Worker p50 ms": quantile(server, 0.5).toFixed(1),
      "in Worker p95 ms": quantile(server, 0.95).toFixed(1),
      "whole request p50 ms": quantile(total, 0.5).toFixed(1),
      "whole request p95 ms": quantile(total, 0.95).toFixed(1),
    });
  }
  console.log("\nOne search at a time (150 requests each):");
  console.table(latencyRows);

  if (!PAGES_ONLY) {
    const proposals = await proposalLoad(prepareProposers(Number(process.env.BENCH_PROPOSALS ?? 400)));
    const failed = [...proposals.failures.entries()].map(([status, n]) => `${n} x ${status}`).join(", ") || "none";
    console.log(`\nProposals to one listing from ${proposals.proposals} accounts, ${CONCURRENCY} at a time:`);
    console.table([
      {
        "proposals/s": proposals.perSecond.toFixed(0),
        "p50 ms": proposals.p50.toFixed(1),
        "p99 ms": proposals.p99.toFixed(1),
        errors: failed,
      },
    ]);
    const [held] = queryLocal(`SELECT COUNT(*) AS offers FROM offers`, persistTo);
    console.log(`Offers stored: ${held.offers}`);

    // The same CPU counter over static-file requests, so the check's own cost can be told from a request's.
    const staticCpuBefore = workerCpuSeconds(worker.child.pid);
    const staticRun = await load("/favicon.svg");
    const staticCpuMs = ((workerCpuSeconds(worker.child.pid) - staticCpuBefore) * 1000) / staticRun.requests;
    const checks = await verificationLoad(Number(process.env.BENCH_CHECKS ?? 300));
    const checkFailures = [...checks.failures.entries()].map(([status, n]) => `${n} x ${status}`).join(", ") || "none";
    console.log(`\nVerification checks against dev web sandbox pages (64 KB each), ${CONCURRENCY} at a time:`);
    console.table([
      {
        "checks/s": checks.perSecond.toFixed(0),
        "p50 ms": checks.p50.toFixed(1),
        "p99 ms": checks.p99.toFixed(1),
        "Worker CPU ms/check": checks.cpuMsPerCheck.toFixed(2),
        "Worker CPU ms/static request": staticCpuMs.toFixed(2),
        verified: `${checks.verified} of ${checks.checks}`,
        errors: checkFailures,
      },
    ]);

    const chat = await chatLoad(Number(process.env.BENCH_CHAT_SOCKETS ?? 100), Number(process.env.BENCH_CHAT_MESSAGES ?? 1000));
    console.log(
      `\nLive chat: ${chat.sockets} sockets in one conversation, ${chat.messages} messages from ${CONCURRENCY} senders (each waits for its echo):`,
    );
    console.table([
      {
        "messages/s": chat.perSecond.toFixed(0),
        "send to receipt p50 ms": chat.p50.toFixed(1),
        "send to receipt p99 ms": chat.p99.toFixed(1),
        deliveries: chat.sockets * chat.messages,
        lost: chat.lost,
        duplicated: chat.duplicated,
        "out of order": chat.outOfOrder,
      },
    ]);

    const webhooks = await webhookLoad(Number(process.env.BENCH_WEBHOOKS ?? 300), 5);
    const webhookFailures = [...webhooks.failures.entries()].map(([status, n]) => `${n} x ${status}`).join(", ") || "none";
    console.log(`\nStripe webhooks: ${webhooks.checkouts} paid checkouts, each event delivered 5 times, shuffled, ${CONCURRENCY} at a time:`);
    console.table([
      {
        "events/s": webhooks.perSecond.toFixed(0),
        "p50 ms": webhooks.p50.toFixed(1),
        "p99 ms": webhooks.p99.toFixed(1),
        errors: webhookFailures,
        "checkouts credited": `${webhooks.credited.owners} of ${webhooks.checkouts}`,
        "connects credited": `${webhooks.credited.connects} (expected ${30 * webhooks.checkouts})`,
        "double credits": webhooks.credited.doubled,
      },
    ]);
    const audits = await auditLoad(
      Number(process.env.BENCH_AUDITS ?? 120),
      Number(process.env.BENCH_PROPOSALS ?? 400) +
        1 +
        Number(process.env.BENCH_CHECKS ?? 300) +
        300 +
        Number(process.env.BENCH_LINK_CHECKS ?? 200) +
        10,
    );
    console.log(
      `\nWeekly audits by their five-minute job (40 per run, 64 KB home pages, robots.txt and sitemap in the dev web sandbox), ${audits.count} sites due:`,
    );
    console.table([
      {
        "audits/minute": audits.perMinute.toFixed(0),
        "job runs": audits.runs,
        "ms per run": audits.msPerRun.toFixed(0),
        "Worker CPU ms/audit": audits.cpuMsPerAudit.toFixed(2),
        audited: `${audits.audited} of ${audits.count}`,
        done: audits.done,
        scores: audits.scores,
      },
    ]);
    const links = await linkCheckLoad(
      Number(process.env.BENCH_LINK_CHECKS ?? 200),
      Number(process.env.BENCH_PROPOSALS ?? 400) + 1 + Number(process.env.BENCH_CHECKS ?? 300) + 300,
    );
    console.log(
      `\nDelivered-link re-checks by the five-minute job (up to 50 per run, 64 KB pages in the dev web sandbox), ${links.count} links due:`,
    );
    console.table([
      {
        "checks/minute": links.perMinute.toFixed(0),
        "job runs": links.runs,
        "ms per run": links.msPerRun.toFixed(0),
        "Worker CPU ms/check": links.cpuMsPerCheck.toFixed(2),
        checked: `${links.checked} of ${links.count}`,
        "still live": links.live,
      },
    ]);

    // Correctness is not a figure: a lost, duplicated or reordered message, or a double or missing credit, fails the run.
    if (
      chat.lost ||
      chat.duplicated ||
      chat.outOfOrder ||
      webhooks.credited.doubled ||
      webhooks.credited.owners !== webhooks.checkouts ||
      links.live !== links.count ||
      audits.done !== audits.count
    ) {
      console.error("\nFAILED: the chat, the webhook, the link checks or the audits lost or doubled something (see the tables above).");
      process.exitCode = 1;
    }
  }
} finally {
  worker?.stop();
  if (!keptState) rmSync(persistTo, { recursive: true, force: true });
}
