import { readFileSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";

/**
 * The variables a developer's `.dev.vars` (or `.env`) sets, blank: wrangler reads those files for the tested Worker
 * too, and a real email key or `ENVIRONMENT=development` kept there would send mail from a test or change what it sees.
 * Blank turns off what those files switch on (a key, a transport, development); the bindings below set what the tests
 * need.
 */
function blankedLocalVariables(): Record<string, string> {
  const lines = [".dev.vars", ".env", ".env.local"].flatMap((file) => {
    try {
      return readFileSync(path.join(__dirname, file), "utf8").split("\n");
    } catch {
      return [];
    }
  });
  const names = lines.map((line) => /^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=/.exec(line)?.[1]).filter((name) => name !== undefined);
  return Object.fromEntries(names.map((name) => [name, ""]));
}

// Real requests into the built Worker (build first: `npm run build`), inside workerd, with D1 and migrations.
export default defineConfig({
  plugins: [
    tsconfigPaths(),
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ...blankedLocalVariables(),
          // No ENVIRONMENT: the tests run the Worker as production runs it (development features are tested with it set).
          APP_URL: "https://market.test",
          SIGNUP_DELAY_MS: "0",
          STARTER_CONNECTS: "20",
          GOOGLE_CLIENT_ID: "google-client",
          GOOGLE_CLIENT_SECRET: "google-secret",
          GITHUB_CLIENT_ID: "github-client",
          GITHUB_CLIENT_SECRET: "github-secret",
          STRIPE_WEBHOOK_SECRET: "whsec_integration_tests",
          STRIPE_SECRET_KEY: "sk_test_integration",
          STRIPE_PRICE_30: "price_30_connects",
          STRIPE_PRICE_60: "price_60_connects",
          STRIPE_PRICE_100: "price_100_connects",
          STRIPE_PAYMENT_LINK_30: "https://buy.stripe.com/test_30",
          STRIPE_PAYMENT_LINK_60: "https://buy.stripe.com/test_60",
          STRIPE_PAYMENT_LINK_100: "https://buy.stripe.com/test_100",
          TEST_MIGRATIONS: await readD1Migrations(path.join(__dirname, "migrations")),
        },
      },
    })),
  ],
  resolve: { alias: { "remix-server-build": path.join(__dirname, "build/server/index.js") } },
  test: {
    include: ["tests/integration/**/*.test.ts"],
    setupFiles: ["./tests/integration/apply-migrations.ts"],
    testTimeout: 30_000,
  },
});
