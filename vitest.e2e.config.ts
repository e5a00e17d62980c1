import { defineConfig } from "vitest/config";
import tsconfigPaths from "vite-tsconfig-paths";

// Chromium (Debian's) driven by playwright-core against the built Worker under `wrangler dev`.
export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    include: ["tests/e2e/**/*.test.ts"],
    environment: "node",
    globalSetup: ["./tests/e2e/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
