// npm test's check that the data model (drizzle/schema.ts) and the migrations agree: drizzle-kit generates from the
// schema against a copy of migrations/ (its snapshots in migrations/meta), and any migration it writes is a change to
// the schema that no migration makes yet. `npm run db:generate` writes that migration; one drizzle-kit cannot write
// (the search's virtual tables and triggers) starts as `drizzle-kit generate --custom`, which records the schema's
// snapshot with it (README, "Architecture").
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { root, run } from "./lib.mjs";

const copy = mkdtempSync(join(tmpdir(), "migrations-check-"));
try {
  cpSync(join(root, "migrations"), copy, { recursive: true });
  const before = new Set(readdirSync(copy));
  // drizzle-kit reads --out as relative to the working directory (an absolute path is not found).
  const args = ["generate", "--dialect", "sqlite", "--schema", "drizzle/schema.ts", "--out", relative(root, copy), "--breakpoints"];
  const output = run("drizzle-kit", args, { quiet: true });
  const written = readdirSync(copy).filter((name) => !before.has(name) && name.endsWith(".sql"));
  if (written.length === 0 && !output.includes("No schema changes")) {
    throw new Error(`drizzle-kit generate wrote no migration and did not say the schema is unchanged:\n${output}`);
  }
  if (written.length > 0) {
    const statements = written.map((name) => readFileSync(join(copy, name), "utf8")).join("\n");
    throw new Error(`drizzle/schema.ts has changes no migration makes (npm run db:generate writes them):\n${statements}`);
  }
  console.log("The schema and the migrations agree.");
} catch (error) {
  console.error(error.message);
  process.exitCode = 1;
} finally {
  rmSync(copy, { recursive: true, force: true });
}
