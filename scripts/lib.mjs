// Helpers shared by the start, seed, test and bench scripts (Node 22 through the `node` devDependency).
import { spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The project's folder, with a slash at its end (a path with spaces too: not a URL's escaped path). */
export const root = fileURLToPath(new URL("..", import.meta.url));
process.env.WRANGLER_SEND_METRICS = "false";

const bin = (name) => `${root}node_modules/.bin/${name}`;

/** Runs a command to its end; throws with its output when it fails. */
export function run(command, args, { quiet = false, env = {} } = {}) {
  const result = spawnSync(command.includes("/") ? command : bin(command), args, {
    cwd: root,
    stdio: quiet ? "pipe" : "inherit",
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    const output = quiet ? `\n${result.stdout ?? ""}${result.stderr ?? ""}` : "";
    throw new Error(`${command} ${args.join(" ")} failed with ${result.status}${output}`);
  }
  return result.stdout ?? "";
}

export function build() {
  run("remix", ["vite:build"], { quiet: true });
}

const persistArgs = (persistTo) => (persistTo ? ["--persist-to", persistTo] : []);

export function applyMigrations(persistTo) {
  run("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...persistArgs(persistTo)], { quiet: true, env: { CI: "true" } });
}

export function queryLocal(sql, persistTo) {
  const out = run("wrangler", ["d1", "execute", "DB", "--local", "--json", "--command", sql, ...persistArgs(persistTo)], { quiet: true });
  return JSON.parse(out.slice(out.indexOf("[")))[0].results;
}

export function executeFile(file, persistTo) {
  run("wrangler", ["d1", "execute", "DB", "--local", "--file", file, ...persistArgs(persistTo)], { quiet: true, env: { CI: "true" } });
}

/**
 * Starts `wrangler dev` on the built Worker and resolves once it answers. `localObservability: false` turns off
 * wrangler's local observability (on by default): it traces every invocation of the Worker, each database call
 * included, to a collector on the Worker's own thread, which a deployed Worker does not pay for.
 */
function emptyEnvFile() {
  const path = join(tmpdir(), "backlink-market-no-dev-vars.env");
  writeFileSync(path, "");
  return path;
}

/** Whether something answers HTTP on this local port. */
async function answers(port) {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * The built Worker under `wrangler dev`. `withDevVars`: reads the developer's `.dev.vars` (for `npm start`); tests and
 * measurements run without it, so a real email key or Stripe secret kept there neither sends mail nor changes a page.
 */
export async function startWorker({ port, persistTo, vars = {}, inherit = false, localObservability = true, withDevVars = false }) {
  // Something already answering there (a Worker left running by an interrupted run) would pass for this one.
  if (await answers(port)) throw new Error(`port ${port} is already in use: stop what runs there first`);
  // --test-scheduled: GET /__scheduled?cron=… runs a cron job on this local Worker (the daily jobs, "*/5 * * * *", or the audits' "1-59/5 * * * *").
  const args = [
    "dev",
    "--port",
    String(port),
    "--ip",
    "127.0.0.1",
    ...persistArgs(persistTo),
    "--show-interactive-dev-session=false",
    "--test-scheduled",
    // An env file given in its place (an empty one) keeps wrangler from loading .dev.vars.
    ...(withDevVars ? [] : ["--env-file", emptyEnvFile()]),
  ];
  // Local runs are development explicitly; the Worker treats anything else as production.
  for (const [name, value] of Object.entries({ ENVIRONMENT: "development", ...vars })) args.push("--var", `${name}:${value}`);
  const child = spawn(bin("wrangler"), args, {
    cwd: root,
    stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...(localObservability ? {} : { X_LOCAL_OBSERVABILITY: "false" }) },
    detached: !inherit,
  });
  let log = "";
  if (!inherit) {
    child.stdout.on("data", (chunk) => (log += chunk));
    child.stderr.on("data", (chunk) => (log += chunk));
  }
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited:\n${log}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/favicon.svg`);
      if (response.ok) return { child, stop: () => stopProcess(child), log: () => log };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  stopProcess(child);
  throw new Error(`wrangler dev did not answer on port ${port} within 60 s:\n${log}`);
}

/**
 * Signed-in sessions of `count` seeded owners from the `offset`-th on, each on its own site, made in the database as
 * a sign-in makes them (the token's hash stored): each with its `cookie`, `userId`, `siteId`, `host` and verification
 * `token`.
 */
export function ownerSessions(persistTo, count, offset = 0) {
  const rows = queryLocal(
    `SELECT s.user_id AS userId, s.id AS siteId, s.host, s.verification_token AS token FROM sites s
     WHERE s.user_id IN (SELECT id FROM users WHERE email LIKE 'owner%') GROUP BY s.user_id LIMIT ${count} OFFSET ${offset}`,
    persistTo,
  );
  if (rows.length < count) {
    throw new Error(`${count} seeded owners are needed after the first ${offset}, and the database has ${rows.length}: seed more sites.`);
  }
  const far = Date.now() + 30 * 24 * 3600 * 1000;
  const sessions = rows.map((row) => {
    const token = randomBytes(20).toString("hex");
    return { ...row, cookie: `session=${token}`, id: createHash("sha256").update(token).digest("hex") };
  });
  const file = join(persistTo, `sessions-${offset}-${count}.sql`);
  writeFileSync(
    file,
    `INSERT INTO sessions (id, user_id, active_site_id, expires_at, absolute_expires_at) VALUES\n${sessions
      .map((session) => `('${session.id}', '${session.userId}', '${session.siteId}', ${far}, ${far})`)
      .join(",\n")};`,
  );
  executeFile(file, persistTo);
  return sessions;
}

/** The value below which a share `q` of the values fall. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/**
 * Closed-loop load: `clients` clients each call `send` again as soon as their last call is answered, until `seconds`
 * have passed. Returns the seconds it took (the last answers come in after the deadline).
 */
export async function closedLoop({ clients, seconds }, send) {
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < stopAt) await send();
    }),
  );
  return (performance.now() - started) / 1000;
}

/** A `Server-Timing` entry's duration in ms (NaN when the answer has none): `search` is the search's time in the Worker. */
export function serverTimingOf(response, name) {
  const entry = response.headers.get("Server-Timing")?.match(new RegExp(`(?:^|,\\s*)${name};dur=([\\d.]+)`));
  return Number(entry?.[1] ?? NaN);
}

export function stopProcess(child) {
  if (child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

/** Debian's Chromium, or the one CHROME_PATH names. */
export function findChromium() {
  const candidates = [process.env.CHROME_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(Boolean);
  return candidates.find((path) => existsSync(path)) ?? null;
}
