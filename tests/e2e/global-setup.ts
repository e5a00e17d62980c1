import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { applyMigrations, startWorker } from "../../scripts/lib.mjs";
import { seedIfEmpty } from "../../scripts/seed.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseURL: string;
    persistTo: string;
  }
}

/** E2E_PORT lets two checkouts run their e2e suites side by side. */
const PORT = Number(process.env.E2E_PORT ?? 8791);

/** A fresh local D1 with a little demo data, and the built Worker serving it. */
export default async function setup(project: TestProject) {
  const persistTo = mkdtempSync(join(tmpdir(), "e2e-state-"));
  applyMigrations(persistTo);
  // 60 sites: the market has three pages of posts.
  seedIfEmpty({ persistTo, sites: 60 });
  const baseURL = `http://localhost:${PORT}`;
  const worker = await startWorker({ port: PORT, persistTo, vars: { SIGNUP_DELAY_MS: "400", APP_URL: baseURL, ADDRESS_RATE_LIMIT_SCALE: "20" } });
  project.provide("baseURL", baseURL);
  project.provide("persistTo", persistTo);
  return () => {
    worker.stop();
    rmSync(persistTo, { recursive: true, force: true });
  };
}
