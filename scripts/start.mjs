// npm start: build, apply migrations to the local D1, seed demo data when empty, and serve under wrangler dev.
import { applyMigrations, build, startWorker } from "./lib.mjs";
import { DEMO_EMAIL, DEMO_PASSWORD, seedIfEmpty } from "./seed.mjs";

const port = Number(process.env.PORT ?? 8787);
console.log("Building…");
build();
console.log("Applying D1 migrations to the local database…");
applyMigrations();
if (seedIfEmpty()) console.log("Seeded demo data (150 sites).");

// This machine's origin in emailed links (wrangler.toml's APP_URL is production's).
await startWorker({ port, inherit: true, withDevVars: true, vars: { APP_URL: `http://localhost:${port}` } });
console.log(`
  Backlink Market is running on http://localhost:${port}
  Demo account: ${DEMO_EMAIL} / ${DEMO_PASSWORD}
  Dev mailbox (reset links and other email): http://localhost:${port}/dev/mailbox
`);
