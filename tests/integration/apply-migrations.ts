import { applyD1Migrations, env, type D1Migration } from "cloudflare:test";

declare global {
  // The bindings the tests read, on the type `cloudflare:test` gives `env`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Cloudflare {
    interface Env {
      DB: D1Database;
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
