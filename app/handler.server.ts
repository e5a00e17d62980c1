/**
 * The Worker's handlers: every request goes to Remix with a typed load context; the cron triggers run the daily jobs and
 * the five-minute ones.
 * They are part of the Remix server build (the server entry exports them, `app/worker.ts` takes them from there), so
 * the Worker holds one copy of Remix, React Router, drizzle and the app's modules.
 */
import type { AppLoadContext, ServerBuild } from "@remix-run/cloudflare";
import { createRequestHandler } from "@remix-run/server-runtime";
import type { AppContext } from "./lib/context";
import { database } from "./lib/db.server";
import { isDevelopment, type Env } from "./lib/env";
import { RequestTiming, timedDatabase, withTiming } from "./lib/server-timing.server";
import { applySecurityHeaders, checkFormBody, DEV_SANDBOX_FORM_BYTES, isRefusedCrossSiteRequest, MAX_FORM_BYTES } from "./lib/security.server";
import { messages } from "./domain/messages";
import { dueAudits, everyFiveMinutes, runHousekeeping } from "./services/housekeeping.server";
import { chatAddressOf, openChatSocket, readMissedMessages } from "./services/chat-socket.server";
import { signInPolicy } from "./services/oauth.server";
import { paymentPolicy } from "./services/payments.server";

/**
 * The jobs of the cron triggers (wrangler.toml, where each must be named here): the daily jobs; the five-minute jobs
 * (expiry, link checks, verification re-checks, email); the weekly audits that are due, every five minutes too, a
 * minute later, in an invocation of their own, so that their requests to sites have the plan's whole subrequest
 * allowance per invocation.
 */
export const CRON_JOBS: Record<string, (context: AppContext) => Promise<void>> = {
  "17 3 * * *": runHousekeeping,
  "*/5 * * * *": everyFiveMinutes,
  "1-59/5 * * * *": dueAudits,
};

export { ChatRoom } from "./durable/chat-room";

function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

function plainRefusal(message: string, status: number, context: AppContext): Response {
  const response = new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  applySecurityHeaders(response.headers, context);
  return response;
}

const timedEnvs = new WeakMap<Env, Env>();

/**
 * In development, the bindings with the database timed (Server-Timing). Made once per bindings object, inheriting
 * the rest rather than copying them: a copy would read every binding on every request.
 */
function timedEnv(env: Env): Env {
  let timed = timedEnvs.get(env);
  if (!timed) timedEnvs.set(env, (timed = Object.create(env, { DB: { value: timedDatabase(env.DB), enumerable: true } }) as Env));
  return timed;
}

export function createContext(env: Env, ctx: ExecutionContext): AppContext {
  const timing = isDevelopment(env) ? new RequestTiming() : undefined;
  if (timing) env = timedEnv(env);
  let nonce: string | undefined;
  return {
    env,
    ctx,
    timing,
    db: database(env.DB),
    // Made when first read: only pages (and their CSP) need one, not data requests or redirects.
    get nonce() {
      return (nonce ??= createNonce());
    },
    now: () => Date.now(),
    responseHeaders: new Headers(),
    memo: new Map(),
  };
}

type RemixHandler = ReturnType<typeof createRequestHandler>;

/** The Worker for the Remix server build `build`: its handlers, and `handleFetch` for tests that bring a context. */
export function createWorker(build: ServerBuild) {
  const handleRemixRequest = createRequestHandler(build);
  /** Every request, with its context (its clock included, so tests can hold time still). */
  const handleFetch = (incoming: Request, context: AppContext): Promise<Response> =>
    context.timing
      ? withTiming(context.timing, () => respond(incoming, context, handleRemixRequest))
      : respond(incoming, context, handleRemixRequest);
  const handler = {
    fetch(incoming, env, ctx) {
      return handleFetch(incoming, createContext(env, ctx));
    },

    async scheduled(controller, env, ctx) {
      // The job's clock is the scheduled time, so a run (or a test) for a given moment behaves as at that moment.
      // (Assigned, not spread: a spread would read, and so make, the nonce a job never uses.)
      const context = Object.assign(createContext(env, ctx), { now: () => controller.scheduledTime, deliversAtEnd: true });
      const job = Object.hasOwn(CRON_JOBS, controller.cron) ? CRON_JOBS[controller.cron] : undefined;
      // A trigger with no job here (added in the dashboard, or mistyped) runs nothing rather than the wrong job.
      if (!job) return console.error(`No job for the cron trigger "${controller.cron}"`);
      ctx.waitUntil(job(context));
    },
  } satisfies ExportedHandler<Env>;
  return { handler, handleFetch };
}

async function respond(incoming: Request, context: AppContext, handleRemixRequest: RemixHandler): Promise<Response> {
  const chat = chatAddressOf(new URL(incoming.url));
  if (chat) {
    const answer = await (chat.part === "socket" ? openChatSocket : readMissedMessages)(incoming, context, chat.chatId);
    if (!(answer instanceof Response)) return plainRefusal(answer.message, answer.status, context);
    if (chat.part === "missed") applySecurityHeaders(answer.headers, context);
    return answer;
  }
  if (isRefusedCrossSiteRequest(incoming)) return plainRefusal(messages.crossSiteRefused, 403, context);
  // The sandbox's form, posted as a document or by the page's script (single fetch posts to `/dev/sites.data`).
  const sandboxForm = isDevelopment(context.env) && /^\/dev\/sites(\.data)?\/?$/i.test(new URL(incoming.url).pathname);
  const checked = await checkFormBody(incoming, sandboxForm ? DEV_SANDBOX_FORM_BYTES : MAX_FORM_BYTES);
  if (!checked.ok) return plainRefusal(checked.message, checked.status, context);
  const request = checked.request;
  // AppLoadContext extends AppContext (app/lib/context.ts); only its index signature differs.
  const remixResponse = await handleRemixRequest(request, context as AppLoadContext);
  const response = new Response(remixResponse.body, remixResponse);
  // The cookies the page's own answer sets come last, so they win over the request's (a browser keeps the last of a
  // name): a session replaced by a password change beats the slide of the session the request came with.
  const ownCookies = response.headers.getSetCookie();
  response.headers.delete("Set-Cookie");
  for (const [name, value] of context.responseHeaders) {
    if (name.toLowerCase() === "set-cookie") response.headers.append(name, value);
    else response.headers.set(name, value);
  }
  for (const cookie of ownCookies) response.headers.append("Set-Cookie", cookie);
  if (context.timing) response.headers.append("Server-Timing", context.timing.header());
  // Pages and data of a signed-in user are theirs alone: never stored by a browser cache or a shared one.
  // (A session lookup that failed counts as private too.)
  const signedIn = context.auth ? await context.auth.catch(() => true) : false;
  if (signedIn || response.headers.getSetCookie().some((cookie) => /session=/.test(cookie))) {
    response.headers.set("Cache-Control", "private, no-store");
    // Nor indexed: robots.txt keeps crawlers out of the signed-in paths it names, not out of every one.
    response.headers.set("X-Robots-Tag", "noindex");
  }
  // Every page may send a form on to the payment links and the sign-in providers: a page's policy is the one its
  // document came with, and the app moves between pages without loading another (the login page reached from the
  // landing page keeps the landing page's), while browsers hold a form's redirect to the policy's list. Only the
  // connects page loads Stripe's pricing table (it loads as a document where the table is configured); only the dev
  // mailbox shows emails' HTML, styled inline as emails are. (Paths as the router reads them: any letter case, a slash
  // at the end or not.)
  const pathname = new URL(request.url).pathname.toLowerCase().replace(/(.)\/+$/, "$1");
  const payments = paymentPolicy(context.env);
  const formTargets = [...payments.formTargets, ...signInPolicy(context.env).formTargets];
  const allow =
    pathname === "/mysite/connects"
      ? { ...payments, formTargets }
      : pathname === "/dev/mailbox"
      ? { inlineStyles: true, formTargets }
      : { formTargets };
  applySecurityHeaders(response.headers, context, allow);
  return response;
}
