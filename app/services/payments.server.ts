/**
 * Buying connects: Stripe Payment Links (one per bundle) carry the user's email and id; Stripe's
 * signed webhook is the only thing that credits connects. Each event is recorded once by its id and each checkout
 * session is credited once (unique keys written in the same batch as the credit, not checked first), and a refund
 * or a lost dispute takes back what is left of that purchase. See docs/decisions/0019-payments-hosted-links-webhook.md.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import Stripe from "stripe";
import { paymentEvents, users } from "#drizzle/schema";
import { CONNECT_BUNDLES, type ConnectBundle } from "~/domain/bundles";
import { connectsRefunded, oneYearAfter, type CheckoutOutcome } from "~/domain/connects";
import { formatMoney } from "~/domain/money";
import type { AppContext } from "~/lib/context";
import { batchStatements, type Database } from "~/lib/db.server";
import { isDevelopment, type Env } from "~/lib/env";
import { newId } from "~/lib/ids";
import { deliverSoon, emailToUser } from "./email.server";

/** Signs development's test purchases; they go straight to the webhook code, never through the webhook address. */
export const DEVELOPMENT_WEBHOOK_SECRET = "whsec_local_development_test_purchases_only";

export interface PaymentConfig {
  /** Verifies the webhook's signatures; null: the webhook answers 503 (no secret configured). */
  webhookSecret: string | null;
  /** The Stripe price id of each bundle, by connects. */
  prices: Map<number, string>;
  /** The Payment Link of each bundle, by connects. */
  links: Map<number, string>;
  pricingTable: { id: string; publishableKey: string } | null;
  /** Development without Stripe keys: test purchases signed with the local secret, through the same webhook code. */
  testPurchases: boolean;
  secretKey: string | null;
}

export function paymentConfig(env: Env): PaymentConfig {
  const testPurchases = isDevelopment(env) && !env.STRIPE_WEBHOOK_SECRET;
  const prices = new Map<number, string>();
  const links = new Map<number, string>();
  for (const bundle of CONNECT_BUNDLES) {
    const price = env[`STRIPE_PRICE_${bundle.connects}`];
    const link = env[`STRIPE_PAYMENT_LINK_${bundle.connects}`];
    if (price) prices.set(bundle.connects, price);
    else if (testPurchases) prices.set(bundle.connects, `price_test_${bundle.connects}_connects`);
    // A link that is no whole https address (a typo in the configuration) is not offered, rather than failing every page.
    if (link && isPaymentLink(link)) links.set(bundle.connects, link);
  }
  return {
    webhookSecret: env.STRIPE_WEBHOOK_SECRET || null,
    prices,
    links,
    pricingTable:
      env.STRIPE_PRICING_TABLE_ID && env.STRIPE_PUBLISHABLE_KEY
        ? { id: env.STRIPE_PRICING_TABLE_ID, publishableKey: env.STRIPE_PUBLISHABLE_KEY }
        : null,
    testPurchases,
    secretKey: env.STRIPE_SECRET_KEY || null,
  };
}

/** A configured Payment Link the pages can send buyers to: a whole https address (not "https://" alone, no spaces). */
function isPaymentLink(link: string): boolean {
  if (!URL.canParse(link) || /\s/.test(link)) return false;
  const url = new URL(link);
  return url.protocol === "https:" && url.hostname !== "";
}

/**
 * What the pages need beyond their own origin for payments: the payment links' origin, Stripe's table script (and the
 * inline styles its element sets). Chrome
 * holds every redirect after a form's post to the form-action list, and a Payment Link on buy.stripe.com goes on to
 * the checkout on checkout.stripe.com: "Pay" is such a post, so both are listed.
 */
export function paymentPolicy(env: Env): { formTargets: string[]; scripts: string[]; inlineStyles: boolean } {
  const config = paymentConfig(env);
  const origins = [...config.links.values()].map((link) => new URL(link).origin);
  return {
    formTargets: [
      ...new Set(origins.flatMap((origin) => (origin === "https://buy.stripe.com" ? [origin, "https://checkout.stripe.com"] : [origin]))),
    ],
    scripts: config.pricingTable ? ["https://js.stripe.com"] : [],
    // Stripe's table styles its own element.
    inlineStyles: config.pricingTable !== null,
  };
}

/** The bundle's Payment Link for this user: email prefilled, client_reference_id = the user's id. */
export function paymentLinkFor(config: PaymentConfig, connects: number, user: { id: string; email: string }): string | null {
  const link = config.links.get(connects);
  if (!link) return null;
  const url = new URL(link);
  url.searchParams.set("prefilled_email", user.email);
  url.searchParams.set("client_reference_id", user.id);
  return url.toString();
}

function stripeClient(config: PaymentConfig): Stripe {
  // Webhook checks need no key; the key is used only to read a checkout's line items.
  return new Stripe(config.secretKey ?? "sk_unconfigured", { httpClient: Stripe.createFetchHttpClient(), maxNetworkRetries: 2, timeout: 10_000 });
}

const subtleCrypto = Stripe.createSubtleCryptoProvider();

export interface WebhookAnswer {
  status: number;
  message: string;
}

/** A webhook from Stripe: verified, then acted on at most once. */
export async function receiveStripeWebhook(context: AppContext, payload: string, signature: string | null): Promise<WebhookAnswer> {
  const config = paymentConfig(context.env);
  if (!config.webhookSecret) {
    console.warn("stripe webhook: STRIPE_WEBHOOK_SECRET is not set");
    return { status: 503, message: "Payments are not configured." };
  }
  return verifyAndAct(context, config, payload, signature, config.webhookSecret);
}

async function verifyAndAct(
  context: AppContext,
  config: PaymentConfig,
  payload: string,
  signature: string | null,
  secret: string,
): Promise<WebhookAnswer> {
  let event: Stripe.Event;
  try {
    if (!signature) throw new Error("no Stripe-Signature header");
    event = await stripeClient(config).webhooks.constructEventAsync(payload, signature, secret, undefined, subtleCrypto, context.now());
  } catch (error) {
    console.warn("stripe webhook refused:", error instanceof Error ? error.message.split("\n")[0] : error);
    return { status: 400, message: "The signature of this event could not be verified." };
  }
  const answer = await actOn(context, config, event);
  // Replays are routine (Stripe retries); anything left uncredited or failed is logged with its reason.
  if (answer.status >= 400 || !["ok", "already credited", "already handled"].includes(answer.message)) {
    console.warn(`stripe webhook ${event.id} (${event.type}): ${answer.message}`);
  }
  return answer;
}

async function actOn(context: AppContext, config: PaymentConfig, event: Stripe.Event): Promise<WebhookAnswer> {
  switch (event.type) {
    case "checkout.session.completed": {
      const session = event.data.object;
      // Paid, or nothing to pay (a promotion code took the whole price off): credited now. A pending payment (a bank
      // debit) is credited by async_payment_succeeded when it clears.
      if (session.payment_status !== "unpaid") return credit(context, config, event, session);
      return ignore(context.db, event, `payment ${session.payment_status}; waiting`, context.now());
    }
    case "checkout.session.async_payment_succeeded":
      return credit(context, config, event, event.data.object);
    case "checkout.session.async_payment_failed":
      return recordFailedPayment(context, event, event.data.object);
    case "charge.refunded": {
      const charge = event.data.object;
      const share = (connects: number) => connectsRefunded(connects, charge.amount_refunded, charge.amount);
      return revoke(context, event, idOf(charge.payment_intent), share, "refund", (charge.created ?? event.created) * 1000);
    }
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      if (dispute.status !== "lost") return ignore(context.db, event, `dispute ${dispute.status}`, context.now());
      // A dispute closes weeks after its payment: its credit, if there was one, has long landed.
      return revoke(context, event, idOf(dispute.payment_intent), (connects) => connects, "chargeback", 0);
    }
    default:
      return { status: 200, message: `not handled: ${event.type}` };
  }
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : value?.id ?? null);

/**
 * Records an event that changes nothing (once), so the log says what came and why it was left; with its payment, for
 * a refund or lost dispute left (so a credit of that payment sent later knows).
 */
async function ignore(db: Database, event: Stripe.Event, note: string, now: number, paymentIntentId: string | null = null): Promise<WebhookAnswer> {
  // An event left before and sent again (once a price is configured, say) and left again says why this time.
  await db
    .insert(paymentEvents)
    .values({ id: event.id, type: event.type, outcome: "ignored", note, paymentIntentId, processedAt: now })
    .onConflictDoUpdate({ target: paymentEvents.id, set: { note }, where: eq(paymentEvents.outcome, "ignored") });
  return { status: 200, message: note };
}

/** The bundle bought, by the price id of the checkout's single line item (never by the amount paid). */
async function bundleOf(
  config: PaymentConfig,
  session: Stripe.Checkout.Session,
): Promise<{ bundle: ConnectBundle; quantity: number } | "unknown" | "unavailable"> {
  let items = session.line_items?.data;
  if (!items) {
    if (!config.secretKey) return "unavailable";
    items = (await stripeClient(config).checkout.sessions.listLineItems(session.id, { limit: 10 })).data;
  }
  if (items.length !== 1) return "unknown";
  const [item] = items;
  const priceId = item?.price?.id;
  const bundle = CONNECT_BUNDLES.find((candidate) => config.prices.get(candidate.connects) === priceId);
  return bundle ? { bundle, quantity: Math.max(1, item?.quantity ?? 1) } : "unknown";
}

/** Runs only when this request's own row holds the event: a replay (or another event of the session) does nothing. */
const claimed = (eventId: string, claim: string) => sql`EXISTS (SELECT 1 FROM payment_events WHERE id = ${eventId} AND claim = ${claim})`;

async function credit(context: AppContext, config: PaymentConfig, event: Stripe.Event, session: Stripe.Checkout.Session): Promise<WebhookAnswer> {
  const { db } = context;
  const now = context.now();
  const userId = session.client_reference_id;
  if (!userId) return ignore(db, event, "no client_reference_id", now);
  if (!(await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get())) return ignore(db, event, "unknown user", now);
  let bought;
  try {
    bought = await bundleOf(config, session);
  } catch (error) {
    // Stripe could not be asked: answer 500 so it tries again later.
    console.error("stripe line items", error);
    return { status: 500, message: "line items could not be read" };
  }
  if (bought === "unavailable") return { status: 500, message: "STRIPE_SECRET_KEY is needed to read the line items" };
  if (bought === "unknown") return ignore(db, event, "unknown price", now);
  // A checkout sent again (once its price is configured, say) after its payment was refunded or disputed and lost:
  // that money went back, so nothing is credited (docs/decisions/0054-payments-refunded-before-credit.md).
  const paymentIntentId = idOf(session.payment_intent);
  if (paymentIntentId && (await takenBackBeforeCredit(db, paymentIntentId)))
    return ignore(db, event, "refunded or disputed before it was credited", now);

  const connects = bought.bundle.connects * bought.quantity;
  const claim = newId();
  const lotId = newId();
  const purchasedAt = Math.min(now, event.created * 1000);
  const mine = claimed(event.id, claim);
  // Nothing paid (a promotion code took the whole price off): the receipt names no amount.
  const paid = session.amount_total ? `${formatMoney(session.amount_total, session.currency ?? "usd")} ` : "";
  await batchStatements(context.env.DB, [
    // A replay or a second event of this session writes nothing; an event recorded as ignored (an unknown price,
    // say) and sent again once the configuration is fixed is taken over and credited.
    sql`INSERT INTO payment_events (id, type, outcome, checkout_session_id, payment_intent_id, user_id, connects, lot_id, amount_total, currency, claim, processed_at)
      VALUES (${event.id}, ${event.type}, 'credited', ${session.id}, ${paymentIntentId}, ${userId}, ${connects}, ${lotId},
              ${session.amount_total}, ${session.currency}, ${claim}, ${now})
      ON CONFLICT (id) DO UPDATE SET outcome = 'credited', note = NULL, checkout_session_id = excluded.checkout_session_id,
        payment_intent_id = excluded.payment_intent_id, user_id = excluded.user_id, connects = excluded.connects, lot_id = excluded.lot_id,
        amount_total = excluded.amount_total, currency = excluded.currency, claim = excluded.claim, processed_at = excluded.processed_at
        WHERE payment_events.outcome = 'ignored'
          AND NOT EXISTS (SELECT 1 FROM payment_events WHERE checkout_session_id = excluded.checkout_session_id)
      ON CONFLICT DO NOTHING`,
    sql`INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at, payment_event_id, created_at)
      SELECT ${lotId}, ${userId}, 'purchase', ${connects}, ${connects}, ${oneYearAfter(purchasedAt)}, ${event.id}, ${now} WHERE ${mine}`,
    sql`UPDATE users SET connects = connects + ${connects} WHERE id = ${userId} AND ${mine}`,
    sql`INSERT INTO connect_ledger (id, user_id, kind, amount, held, lot_id, payment_event_id, created_at)
      SELECT ${newId()}, ${userId}, 'purchase', ${connects}, 0, ${lotId}, ${event.id}, ${now} WHERE ${mine}`,
    emailToUser(
      db,
      {
        userId,
        kind: "receipt",
        subject: `Your ${connects} connects are ready`,
        text: `Thank you for your purchase: ${connects} connects${
          paid ? ` for ${paid.trim()}` : ""
        }. They are in your balance now and can be spent until ${utcMinute(oneYearAfter(purchasedAt))}.\n\nYour connects and their history: ${new URL(
          "/mysite/connects",
          context.env.APP_URL,
        ).toString()}`,
        dedupeKey: `receipt:${session.id}`,
        onlyIf: mine,
      },
      now,
    ),
  ]);
  const row = await db.select({ claim: paymentEvents.claim }).from(paymentEvents).where(eq(paymentEvents.id, event.id)).get();
  if (row?.claim !== claim) return { status: 200, message: "already credited" };
  deliverSoon(context);
  return { status: 200, message: "ok" };
}

/**
 * A pending payment (a bank debit) that did not go through: nothing is credited. The checkout is recorded as failed,
 * so the page the buyer came back to says so instead of "still being processed", and the buyer is told by email, once.
 */
async function recordFailedPayment(context: AppContext, event: Stripe.Event, session: Stripe.Checkout.Session): Promise<WebhookAnswer> {
  const { db } = context;
  const now = context.now();
  const userId = session.client_reference_id;
  if (!userId || !(await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).get())) {
    return ignore(db, event, "payment failed; no known user", now);
  }
  const claim = newId();
  await batchStatements(context.env.DB, [
    // Once per checkout: a replay, or a second event of a checkout already recorded, writes nothing.
    sql`INSERT INTO payment_events (id, type, outcome, note, checkout_session_id, payment_intent_id, user_id, amount_total, currency, claim, processed_at)
      VALUES (${event.id}, ${event.type}, 'failed', 'payment failed', ${session.id}, ${idOf(session.payment_intent)}, ${userId},
              ${session.amount_total}, ${session.currency}, ${claim}, ${now})
      ON CONFLICT DO NOTHING`,
    emailToUser(
      db,
      {
        userId,
        kind: "payment-failed",
        subject: "Your payment for connects did not go through",
        text: `Your bank payment for connects did not go through, so no connects were added to your balance and nothing was taken.\n\nTo try again, choose a bundle on your Connects page: ${new URL(
          "/mysite/connects",
          context.env.APP_URL,
        ).toString()}`,
        dedupeKey: `payment-failed:${session.id}`,
        onlyIf: claimed(event.id, claim),
      },
      now,
    ),
  ]);
  deliverSoon(context);
  return { status: 200, message: "ok" };
}

/** A moment as an email names it to someone whose time zone the server does not know: "2027-11-27 14:03 UTC". */
const utcMinute = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** Whether a refund or lost dispute of this payment came when it had no credit to take back, and was left. */
async function takenBackBeforeCredit(db: Database, paymentIntentId: string): Promise<boolean> {
  const left = await db
    .select({ id: paymentEvents.id })
    .from(paymentEvents)
    .where(
      and(
        eq(paymentEvents.paymentIntentId, paymentIntentId),
        eq(paymentEvents.outcome, "ignored"),
        inArray(paymentEvents.type, ["charge.refunded", "charge.dispute.closed"]),
      ),
    )
    .get();
  return left !== undefined;
}

/** How long after a payment its credit may still be on its way (Stripe sends a checkout's events within seconds). */
const CREDIT_WAIT_MS = 60 * 60_000;

/**
 * A refund or a lost dispute: takes back what is still unspent of the purchase, up to the refunded share
 * (cumulative: Stripe reports the total refunded so far), so the balance never goes below zero. Unspent means in
 * its lot or in lots its returned holds became; what pending proposals hold of it is claimed as those holds come
 * back (the return trigger of migrations/0013); what was spent on accepted trades stays spent.
 */
async function revoke(
  context: AppContext,
  event: Stripe.Event,
  paymentIntentId: string | null,
  /** The connects of the purchase to take back in all (this event's and earlier ones' together). */
  share: (connects: number) => number,
  kind: "refund" | "chargeback",
  paidAt: number,
): Promise<WebhookAnswer> {
  const { db } = context;
  const now = context.now();
  const purchase = paymentIntentId
    ? await db
        .select({ id: paymentEvents.id, connects: paymentEvents.connects })
        .from(paymentEvents)
        .where(sql`${paymentEvents.paymentIntentId} = ${paymentIntentId} AND ${paymentEvents.outcome} = 'credited'`)
        .get()
    : undefined;
  if (!purchase?.connects) {
    // Events can come out of order: a refund soon after its payment, before the purchase's credit, is answered 503, so
    // Stripe sends it again (for up to three days) once the credit has landed; nothing is recorded, so the retry is
    // handled in full. A payment older than that was never credited here (a checkout left as ignored, another
    // product's charge on the same account): the event is recorded as left, not retried for days.
    if (now - paidAt < CREDIT_WAIT_MS) return { status: 503, message: "no credited purchase for this payment (yet)" };
    return ignore(db, event, "no credited purchase for this payment", now, paymentIntentId);
  }
  const target = share(purchase.connects);
  const claim = newId();
  const mine = claimed(event.id, claim);
  // This event's row holds what it takes now (connects) and what it claims from pending holds (connects_owed).
  const taken = sql`(SELECT connects FROM payment_events WHERE id = ${event.id} AND claim = ${claim})`;
  const owed = sql`(SELECT connects_owed FROM payment_events WHERE id = ${event.id} AND claim = ${claim})`;
  const purchaseLots = sql`SELECT id FROM connect_lots WHERE payment_event_id = ${purchase.id}`;
  await batchStatements(context.env.DB, [
    sql`INSERT INTO payment_events (id, type, outcome, payment_intent_id, user_id, lot_id, connects, connects_owed, claim, processed_at)
      SELECT ${event.id}, ${event.type}, 'revoked', ${paymentIntentId}, c.user_id, c.lot_id, n.take,
             max(0, min(n.need - n.take, n.held - c.connects_owed)), ${claim}, ${now}
      FROM payment_events c, (
        SELECT need, min(need, unspent) AS take, held FROM (
          SELECT max(0, ${target} - c2.connects_revoked - c2.connects_owed) AS need,
                 (SELECT coalesce(sum(remaining), 0) FROM connect_lots WHERE payment_event_id = ${purchase.id}) AS unspent,
                 (SELECT coalesce(sum(p.amount), 0) FROM connect_hold_parts p JOIN offers o ON o.id = p.offer_id AND o.status = 'pending'
                  WHERE p.lot_id IN (${purchaseLots})) AS held
          FROM payment_events c2 WHERE c2.id = ${purchase.id} AND true)
      ) AS n
      WHERE c.id = ${purchase.id}
      ON CONFLICT (id) DO UPDATE SET type = excluded.type, outcome = 'revoked', note = NULL,
        payment_intent_id = excluded.payment_intent_id, user_id = excluded.user_id, lot_id = excluded.lot_id,
        connects = excluded.connects, connects_owed = excluded.connects_owed, claim = excluded.claim, processed_at = excluded.processed_at
        -- A refund recorded as left (its purchase not credited yet) and sent again once it is, is taken over.
        WHERE payment_events.outcome = 'ignored'`,
    // Which lots give what: the ones that expire first, first (computed once, then applied).
    sql`INSERT INTO payment_takebacks (event_id, lot_id, amount)
      SELECT ${event.id}, id, portion FROM (
        SELECT id, min(remaining, max(0, ${taken} - coalesce(sum(remaining) OVER (ORDER BY expires_at, id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))) AS portion
        FROM connect_lots WHERE payment_event_id = ${purchase.id} AND remaining > 0 AND ${mine}
      ) WHERE portion > 0`,
    sql`UPDATE connect_lots SET remaining = remaining - (SELECT amount FROM payment_takebacks t WHERE t.event_id = ${event.id} AND t.lot_id = connect_lots.id)
      WHERE id IN (SELECT lot_id FROM payment_takebacks WHERE event_id = ${event.id}) AND ${mine}`,
    sql`UPDATE users SET connects = connects - ${taken}
      WHERE id = (SELECT user_id FROM payment_events WHERE id = ${purchase.id}) AND ${mine}`,
    sql`UPDATE payment_events SET connects_revoked = connects_revoked + ${taken}, connects_owed = connects_owed + ${owed}
      WHERE id = ${purchase.id} AND ${mine}`,
    sql`INSERT INTO connect_ledger (id, user_id, kind, amount, held, lot_id, payment_event_id, created_at)
      SELECT ${newId()}, c.user_id, ${kind}, -${taken}, 0, c.lot_id, ${event.id}, ${now}
      FROM payment_events c WHERE c.id = ${purchase.id} AND ${mine} AND ${taken} > 0`,
  ]);
  const row = await db
    .select({ claim: paymentEvents.claim, connects: paymentEvents.connects, owed: paymentEvents.connectsOwed })
    .from(paymentEvents)
    .where(eq(paymentEvents.id, event.id))
    .get();
  if (row?.claim !== claim) return { status: 200, message: "already handled" };
  return { status: 200, message: row.connects || row.owed ? "ok" : "nothing left to take back" };
}

/**
 * Development without Stripe: a checkout of the bundle, completed and paid, signed with the local secret and
 * handed to the same webhook code Stripe's events go through.
 */
export async function makeTestPurchase(context: AppContext, user: { id: string; email: string }, connects: number): Promise<WebhookAnswer> {
  const config = paymentConfig(context.env);
  const bundle = CONNECT_BUNDLES.find((candidate) => candidate.connects === connects);
  const priceId = config.prices.get(connects);
  if (!config.testPurchases || !bundle || !priceId) return { status: 404, message: "Test purchases are only for development without Stripe keys." };
  const sessionId = `cs_test_${newId().replaceAll("-", "")}`;
  const created = Math.floor(context.now() / 1000);
  const payload = JSON.stringify({
    id: `evt_test_${newId().replaceAll("-", "")}`,
    object: "event",
    type: "checkout.session.completed",
    created,
    livemode: false,
    data: {
      object: {
        id: sessionId,
        object: "checkout.session",
        client_reference_id: user.id,
        customer_email: user.email,
        payment_status: "paid",
        status: "complete",
        amount_total: bundle.priceUsd * 100,
        currency: "usd",
        payment_intent: `pi_test_${newId().replaceAll("-", "")}`,
        line_items: { object: "list", data: [{ object: "item", quantity: 1, price: { id: priceId, object: "price" } }] },
      },
    },
  });
  const signature = await stripeClient(config).webhooks.generateTestHeaderStringAsync({
    payload,
    secret: DEVELOPMENT_WEBHOOK_SECRET,
    timestamp: created,
    cryptoProvider: subtleCrypto,
  });
  return verifyAndAct(context, config, payload, signature, DEVELOPMENT_WEBHOOK_SECRET);
}

/**
 * What became of the checkout this user came back from (the return page's message): its connects credited, its
 * payment failed, or nothing known yet (null).
 */
export async function checkoutOutcome(db: Database, userId: string, checkoutSessionId: string): Promise<CheckoutOutcome> {
  const row = await db
    .select({ outcome: paymentEvents.outcome, connects: paymentEvents.connects })
    .from(paymentEvents)
    .where(
      sql`${paymentEvents.checkoutSessionId} = ${checkoutSessionId} AND ${paymentEvents.userId} = ${userId} AND ${paymentEvents.outcome} IN ('credited', 'failed')`,
    )
    .get();
  if (row?.outcome === "failed") return "failed";
  return row?.outcome === "credited" && row.connects !== null ? { credited: row.connects } : null;
}
