import type { ChatRoom } from "~/durable/chat-room";

/** Bindings, variables and secrets of the Worker (see README "Configuration"). */
export interface Env {
  DB: D1Database;
  ASSETS: Fetcher;
  /** One Durable Object per conversation: its messages and live sockets. */
  CHAT_ROOM: DurableObjectNamespace<ChatRoom>;
  /** Messages one participant may send to a conversation per minute (30 by default). */
  CHAT_MESSAGES_PER_MINUTE?: string;
  /** Searches per user (120 a minute), counted by Cloudflare's rate limiting binding. */
  SEARCH_LIMITER?: RateLimit;
  /** "development" turns on what only a local machine may have (dev mailbox, web sandbox, plain cookie names);
   * anything else, unset included, is production. */
  ENVIRONMENT?: string;
  /** Public origin of the product, used in emailed links and OAuth redirects. */
  APP_URL: string;
  SIGNUP_DELAY_MS?: string;
  STARTER_CONNECTS?: string;
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  /** How email leaves the outbox: resend, postmark, cloudflare, http or mailbox; unset, the first one configured. */
  EMAIL_TRANSPORT?: string;
  RESEND_API_KEY?: string;
  POSTMARK_SERVER_TOKEN?: string;
  /** Cloudflare's send_email binding. */
  SEND_EMAIL?: SendEmail;
  /** A generic HTTP email API (JSON POST with a bearer key). */
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /** Stripe (docs/decisions/0019-payments-hosted-links-webhook.md). The webhook secret verifies events; the secret key reads checkout line items. */
  STRIPE_WEBHOOK_SECRET?: string;
  STRIPE_SECRET_KEY?: string;
  /** Price id of each bundle: how a checkout's bundle is recognised. */
  STRIPE_PRICE_30?: string;
  STRIPE_PRICE_60?: string;
  STRIPE_PRICE_100?: string;
  /** Payment Link (https URL) of each bundle. */
  STRIPE_PAYMENT_LINK_30?: string;
  STRIPE_PAYMENT_LINK_60?: string;
  STRIPE_PAYMENT_LINK_100?: string;
  /** Stripe's embeddable pricing table, shown when both are set. */
  STRIPE_PRICING_TABLE_ID?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  /** Development: answer fetches of user addresses from the local web sandbox (/dev/sites). On by default in
   * development, off in tests, refused in production. */
  DEV_WEB_SANDBOX?: string;
  /** How many verified sites the five-minute job re-checks per run (default 10). */
  VERIFICATION_RECHECK_BATCH?: string;
  /** The rank provider of the audit (docs/decisions/0011-authority-score-audit.md): "openpagerank" (Open PageRank, domain authority) or "json" (any
   * endpoint answering {"domain_authority", "backlinks"}); unset, the audit has no domain authority. */
  RANK_PROVIDER?: string;
  /** Secret: the provider's API key (Open PageRank's API-OPR header; a bearer token for "json"). */
  RANK_PROVIDER_KEY?: string;
  /** "json" only: the address asked, with {host} standing for the audited site's host. */
  RANK_PROVIDER_URL?: string;
  /** How many due sites the audits' five-minute job audits per run (default 40: every site weekly up to ~80,000 sites). */
  AUDITS_PER_RUN?: string;
  /** Multiplies the per-address rate limits (1 by default); for test runners where everyone shares one address. */
  ADDRESS_RATE_LIMIT_SCALE?: string;
}

export function numberVar(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(parsed) ? parsed : fallback;
}

/** Development is asked for explicitly (`npm start` does); everything else behaves as production. */
export function isDevelopment(env: Env): boolean {
  return env.ENVIRONMENT === "development";
}

export function isProduction(env: Env): boolean {
  return !isDevelopment(env);
}

/**
 * Whether APP_URL can be put in front of users: in production it must be the public https origin. A deploy that left
 * it at its local default would send emailed links and the OAuth providers' way back to localhost.
 */
export function hasPublicAppUrl(env: Env): boolean {
  return isDevelopment(env) || env.APP_URL.startsWith("https://");
}
