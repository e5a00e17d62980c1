import { afterEach, beforeEach, vi } from "vitest";
import { applyD1Migrations, env, type D1Migration } from "cloudflare:test";
import type { ChatRoom } from "~/durable/chat-room";

declare global {
  // The bindings the tests read, on the type `cloudflare:test` gives `env`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Cloudflare {
    interface Env {
      DB: D1Database;
      CHAT_ROOM: DurableObjectNamespace<ChatRoom>;
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

// A console.error during a test fails it, unless the test expects it (by mocking console.error itself).
const logged: unknown[][] = [];
beforeEach(() => {
  logged.length = 0;
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args));
});
afterEach(() => {
  if (logged.length > 0) {
    const first = logged.map((args) => args.map((arg) => (arg instanceof Error ? arg.stack : String(arg))).join(" ")).join("\n");
    throw new Error(`console.error was called during the test:\n${first.slice(0, 2000)}`);
  }
});
