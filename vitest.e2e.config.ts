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
    // What the page shows after a fetch or a socket message: on a loaded CI machine that can take more than the
    // default second (the market's "More posts" once took longer), so polls wait up to 10 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
