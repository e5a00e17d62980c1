/**
 * The only way to fetch an address a user typed: public names over http(s) on default ports,
 * redirects followed by hand (at most 3, each hop checked again), one 10 s deadline that also covers reading the
 * body, at most 2 MiB read, and a User-Agent naming the product. Every refusal carries a reason a user can read.
 * See docs/decisions/0020-safe-fetch.md.
 */
import { messages } from "~/domain/messages";
import type { Database } from "./db.server";
import { isDevelopment, type Env } from "./env";
import { checkPublicAddress, type AddressRefusal } from "./public-address";
import { sandboxTransport } from "./web-sandbox.server";

export type FetchFailureReason = AddressRefusal | "too_many_redirects" | "timeout" | "too_large" | "name_not_found" | "unreachable";

export const FETCH_FAILURE_MESSAGES: Record<FetchFailureReason, string> = {
  invalid: messages.fetchInvalid,
  scheme: messages.fetchScheme,
  credentials: messages.fetchCredentials,
  port: messages.fetchPort,
  private_network: messages.fetchPrivateNetwork,
  ip_literal: messages.fetchIpLiteral,
  local_name: messages.fetchLocalName,
  too_many_redirects: messages.fetchTooManyRedirects,
  timeout: messages.fetchTimeout,
  too_large: messages.fetchTooLarge,
  name_not_found: messages.fetchNameNotFound,
  unreachable: messages.fetchUnreachable,
};

/** Thrown by transports (and the capped body) to name why a fetch stopped. */
export class SafeFetchError extends Error {
  constructor(readonly reason: FetchFailureReason) {
    super(FETCH_FAILURE_MESSAGES[reason]);
    this.name = "SafeFetchError";
  }
}

/** Sends one request; the real network in production, the local web sandbox in development. */
export type Transport = (request: Request) => Promise<Response>;

export interface SafeFetchOptions {
  userAgent: string;
  transport?: Transport;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  accept?: string;
  /** Epoch ms by which this fetch must be over, shared by the fetches of one task; sooner than timeoutMs wins. */
  deadline?: number;
  /**
   * A scheduled job's fetch: the Worker's own subrequest limit is thrown (WorkerLimitError) for the job to leave the
   * item for a later run. Elsewhere it is answered as the site being unreachable, as any network failure.
   */
  throwOnWorkerLimit?: boolean;
}

export const SAFE_FETCH_LIMITS = { timeoutMs: 10_000, maxBytes: 2 * 1024 * 1024, maxRedirects: 3 } as const;

export interface FetchRefused {
  ok: false;
  reason: FetchFailureReason;
  message: string;
  /** The address that was refused or failed (after redirects, the hop that did). */
  url: string;
}

export interface FetchedPage {
  ok: true;
  /** The final address, after redirects. */
  url: string;
  status: number;
  headers: Headers;
  /** The addresses that redirected, in order. */
  redirects: string[];
  /**
   * The body, capped at maxBytes and bound to the deadline. When either is passed the body simply ends early
   * (an error thrown through the runtime's own stream readers would surface as an unhandled rejection), so a
   * reader must ask `failure()` after the end before trusting what it read.
   */
  body: ReadableStream<Uint8Array>;
  /** Why the body ended early, if it did. */
  failure(): FetchFailureReason | null;
  /** Stops reading and releases the connection and the timer. */
  cancel(): Promise<void>;
}

export function refused(reason: FetchFailureReason, url: string): FetchRefused {
  return { ok: false, reason, message: FETCH_FAILURE_MESSAGES[reason], url };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The Worker's own limit on outbound requests in one invocation was reached ("Too many subrequests"): nothing is known
 * about the site. Thrown for a job that asks (`throwOnWorkerLimit`), which leaves the item for a later run (its claim
 * lapses) instead of counting it against the site.
 */
export class WorkerLimitError extends Error {
  constructor(cause: unknown) {
    super("The Worker's subrequest limit for this invocation was reached", { cause });
    this.name = "WorkerLimitError";
  }
}

function isWorkerLimit(error: unknown): boolean {
  return error instanceof Error && /too many subrequests/i.test(error.message);
}

function networkReason(error: unknown): FetchFailureReason {
  if (error instanceof SafeFetchError) return error.reason;
  const text = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /dns|resolv|not known|enotfound|getaddrinfo|no such host|name not resolved|name_not_resolved/i.test(text) ? "name_not_found" : "unreachable";
}

/** Settles with the promise, or rejects with a timeout as soon as the deadline passes. */
function beforeDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new SafeFetchError("timeout"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new SafeFetchError("timeout"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(signal.aborted ? new SafeFetchError("timeout") : error);
      },
    );
  });
}

/** Fetches a user-supplied address under the rules above. The caller reads or cancels `body`. */
export async function safeFetch(address: string, options: SafeFetchOptions): Promise<FetchedPage | FetchRefused> {
  const { maxBytes, maxRedirects } = { ...SAFE_FETCH_LIMITS, ...options };
  const timeoutMs = Math.max(0, Math.min(options.timeoutMs ?? SAFE_FETCH_LIMITS.timeoutMs, (options.deadline ?? Infinity) - Date.now()));
  const transport = options.transport ?? ((request: Request) => fetch(request));
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const release = () => clearTimeout(timer);
  const redirects: string[] = [];
  let current = address;

  for (let hop = 0; ; hop += 1) {
    const checked = checkPublicAddress(current);
    if (!checked.ok) {
      release();
      return refused(checked.refusal, current);
    }
    let response: Response;
    try {
      const request = new Request(checked.url.href, {
        method: "GET",
        redirect: "manual",
        signal: deadline.signal,
        headers: { "User-Agent": options.userAgent, Accept: options.accept ?? "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" },
      });
      response = await beforeDeadline(transport(request), deadline.signal);
    } catch (error) {
      release();
      if (options.throwOnWorkerLimit && isWorkerLimit(error)) throw new WorkerLimitError(error);
      return refused(deadline.signal.aborted ? "timeout" : networkReason(error), checked.url.href);
    }
    if (response.status === 530) {
      // Cloudflare's answer when the name does not resolve (error 1016).
      await response.body?.cancel().catch(() => undefined);
      release();
      return refused("name_not_found", checked.url.href);
    }
    const location = response.headers.get("Location");
    if (REDIRECT_STATUSES.has(response.status) && location) {
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) {
        release();
        return refused("too_many_redirects", checked.url.href);
      }
      let next: string;
      try {
        next = new URL(location, checked.url).href;
      } catch {
        release();
        return refused("invalid", location);
      }
      redirects.push(checked.url.href);
      current = next;
      continue;
    }
    // A declared length over the cap is not refused: a reader of the head stops long before the cap.
    return {
      ok: true,
      url: checked.url.href,
      status: response.status,
      headers: response.headers,
      redirects,
      ...cappedBody(response.body, maxBytes, deadline.signal, release),
    };
  }
}

function cappedBody(source: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal, release: () => void) {
  const reader = source?.getReader();
  let total = 0;
  let failure: FetchFailureReason | null = null;
  const stop = async () => {
    release();
    await reader?.cancel().catch(() => undefined);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = reader ? await beforeDeadline(reader.read(), signal) : { done: true as const, value: undefined };
          if (chunk.done) {
            release();
            controller.close();
            return;
          }
          total += chunk.value.byteLength;
          if (total > maxBytes) throw new SafeFetchError("too_large");
          controller.enqueue(chunk.value);
        } catch (error) {
          failure = error instanceof SafeFetchError ? error.reason : "unreachable";
          await stop();
          controller.close();
        }
      },
      cancel: stop,
    },
    { highWaterMark: 0 },
  );
  return {
    body,
    failure: () => failure,
    cancel: async () => {
      await body.cancel().catch(() => undefined);
      await stop();
    },
  };
}

/** Reads the whole (capped) body as text. */
export async function readText(page: FetchedPage): Promise<{ ok: true; text: string } | FetchRefused> {
  try {
    const text = await new Response(page.body).text();
    const failure = page.failure();
    return failure ? refused(failure, page.url) : { ok: true, text };
  } catch (error) {
    return refused(page.failure() ?? networkReason(error), page.url);
  }
}

/** The local web sandbox answers instead of the network in development (docs/decisions/0021-local-web-sandbox.md); never in production. */
export function isWebSandboxOn(env: Env): boolean {
  if (!isDevelopment(env)) return false;
  const setting = (env.DEV_WEB_SANDBOX ?? "").toLowerCase();
  return setting === "" || setting === "1" || setting === "on" || setting === "true";
}

/** The options every fetch of a user-supplied address uses: the product's User-Agent and the right transport. */
export function safeFetchOptionsFor(env: Env, db: Database): SafeFetchOptions {
  return {
    userAgent: `BacklinkMarket/1.0 (+${env.APP_URL})`,
    transport: isWebSandboxOn(env) ? sandboxTransport(db) : undefined,
  };
}
