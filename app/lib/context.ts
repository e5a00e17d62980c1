import type { Database } from "./db.server";
import type { Env } from "./env";
import type { RequestTiming } from "./server-timing.server";
import type { CurrentAuth, SessionRead } from "~/services/auth.server";

/** What every loader and action receives as `context`. */
export interface AppContext {
  env: Env;
  ctx: ExecutionContext;
  db: Database;
  /** Per-request nonce for the Content-Security-Policy. */
  nonce: string;
  /** Current time in epoch milliseconds; one place to control time. */
  now: () => number;
  /** Headers added to whatever response the request ends with (refreshed session cookies). */
  responseHeaders: Headers;
  /** Memo of the session lookup for this request. */
  auth?: Promise<CurrentAuth | null>;
  /** Statements waiting to be read in the session's own round trip; unset once it has been sent (`requireAuthWith`). */
  sessionReads?: SessionRead[];
  /** Development only: where the request's time goes, sent as a Server-Timing header. */
  timing?: RequestTiming;
  /** A scheduled job, which delivers the outbox itself as its last step: `deliverSoon` leaves what it queues to that. */
  deliversAtEnd?: boolean;
  /** Per-request memo: loaders that run in parallel share one query (see `once`). */
  memo: Map<string, Promise<unknown>>;
}

/** Runs `load` once per request for `key`, however many loaders ask. */
export function once<T>(context: AppContext, key: string, load: () => Promise<T>): Promise<T> {
  let pending = context.memo.get(key) as Promise<T> | undefined;
  if (!pending) {
    pending = load();
    context.memo.set(key, pending);
  }
  return pending;
}

declare module "@remix-run/server-runtime" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends AppContext {}
}
