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

// Tests never reach the network: any outbound fetch a test did not answer with its own mock fails, as an
// unreachable site would. Work left running after a response (icon lookups) lands here too.
globalThis.fetch = (async (input: RequestInfo | URL) => {
  const url = input instanceof Request ? input.url : String(input);
  throw new TypeError(`The network is off in tests (${url})`);
}) as typeof fetch;
