// npm test: typecheck, lint, formatting, schema against migrations, unit, build, integration (workerd) and e2e (Chromium),
// stopping at the first failure.
import { spawnSync } from "node:child_process";
import { findChromium, run } from "./lib.mjs";

function ensureChromium() {
  if (findChromium()) return;
  const canInstall = process.getuid?.() === 0 && spawnSync("which", ["apt-get"]).status === 0;
  if (canInstall) {
    console.log("Chromium not found; installing Debian's chromium with apt-get…");
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
    spawnSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  }
  if (!findChromium()) {
    console.error("Chromium not found: run `apt-get install -y chromium` (Debian) or set CHROME_PATH to a Chromium binary, then npm test again.");
    process.exit(1);
  }
}

const steps = [
  ["Typecheck", () => run("tsc", ["-p", "tsconfig.json", "--noEmit"])],
  ["Lint", () => run("eslint", ["."])],
  ["Formatting (Prettier, .prettierignore; `npm run format` fixes it)", () => run("prettier", ["--check", "."])],
  ["Schema and migrations agree (drizzle-kit)", () => run(process.execPath, ["scripts/check-migrations.mjs"])],
  ["Unit tests", () => run("vitest", ["run", "--config", "vitest.unit.config.ts"])],
  ["Build", () => run("remix", ["vite:build"])],
  ["Integration tests (workerd + D1)", () => run("vitest", ["run", "--config", "vitest.integration.config.ts"])],
  ["End-to-end tests (Chromium)", () => run("vitest", ["run", "--config", "vitest.e2e.config.ts"])],
];

ensureChromium();
for (const [name, step] of steps) {
  console.log(`\n=== ${name} ===`);
  try {
    step();
  } catch (error) {
    console.error(`\n${name} failed: ${error.message.split("\n")[0]}`);
    process.exit(1);
  }
}
console.log("\nAll checks passed.");
