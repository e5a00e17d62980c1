// Demo data for local runs: a demo account and at least 150 sites over all categories, most with listings.
// Usage: node scripts/seed.mjs [--sites N] [--persist-to DIR] [--force]
import { randomBytes, scryptSync, randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { applyMigrations, executeFile, queryLocal } from "./lib.mjs";

export const DEMO_EMAIL = "demo@example.com";
export const DEMO_PASSWORD = "DemoTrader2024";
/** Owners of the other demo sites sign in with owner1@example.com ... and the same password. */

const TAGS = [
  "technology",
  "business",
  "blog",
  "seo",
  "marketing",
  "e-commerce",
  "dropshipping",
  "product-service",
  "news-journalism",
  "cybersecurity",
  "ai",
  "travel",
  "fin-tech",
];
const MATERIALS = ["blog-content", "short-description", "long-description", "logo"];
const CONTENT_TYPES = ["blog-post", "feature", "sub-link", "other"];
const WORDS = {
  technology: ["gadget", "byte", "stack", "devices", "cloud"],
  business: ["venture", "founder", "ledger", "growth", "office"],
  blog: ["notes", "journal", "diary", "stories", "musings"],
  seo: ["rank", "serp", "crawl", "keyword", "index"],
  marketing: ["funnel", "brand", "campaign", "audience", "promo"],
  "e-commerce": ["cart", "shopfront", "checkout", "market", "store"],
  dropshipping: ["supplier", "parcel", "fulfil", "ship", "crate"],
  "product-service": ["toolkit", "studio", "suite", "works", "labs"],
  "news-journalism": ["daily", "herald", "press", "wire", "bulletin"],
  cybersecurity: ["secure", "cipher", "shield", "vault", "patch"],
  ai: ["neural", "model", "prompt", "vector", "agent"],
  travel: ["nomad", "voyage", "trail", "passport", "island"],
  "fin-tech": ["wallet", "ledger", "coin", "payments", "budget"],
};
const ADJECTIVES = ["bright", "quiet", "urban", "clever", "simple", "open", "rapid", "golden", "little", "modern", "daily", "north"];
const TLDS = ["com", "io", "net", "org", "co", "blog", "app", "dev"];
/** Named local logos in public/logos (a site's icon may name one). */
const LOGOS = ["blog", "product", "cooking", "educational", "gaming"];

function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same format as app/services/passwords.server.ts. */
export function hashPassword(password) {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFKC"), salt, 32, { N: 16384, r: 8, p: 5, maxmem: 64 * 1024 * 1024 });
  return `scrypt$16384$8$5$${salt.toString("base64")}$${key.toString("base64")}`;
}

const q = (value) =>
  value === null || value === undefined ? "NULL" : typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`;

/** INSERT statements of 200 rows each. */
function insert(table, columns, rows) {
  const out = [];
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200).map((row) => `(${row.map(q).join(",")})`);
    out.push(`INSERT INTO ${table} (${columns.join(",")}) VALUES\n${chunk.join(",\n")};`);
  }
  return out;
}

/** The demo data as SQL statements, in the order they run (users before their sites). */
export function seedStatements({ sites: siteCount = 150, owners = Math.max(30, Math.ceil(siteCount / 3)), seed = 42, withDemo = true } = {}) {
  const random = prng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const some = (list, min, max) => {
    const count = min + Math.floor(random() * (max - min + 1));
    return [...list].sort(() => random() - 0.5).slice(0, count);
  };
  const now = Date.now();
  const year = 365 * 24 * 60 * 60 * 1000;
  const passwordHash = hashPassword(DEMO_PASSWORD);
  const users = [];
  const credentials = [];
  const lots = [];
  const ledger = [];
  const sites = [];
  const listings = [];

  const addUser = (email) => {
    const id = randomUUID();
    users.push([id, email, 1, 20, now]);
    credentials.push([id, passwordHash, now]);
    const lotId = randomUUID();
    lots.push([lotId, id, "starter", 20, 20, now + year, now]);
    ledger.push([randomUUID(), id, "grant", 20, lotId, now]);
    return id;
  };
  const addSite = (userId, host, tags, verified, createdAt, withListing) => {
    const id = randomUUID();
    const mainTag = tags[0];
    const score = random() < 0.08 ? null : Math.floor(random() * 96) + 3;
    const description = `${host.split(".")[0].replaceAll("-", " ")}: articles and resources about ${tags
      .map((t) => t.replace("-", " "))
      .join(", ")} for readers who want practical, well researched advice.`;
    const audited = score !== null;
    sites.push([
      id,
      userId,
      `https://${host}`,
      host,
      description,
      mainTag === "product-service" || mainTag === "e-commerce" ? "product" : "blog",
      verified ? 1 : 0,
      randomBytes(12).toString("hex"),
      verified ? createdAt : null,
      score,
      audited ? createdAt : null,
      JSON.stringify(tags),
      JSON.stringify(some(MATERIALS, 1, 3)),
      JSON.stringify(some(CONTENT_TYPES, 1, 3)),
      createdAt,
      pick(LOGOS),
      // Audit figures as the Your Score page shows them (docs/decisions/0011-authority-score-audit.md); domain authority needs a rank provider.
      audited ? Math.floor(random() * 71) : null,
      audited ? pick([10, 20, 30]) : null,
      audited ? Math.floor(random() * 40) : null,
      audited ? 40 + Math.floor(random() * 61) : null,
      audited ? pick([10, 10, 10, 20]) : null,
      // Their weekly audit a week from the seeding: the demo hosts have no pages for an audit to read, so an audit due at
      // once would only record a failed run for each, the demo account's own site among them.
      now + 7 * 24 * 3_600_000,
    ]);
    if (withListing) {
      listings.push([
        randomUUID(),
        id,
        userId,
        5 + Math.floor(random() * 26),
        JSON.stringify(some(CONTENT_TYPES, 1, 2)),
        JSON.stringify(some(MATERIALS, 1, 2)),
        1,
        createdAt,
      ]);
    }
  };

  const hosts = new Set(["demo-garden-journal.com"]);
  // A first seed has the demo account and owner1..N; later seeds (--force) add owners with a run-specific name.
  const run = withDemo ? "" : `-${seed}`;
  if (withDemo) addSite(addUser(DEMO_EMAIL), "demo-garden-journal.com", ["blog", "travel"], true, now - 1000, true);
  const ownerIds = Array.from({ length: owners }, (_, i) => addUser(`owner${run}${i + 1}@example.com`));
  for (let i = 0; i < siteCount; i += 1) {
    const mainTag = TAGS[i % TAGS.length];
    const tags = [
      mainTag,
      ...some(
        TAGS.filter((t) => t !== mainTag),
        0,
        2,
      ),
    ];
    let host;
    let tries = 0;
    do {
      host = `${pick(ADJECTIVES)}-${pick(WORDS[mainTag])}${random() < 0.3 ? Math.floor(random() * 100) : ""}${run}.${pick(TLDS)}`;
      // The names above run out at about 630,000 sites (a million never finished): then the site's number makes one.
      if ((tries += 1) > 20) host = `${pick(ADJECTIVES)}-${pick(WORDS[mainTag])}-${i + 1}${run}.${pick(TLDS)}`;
    } while (hosts.has(host));
    hosts.add(host);
    const verified = random() < 0.9;
    addSite(ownerIds[i % owners], host, tags, verified, now - (i + 1) * 3_600_000, verified);
  }

  return [
    ...insert("users", ["id", "email", "email_verified", "connects", "created_at"], users),
    ...insert("password_credentials", ["user_id", "password_hash", "updated_at"], credentials),
    ...insert("connect_lots", ["id", "user_id", "source", "amount", "remaining", "expires_at", "created_at"], lots),
    ...insert("connect_ledger", ["id", "user_id", "kind", "amount", "lot_id", "created_at"], ledger),
    ...insert(
      "sites",
      [
        "id",
        "user_id",
        "url",
        "host",
        "description",
        "category",
        "verified",
        "verification_token",
        "verified_at",
        "score",
        "score_run_at",
        "tags",
        "materials",
        "content_types",
        "created_at",
        "icon",
        "on_page_seo",
        "technical_seo",
        "links",
        "speed",
        "ssl",
        "audit_due_at",
      ],
      sites,
    ),
    ...insert("listings", ["id", "site_id", "user_id", "connects", "content_types", "materials", "active", "created_at"], listings),
  ];
}

/**
 * Seeds when the database has no users (or always with force); answers whether it seeded.
 * @param {{ persistTo?: string, sites?: number, force?: boolean }} [options]
 */
export function seedIfEmpty({ persistTo, sites = 150, force = false } = {}) {
  const [{ n }] = queryLocal("SELECT COUNT(*) AS n FROM users", persistTo);
  if (n > 0 && !force) return false;
  const dir = mkdtempSync(join(tmpdir(), "seed-"));
  const file = join(dir, "seed.sql");
  const statements = seedStatements({ sites, withDemo: n === 0, seed: n === 0 ? 42 : Date.now() % 1_000_000 });
  try {
    // In files of about 50 MB: a million sites make about a gigabyte of SQL, more than one string can hold.
    for (let start = 0; start < statements.length; ) {
      let end = start;
      for (let size = 0; end < statements.length && size < 50_000_000; end += 1) size += statements[end].length;
      writeFileSync(file, statements.slice(start, end).join("\n"));
      executeFile(file, persistTo);
      start = end;
    }
    // The search indexes as the weekly merge leaves them (one segment each; app/services/search.server.ts,
    // mergeSearchIndexes), not as many segments as the seed's statements wrote.
    queryLocal("INSERT INTO site_search (site_search) VALUES ('optimize')", persistTo);
    queryLocal("INSERT INTO site_grams (site_grams) VALUES ('optimize')", persistTo);
    queryLocal("INSERT INTO site_tag_search (site_tag_search) VALUES ('optimize')", persistTo);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const option = (name) => {
    const at = args.indexOf(name);
    return at === -1 ? undefined : args[at + 1];
  };
  applyMigrations(option("--persist-to"));
  const seeded = seedIfEmpty({ persistTo: option("--persist-to"), sites: Number(option("--sites") ?? 150), force: args.includes("--force") });
  console.log(seeded ? "Seeded demo data." : "The database already has data; nothing seeded (use --force to add more).");
}
