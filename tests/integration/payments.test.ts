import { env, SELF } from "cloudflare:test";
import Stripe from "stripe";
import { describe, expect, it, vi } from "vitest";
import { messages } from "~/domain/messages";
import { DEVELOPMENT_WEBHOOK_SECRET } from "~/services/payments.server";
import { act, BASE, devFetch, get, listSite, post, propose, read, trader, uniqueHost } from "./helpers";

const SECRET = "whsec_integration_tests";
const stripe = new Stripe("sk_test_integration", { httpClient: Stripe.createFetchHttpClient() });
const crypto = Stripe.createSubtleCryptoProvider();

let counter = 0;
const uniqueId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

interface SessionOptions {
  userId?: string | null;
  price?: string;
  paid?: "paid" | "unpaid";
  sessionId?: string;
  paymentIntent?: string;
  /** Leave the line items out, as Stripe's real events do (the Worker then asks Stripe's API). */
  withoutLineItems?: boolean;
}

function checkoutEvent(type: string, options: SessionOptions = {}) {
  const price = options.price ?? "price_30_connects";
  return {
    id: uniqueId("evt"),
    object: "event",
    type,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: options.sessionId ?? uniqueId("cs_test"),
        object: "checkout.session",
        client_reference_id: options.userId === undefined ? null : options.userId,
        payment_status: options.paid ?? "paid",
        status: "complete",
        amount_total: 2000,
        currency: "usd",
        payment_intent: options.paymentIntent ?? uniqueId("pi"),
        ...(options.withoutLineItems
          ? {}
          : { line_items: { object: "list", data: [{ object: "item", quantity: 1, price: { id: price, object: "price" } }] } }),
      },
    },
  };
}

/** Stripe's event for a dispute of this payment that has closed, `lost` or `won`. */
function disputeClosed(paymentIntent: string, status: string) {
  return {
    id: uniqueId("evt"),
    object: "event",
    type: "charge.dispute.closed",
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: uniqueId("dp"), object: "dispute", status, payment_intent: paymentIntent } },
  };
}

/** Posts an event to the webhook as Stripe does: the raw JSON and its signature, made by the SDK's test helper. */
async function deliver(event: object, { secret = SECRET, timestamp = Math.floor(Date.now() / 1000) } = {}) {
  const payload = JSON.stringify(event);
  const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp, cryptoProvider: crypto });
  return SELF.fetch(`${BASE}/webhooks/stripe`, {
    method: "POST",
    body: payload,
    headers: { "Content-Type": "application/json", "Stripe-Signature": signature },
  });
}

async function balanceOf(userId: string) {
  return (await env.DB.prepare("SELECT connects FROM users WHERE id = ?").bind(userId).first<{ connects: number }>())!.connects;
}

async function purchasesOf(userId: string) {
  const { results } = await env.DB.prepare("SELECT amount, remaining, expires_at FROM connect_lots WHERE user_id = ? AND source = 'purchase'")
    .bind(userId)
    .all<{
      amount: number;
      remaining: number;
      expires_at: number;
    }>();
  return results;
}

async function ledgerKinds(userId: string) {
  const { results } = await env.DB.prepare("SELECT kind, amount FROM connect_ledger WHERE user_id = ? ORDER BY created_at, rowid")
    .bind(userId)
    .all<{ kind: string; amount: number }>();
  return results;
}

describe("the Stripe webhook credits connects", () => {
  it("a paid checkout credits its bundle as a lot expiring a year later, with a ledger entry, a receipt and the history line", async () => {
    const user = await trader();
    const before = Date.now();
    const response = await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, price: "price_60_connects" }));
    expect(response.status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20 + 60);
    const [lot] = await purchasesOf(user.userId);
    expect(lot).toMatchObject({ amount: 60, remaining: 60 });
    // A calendar year after the payment (the event's time, here within the last second).
    const paidAt = new Date(lot!.expires_at);
    paidAt.setUTCFullYear(paidAt.getUTCFullYear() - 1);
    expect(paidAt.getTime()).toBeGreaterThan(before - 1000);
    expect(paidAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await ledgerKinds(user.userId)).toEqual([
      { kind: "grant", amount: 20 },
      { kind: "purchase", amount: 60 },
    ]);
    const receipt = await env.DB.prepare("SELECT subject, text_body FROM email_outbox WHERE to_address = ? AND kind = 'receipt'")
      .bind(user.email)
      .first<{ subject: string; text_body: string }>();
    expect(receipt!.subject).toBe("Your 60 connects are ready");
    expect(receipt!.text_body).toContain("$20.00");
    const until = new Date(lot!.expires_at).toISOString();
    expect(receipt!.text_body).toContain(`can be spent until ${until.slice(0, 10)} ${until.slice(11, 16)} UTC.`);
    expect(receipt!.text_body).toContain("https://market.test/mysite/connects");

    const page = await read(await get("/mysite/connects", { cookie: user.cookie }));
    expect(page).toContain('data-testid="available-connects">80<');
    expect(page).toContain("Purchase (receipt: $20.00 paid)");
  });

  it("a pending payment is credited when its async payment succeeds, not before", async () => {
    const user = await trader();
    const sessionId = uniqueId("cs_test");
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, paid: "unpaid", sessionId }))).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
    expect((await deliver(checkoutEvent("checkout.session.async_payment_succeeded", { userId: user.userId, sessionId }))).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
  });

  it("a checkout with nothing to pay (a promotion code took the whole price off) is credited at once, its receipt naming no amount", async () => {
    const user = await trader();
    const event = checkoutEvent("checkout.session.completed", { userId: user.userId });
    Object.assign(event.data.object, { payment_status: "no_payment_required", amount_total: 0 });
    expect((await deliver(event)).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
    const receipt = await env.DB.prepare("SELECT text_body FROM email_outbox WHERE to_address = ? AND kind = 'receipt'")
      .bind(user.email)
      .first<{ text_body: string }>();
    expect(receipt!.text_body).toMatch(/^Thank you for your purchase: 30 connects\. /);
    // The history's row says what it was, with no "$0.00 paid".
    const page = await read(await get("/mysite/connects", { cookie: user.cookie }));
    const history = page.slice(page.indexOf('data-testid="connects-history"'));
    expect(history).toMatch(/<td>Purchase<\/td><td>\+30<\/td>/);
    expect(history).not.toContain("receipt:");
  });

  it("the same event replayed 10 times, one after another and at once, is credited once", async () => {
    const user = await trader();
    const event = checkoutEvent("checkout.session.completed", { userId: user.userId });
    for (let i = 0; i < 10; i++) expect((await deliver(event)).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(event)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await balanceOf(user.userId)).toBe(50);
    expect(await purchasesOf(user.userId)).toHaveLength(1);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM email_outbox WHERE to_address = ? AND kind = 'receipt'")
      .bind(user.email)
      .first<{ n: number }>())!;
    expect(n).toBe(1);
  });

  it("two different events for one checkout session, even at once, credit it once", async () => {
    const user = await trader();
    const sessionId = uniqueId("cs_test");
    const events = [
      checkoutEvent("checkout.session.completed", { userId: user.userId, sessionId }),
      checkoutEvent("checkout.session.async_payment_succeeded", { userId: user.userId, sessionId }),
    ];
    await Promise.all(events.map((event) => deliver(event)));
    await deliver(events[1]!);
    expect(await balanceOf(user.userId)).toBe(50);
    expect(await purchasesOf(user.userId)).toHaveLength(1);
  });

  it("reads the line items from Stripe when the event does not carry them, and credits nothing while Stripe cannot be asked", async () => {
    const user = await trader();
    const event = checkoutEvent("checkout.session.completed", { userId: user.userId, withoutLineItems: true });
    const sessionId = event.data.object.id;
    const asked: string[] = [];
    let stripeUp = false;
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      asked.push(request.url);
      if (!stripeUp) return new Response(JSON.stringify({ error: { message: "down" } }), { status: 503 });
      expect(request.headers.get("Authorization")).toBe("Bearer sk_test_integration");
      return Response.json({
        object: "list",
        has_more: false,
        data: [{ object: "item", quantity: 1, price: { id: "price_100_connects", object: "price" } }],
      });
    });
    const down = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect((await deliver(event)).status).toBe(500);
    expect(await balanceOf(user.userId)).toBe(20);
    down.mockRestore();
    stripeUp = true;
    expect((await deliver(event)).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(120);
    expect(asked.at(-1)).toContain(`https://api.stripe.com/v1/checkout/sessions/${sessionId}/line_items`);
  });
});

describe("events the webhook refuses or leaves", () => {
  it("a bad signature and a stale timestamp get 400; no reference, an unknown user, an unknown price and an unpaid session get 200; none credits", async () => {
    const user = await trader();
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const event = () => checkoutEvent("checkout.session.completed", { userId: user.userId });
    expect((await deliver(event(), { secret: "whsec_someone_else" })).status).toBe(400);
    // Development's test purchases are signed with a secret in the source: the webhook address never takes it.
    expect((await deliver(event(), { secret: DEVELOPMENT_WEBHOOK_SECRET })).status).toBe(400);
    expect((await deliver(event(), { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 })).status).toBe(400);
    const unsigned = await SELF.fetch(`${BASE}/webhooks/stripe`, { method: "POST", body: JSON.stringify(event()) });
    expect(unsigned.status).toBe(400);
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: null }))).status).toBe(200);
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: "no-such-user" }))).status).toBe(200);
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, price: "price_from_another_product" }))).status).toBe(
      200,
    );
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, paid: "unpaid" }))).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
    expect(await purchasesOf(user.userId)).toHaveLength(0);
    // Each was logged with its reason.
    const logged = warned.mock.calls.map((call) => call.join(" ")).join("\n");
    for (const reason of ["signature", "tolerance", "no client_reference_id", "unknown user", "unknown price", "waiting"])
      expect(logged).toContain(reason);
  });

  it("an event left for an unknown price is credited when Stripe sends it again after the price is configured", async () => {
    const user = await trader();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const payload = JSON.stringify(checkoutEvent("checkout.session.completed", { userId: user.userId, price: "price_added_later" }));
    const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET, cryptoProvider: crypto });
    const init = () => ({ method: "POST", body: payload, headers: { "Content-Type": "application/json", "Stripe-Signature": signature } });
    expect((await SELF.fetch(`${BASE}/webhooks/stripe`, init())).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
    expect((await devFetch("/webhooks/stripe", init(), { STRIPE_PRICE_30: "price_added_later" })).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
    expect((await devFetch("/webhooks/stripe", init(), { STRIPE_PRICE_30: "price_added_later" })).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
  });

  it("a refund that comes before its purchase's credit is answered 503, and taken back when Stripe sends it again", async () => {
    const user = await trader();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const paymentIntent = uniqueId("pi");
    const refund = {
      id: uniqueId("evt"),
      object: "event",
      type: "charge.refunded",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: uniqueId("ch"), object: "charge", amount: 2000, amount_refunded: 2000, payment_intent: paymentIntent } },
    };
    expect((await deliver(refund)).status).toBe(503);
    await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, paymentIntent }));
    expect(await balanceOf(user.userId)).toBe(50);
    expect((await deliver(refund)).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
  });

  it("a refund or lost dispute of a payment never credited here, long after it was paid, is recorded as left, not retried", async () => {
    const paymentIntent = uniqueId("pi");
    const twoDaysAgo = Math.floor(Date.now() / 1000) - 2 * 24 * 3600;
    const refund = {
      id: uniqueId("evt"),
      object: "event",
      type: "charge.refunded",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: { id: uniqueId("ch"), object: "charge", created: twoDaysAgo, amount: 2000, amount_refunded: 2000, payment_intent: paymentIntent },
      },
    };
    const dispute = disputeClosed(paymentIntent, "lost");
    for (const event of [refund, dispute]) {
      expect((await deliver(event)).status).toBe(200);
      expect(await env.DB.prepare("SELECT outcome, note FROM payment_events WHERE id = ?").bind(event.id).first()).toEqual({
        outcome: "ignored",
        note: "no credited purchase for this payment",
      });
    }

    // The checkout sent later (again, once its price is configured, say) credits nothing: that money went back. No
    // one has to think of sending the refund again.
    const user = await trader();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    // First left for a price not configured yet, then sent again once it is: left again, saying why this time.
    const checkout = checkoutEvent("checkout.session.completed", { userId: user.userId, paymentIntent, price: "price_configured_later" });
    const payload = JSON.stringify(checkout);
    const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET, cryptoProvider: crypto });
    const init = () => ({ method: "POST", body: payload, headers: { "Content-Type": "application/json", "Stripe-Signature": signature } });
    expect((await SELF.fetch(`${BASE}/webhooks/stripe`, init())).status).toBe(200);
    expect(await env.DB.prepare("SELECT note FROM payment_events WHERE id = ?").bind(checkout.id).first()).toEqual({ note: "unknown price" });
    expect((await devFetch("/webhooks/stripe", init(), { STRIPE_PRICE_30: "price_configured_later" })).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
    expect(await env.DB.prepare("SELECT outcome, note FROM payment_events WHERE id = ?").bind(checkout.id).first()).toEqual({
      outcome: "ignored",
      note: "refunded or disputed before it was credited",
    });
    expect((await deliver(refund)).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(20);
    expect(await purchasesOf(user.userId)).toEqual([]);
  });

  it("a dispute won, left as it is, does not stop its payment's credit", async () => {
    const user = await trader();
    const paymentIntent = uniqueId("pi");
    const won = disputeClosed(paymentIntent, "won");
    expect((await deliver(won)).status).toBe(200);
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, paymentIntent }))).status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
  });

  it("the webhook is exempt from the cross-site check (Stripe is another site) but still needs its signature", async () => {
    const user = await trader();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const payload = JSON.stringify(checkoutEvent("checkout.session.completed", { userId: user.userId }));
    const crossSite = { Origin: "https://stripe.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json" };
    const unsigned = await SELF.fetch(`${BASE}/webhooks/stripe`, { method: "POST", body: payload, headers: crossSite });
    expect(unsigned.status).toBe(400);
    const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET, cryptoProvider: crypto });
    const signed = await SELF.fetch(`${BASE}/webhooks/stripe`, {
      method: "POST",
      body: payload,
      headers: { ...crossSite, "Stripe-Signature": signature },
    });
    expect(signed.status).toBe(200);
    expect(await balanceOf(user.userId)).toBe(50);
    // Only the webhook: a cross-site post anywhere else is still refused.
    expect(
      (
        await SELF.fetch(`${BASE}/mysite/connects`, {
          method: "POST",
          body: "intent=pay&bundle=30",
          headers: { ...crossSite, "Content-Type": "application/x-www-form-urlencoded" },
        })
      ).status,
    ).toBe(403);
    expect((await get("/webhooks/stripe")).status).toBe(405);
  });
});

describe("refunds and disputes", () => {
  it("a refund takes back what is left of the purchase, claims what proposals hold of it as they return, and never goes below zero", async () => {
    const buyer = await trader();
    const seller = await trader();
    const { listingId } = await listSite(seller.userId, { host: uniqueHost("pricey"), connects: 25 });
    const paymentIntent = uniqueId("pi");
    await deliver(checkoutEvent("checkout.session.completed", { userId: buyer.userId, paymentIntent }));
    expect(await balanceOf(buyer.userId)).toBe(50);
    // The starter connects last longer here, so the 25 held come from the purchase, leaving 5 of it in its lot.
    await env.DB.prepare("UPDATE connect_lots SET expires_at = expires_at + 86400000 * 60 WHERE user_id = ? AND source = 'starter'")
      .bind(buyer.userId)
      .run();
    expect((await propose(buyer.cookie, listingId)).status).toBe(302);
    expect(await balanceOf(buyer.userId)).toBe(25);
    expect((await purchasesOf(buyer.userId))[0]).toMatchObject({ amount: 30, remaining: 5 });

    const charge = (refunded: number, id = uniqueId("evt")) => ({
      id,
      object: "event",
      type: "charge.refunded",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: uniqueId("ch"), object: "charge", amount: 2000, amount_refunded: refunded, payment_intent: paymentIntent } },
    });
    // Half refunded: 15 to take back; the 5 in the lot go now, the other 10 are claimed from the held 25.
    expect((await deliver(charge(1000))).status).toBe(200);
    expect(await balanceOf(buyer.userId)).toBe(20);
    // Then all of it, twice (a replay): nothing more is free now; the claim on the hold grows to 25.
    const full = charge(2000);
    expect((await deliver(full)).status).toBe(200);
    expect((await deliver(full)).status).toBe(200);
    expect(await balanceOf(buyer.userId)).toBe(20);
    expect((await purchasesOf(buyer.userId))[0]).toMatchObject({ amount: 30, remaining: 0 });

    // The proposal is rescinded: its 25 come back, and go straight to the refund. The starter 20 are untouched.
    const [offer] = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).all<{ id: string }>()).results;
    expect((await act(buyer.cookie, offer!.id, [["intent", "rescind"]])).status).toBe(302);
    expect(await balanceOf(buyer.userId)).toBe(20);
    const held = await env.DB.prepare("SELECT connects_held AS held FROM users WHERE id = ?").bind(buyer.userId).first<{ held: number }>();
    expect(held!.held).toBe(0);
    expect((await ledgerKinds(buyer.userId)).filter((entry) => entry.kind === "refund")).toEqual([
      { kind: "refund", amount: -5 },
      { kind: "refund", amount: -25 },
    ]);
    const purchase = await env.DB.prepare(
      "SELECT connects_revoked AS revoked, connects_owed AS owed FROM payment_events WHERE payment_intent_id = ? AND outcome = 'credited'",
    )
      .bind(paymentIntent)
      .first();
    expect(purchase).toEqual({ revoked: 30, owed: 0 });
    // The ledger still adds up to the balance.
    const sum = await env.DB.prepare("SELECT sum(amount) AS total FROM connect_ledger WHERE user_id = ?")
      .bind(buyer.userId)
      .first<{ total: number }>();
    expect(sum!.total).toBe(20);
    expect(await read(await get("/mysite/connects", { cookie: buyer.cookie }))).toContain("Taken back: payment refunded");
  });

  it("a refund after part of the lot was spent on an accepted trade takes back only the unspent rest", async () => {
    const buyer = await trader();
    const seller = await trader();
    const { listingId } = await listSite(seller.userId, { host: uniqueHost("spent"), connects: 25 });
    const paymentIntent = uniqueId("pi");
    await deliver(checkoutEvent("checkout.session.completed", { userId: buyer.userId, paymentIntent }));
    await env.DB.prepare("UPDATE connect_lots SET expires_at = expires_at + 86400000 * 60 WHERE user_id = ? AND source = 'starter'")
      .bind(buyer.userId)
      .run();
    expect((await propose(buyer.cookie, listingId)).status).toBe(302);
    const [offer] = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).all<{ id: string }>()).results;
    // Accepted: 25 of the purchase are spent for good.
    expect((await act(seller.cookie, offer!.id, [["intent", "accept"]])).status).toBe(302);
    expect(await balanceOf(buyer.userId)).toBe(25);
    await deliver({
      id: uniqueId("evt"),
      object: "event",
      type: "charge.refunded",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: uniqueId("ch"), object: "charge", amount: 2000, amount_refunded: 2000, payment_intent: paymentIntent } },
    });
    expect(await balanceOf(buyer.userId)).toBe(20);
    expect((await ledgerKinds(buyer.userId)).filter((entry) => entry.kind === "refund")).toEqual([{ kind: "refund", amount: -5 }]);
    const purchase = await env.DB.prepare(
      "SELECT connects_revoked AS revoked, connects_owed AS owed FROM payment_events WHERE payment_intent_id = ? AND outcome = 'credited'",
    )
      .bind(paymentIntent)
      .first();
    // Nothing is held of it any more, so nothing is owed: the spent 25 stay spent.
    expect(purchase).toEqual({ revoked: 5, owed: 0 });
  });

  it("connects held by a proposal when a dispute is lost are taken back when the proposal returns them", async () => {
    const buyer = await trader();
    const seller = await trader();
    const { listingId } = await listSite(seller.userId, { host: uniqueHost("held"), connects: 30 });
    const paymentIntent = uniqueId("pi");
    await deliver(checkoutEvent("checkout.session.completed", { userId: buyer.userId, paymentIntent }));
    await env.DB.prepare("UPDATE connect_lots SET expires_at = expires_at + 86400000 * 60 WHERE user_id = ? AND source = 'starter'")
      .bind(buyer.userId)
      .run();
    expect((await propose(buyer.cookie, listingId)).status).toBe(302);
    expect(await balanceOf(buyer.userId)).toBe(20);
    await deliver(disputeClosed(paymentIntent, "lost"));
    expect(await balanceOf(buyer.userId)).toBe(20);
    const [offer] = (await env.DB.prepare("SELECT id FROM offers WHERE listing_id = ?").bind(listingId).all<{ id: string }>()).results;
    expect((await act(seller.cookie, offer!.id, [["intent", "decline"]])).status).toBe(302);
    // Declined: the 30 would come back, but they were the disputed purchase's; the history says so.
    expect(await balanceOf(buyer.userId)).toBe(20);
    const takenBack = (await ledgerKinds(buyer.userId)).filter((row) => row.kind === "refund" || row.kind === "chargeback");
    expect(takenBack).toEqual([{ kind: "chargeback", amount: -30 }]);
    expect(await read(await get("/mysite/connects", { cookie: buyer.cookie }))).toContain("Taken back: payment disputed");
  });

  it("a partial refund of an unspent purchase takes back its share, once per refunded amount", async () => {
    const buyer = await trader();
    const paymentIntent = uniqueId("pi");
    await deliver(checkoutEvent("checkout.session.completed", { userId: buyer.userId, paymentIntent, price: "price_100_connects" }));
    const refund = (refunded: number) => ({
      id: uniqueId("evt"),
      object: "event",
      type: "charge.refunded",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: "ch_same", object: "charge", amount: 5300, amount_refunded: refunded, payment_intent: paymentIntent } },
    });
    await deliver(refund(1325)); // a quarter
    expect(await balanceOf(buyer.userId)).toBe(120 - 25);
    await deliver(refund(2650)); // half in all: 25 more
    expect(await balanceOf(buyer.userId)).toBe(120 - 50);
    await deliver(refund(2968)); // 56% in all: 6 more, not 7 (100 * (2968 / 5300) is 56.00000000000001)
    expect(await balanceOf(buyer.userId)).toBe(120 - 56);
  });

  it("a lost dispute takes back what is left; a won one changes nothing", async () => {
    const buyer = await trader();
    const paymentIntent = uniqueId("pi");
    await deliver(checkoutEvent("checkout.session.completed", { userId: buyer.userId, paymentIntent }));
    const dispute = (status: string) => disputeClosed(paymentIntent, status);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await deliver(dispute("won"));
    expect(await balanceOf(buyer.userId)).toBe(50);
    await deliver(dispute("lost"));
    expect(await balanceOf(buyer.userId)).toBe(20);
    expect((await ledgerKinds(buyer.userId)).at(-1)).toEqual({ kind: "chargeback", amount: -30 });
  });
});

describe("the connects page", () => {
  it("paying sends the chosen bundle's Payment Link with the email and the user's id, and the page may go there", async () => {
    const user = await trader();
    const page = await get("/mysite/connects", { cookie: user.cookie });
    expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://buy.stripe.com https://checkout.stripe.com ");
    // The other pages' too: the connects page reached by the app's links keeps the policy of the page it came from.
    expect((await get("/mysite", { cookie: user.cookie })).headers.get("Content-Security-Policy")).toContain(
      "form-action 'self' https://buy.stripe.com https://checkout.stripe.com ",
    );
    const html = await read(page);
    expect(html).toContain('<input type="radio" name="bundle" checked="" value="30"/>');
    const response = await post("/mysite/connects", { intent: "pay", bundle: "60" }, { cookie: user.cookie });
    expect(response.status).toBe(302);
    const link = new URL(response.headers.get("Location")!);
    expect(link.origin + link.pathname).toBe("https://buy.stripe.com/test_60");
    expect(link.searchParams.get("prefilled_email")).toBe(user.email);
    expect(link.searchParams.get("client_reference_id")).toBe(user.userId);
    expect((await post("/mysite/connects", { intent: "pay", bundle: "45" }, { cookie: user.cookie })).status).toBe(400);
    // Production never makes test purchases.
    expect((await post("/mysite/connects", { intent: "test-purchase", bundle: "30" }, { cookie: user.cookie })).status).toBe(404);
    expect(await balanceOf(user.userId)).toBe(20);
  });

  it("a payment link configured wrong ('https://' alone, a space) is not offered; the page still works", async () => {
    const user = await trader();
    const cookie = user.cookie.replace("__Host-session=", "session=");
    for (const link of ["https://", "https://buy.stripe.com/test 30", "http://buy.stripe.com/test_30"]) {
      const vars = { STRIPE_PAYMENT_LINK_30: link };
      const page = await devFetch("/mysite/connects", { headers: { Cookie: cookie } }, vars);
      expect(page.status, link).toBe(200);
      expect(page.headers.get("Content-Security-Policy")).toContain("form-action 'self' https://buy.stripe.com https://checkout.stripe.com ");
      const pay = (bundle: string) =>
        devFetch(
          "/mysite/connects",
          {
            method: "POST",
            body: new URLSearchParams({ intent: "pay", bundle }),
            headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
          },
          vars,
        );
      const refused = await pay("30");
      expect(refused.status, link).toBe(404);
      expect(await read(refused)).toContain(messages.paymentsOff);
      expect((await pay("60")).headers.get("Location")).toMatch(/^https:\/\/buy\.stripe\.com\/test_60\?/);
    }
    // The bundle chosen stays chosen beside the refusal (without JavaScript the page is drawn again).
    const refused100 = await devFetch(
      "/mysite/connects",
      {
        method: "POST",
        body: new URLSearchParams({ intent: "pay", bundle: "100" }),
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      },
      { STRIPE_PAYMENT_LINK_100: "https://" },
    );
    expect(refused100.status).toBe(404);
    const page100 = await read(refused100);
    expect(page100).toMatch(/name="bundle" checked="" value="100"/);
    expect(page100).not.toMatch(/name="bundle" checked="" value="30"/);
  });

  it("lists the lots left to spend however many spent ones came before them, and no expired one", async () => {
    const user = await trader();
    // Every proposal returned makes a lot; spent ones stay, and they expire before the newer lots.
    const soon = Date.now() + 86_400_000;
    await env.DB.batch(
      Array.from({ length: 101 }, (_, index) =>
        env.DB.prepare("INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at) VALUES (?, ?, 'return', 5, 0, ?)").bind(
          `spent-${user.userId}-${index}`,
          user.userId,
          soon + index,
        ),
      ),
    );
    await env.DB.prepare("INSERT INTO connect_lots (id, user_id, source, amount, remaining, expires_at) VALUES (?, ?, 'return', 7, 7, ?)")
      .bind(`expired-${user.userId}`, user.userId, Date.now() - 1)
      .run();
    const html = await read(await get("/mysite/connects", { cookie: user.cookie }));
    expect(html).not.toContain("No connects left to spend.");
    expect(html).not.toContain("7 of 7");
    expect(html).toContain("<td>20 of 20</td>");
    expect(html).not.toContain("0 of 5");
  });

  it("back from checkout, it says the connects are on their way until the webhook lands, then shows them", async () => {
    const user = await trader();
    const event = checkoutEvent("checkout.session.completed", { userId: user.userId });
    const back = `/mysite/connects?checkout=success&session_id=${event.data.object.id}`;
    const waiting = await read(await get(back, { cookie: user.cookie }));
    expect(waiting).toContain("Payment received, connects on their way.");
    expect(waiting).toContain(
      `<meta http-equiv="refresh" content="4; url=/mysite/connects?checkout=success&amp;session_id=${event.data.object.id}&amp;tries=1"/>`,
    );
    // It stops looking after about two minutes, and says the payment is still processing.
    const stopped = await read(await get(`${back}&tries=30`, { cookie: user.cookie }));
    expect(stopped).toContain("still being processed");
    expect(stopped).not.toContain('http-equiv="refresh"');
    await deliver(event);
    const landed = await read(await get(back, { cookie: user.cookie }));
    expect(landed).toContain("Payment received: 30 connects added to your balance.");
    expect(landed).not.toContain('http-equiv="refresh"');
    expect(landed).toContain('data-testid="available-connects">50<');
  });

  it("a bank payment that fails: the page back from checkout says so, the buyer gets one email, nothing is credited", async () => {
    const user = await trader();
    const sessionId = uniqueId("cs_test");
    const back = `/mysite/connects?checkout=success&session_id=${sessionId}`;
    expect((await deliver(checkoutEvent("checkout.session.completed", { userId: user.userId, paid: "unpaid", sessionId }))).status).toBe(200);
    expect(await read(await get(`${back}&tries=30`, { cookie: user.cookie }))).toContain("still being processed");

    const failed = checkoutEvent("checkout.session.async_payment_failed", { userId: user.userId, paid: "unpaid", sessionId });
    expect((await deliver(failed)).status).toBe(200);
    expect((await deliver(failed)).status).toBe(200); // Stripe sends it again: still one email
    expect(await balanceOf(user.userId)).toBe(20);
    const page = await read(await get(back, { cookie: user.cookie }));
    expect(page).toContain(messages.paymentFailed);
    expect(page).not.toContain("still being processed");
    expect(page).not.toContain('http-equiv="refresh"');
    const { results: emails } = await env.DB.prepare("SELECT subject, text_body FROM email_outbox WHERE to_address = ? AND kind = 'payment-failed'")
      .bind(user.email)
      .all<{ subject: string; text_body: string }>();
    expect(emails).toEqual([
      {
        subject: "Your payment for connects did not go through",
        text_body: expect.stringContaining("no connects were added to your balance") as string,
      },
    ]);
    expect(emails[0]!.text_body).toContain("https://market.test/mysite/connects");
    // Another user coming back with that checkout's id is told nothing of it.
    const other = await trader();
    expect(await read(await get(back, { cookie: other.cookie }))).not.toContain(messages.paymentFailed);
  });

  it("shows Stripe's pricing table, with the same reference, when its id and publishable key are set", async () => {
    const TABLE_NEEDS_JAVASCRIPT = "Paying by card here needs JavaScript: turn it on to see the prices and pay.";
    const user = await trader();
    const cookie = user.cookie.replace("__Host-session=", "session=");
    const table = { STRIPE_PRICING_TABLE_ID: "prctbl_123", STRIPE_PUBLISHABLE_KEY: "pk_test_123" };
    const response = await devFetch("/mysite/connects", { headers: { Cookie: cookie } }, table);
    expect(response.headers.get("Content-Security-Policy")).toMatch(/script-src 'self' 'nonce-[^']+' https:\/\/js\.stripe\.com/);
    // Stripe's table styles its own element; without the table, no inline style.
    expect(response.headers.get("Content-Security-Policy")).toContain("style-src 'self' 'unsafe-inline';");
    const page = await read(response);
    expect(page).toContain(
      `<stripe-pricing-table pricing-table-id="prctbl_123" publishable-key="pk_test_123" client-reference-id="${user.userId}" customer-email="${user.email}">`,
    );
    expect(page).toContain('name="bundle"');
    expect(page).not.toContain(TABLE_NEEDS_JAVASCRIPT);
    const plain = await devFetch("/mysite/connects", { headers: { Cookie: cookie } });
    expect(plain.headers.get("Content-Security-Policy")).toContain("style-src 'self';");
    expect(await read(plain)).not.toContain("stripe-pricing-table");

    // The table alone (no Payment Links, no test purchases): it is the way to pay, not beside "payments are off".
    const noLinks = { STRIPE_PAYMENT_LINK_30: "", STRIPE_PAYMENT_LINK_60: "", STRIPE_PAYMENT_LINK_100: "", STRIPE_WEBHOOK_SECRET: "whsec_set" };
    const tableOnly = await read(await devFetch("/mysite/connects", { headers: { Cookie: cookie } }, { ...table, ...noLinks }));
    expect(tableOnly).toContain("<stripe-pricing-table");
    expect(tableOnly).not.toContain(messages.paymentsOff);
    expect(tableOnly).not.toContain('name="bundle"');
    expect(tableOnly).toContain(`<noscript><p class="muted">${TABLE_NEEDS_JAVASCRIPT}</p></noscript>`);
    // A bundle paid for from a page loaded while the links were there: the refusal shows beside the table.
    const paid = await devFetch(
      "/mysite/connects",
      {
        method: "POST",
        body: new URLSearchParams({ intent: "pay", bundle: "30" }),
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      },
      { ...table, ...noLinks },
    );
    expect(paid.status).toBe(404);
    const refusedPage = await read(paid);
    expect(refusedPage).toContain(`<p class="form-error" role="alert">${messages.paymentsOff}</p>`);
    expect(refusedPage).toContain("<stripe-pricing-table");
    // Neither: the bundles' prices, and that payments are off.
    const neither = await read(await devFetch("/mysite/connects", { headers: { Cookie: cookie } }, noLinks));
    expect(neither).toContain(messages.paymentsOff);
    expect(neither).toContain('name="bundle"');
  });

  it("without a webhook secret the webhook answers 503 and credits nothing, even in development", async () => {
    const user = await trader();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const payload = JSON.stringify(checkoutEvent("checkout.session.completed", { userId: user.userId }));
    const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: DEVELOPMENT_WEBHOOK_SECRET, cryptoProvider: crypto });
    const response = await devFetch(
      "/webhooks/stripe",
      { method: "POST", body: payload, headers: { "Content-Type": "application/json", "Stripe-Signature": signature } },
      { STRIPE_WEBHOOK_SECRET: "" },
    );
    expect(response.status).toBe(503);
    expect(await balanceOf(user.userId)).toBe(20);
  });

  it("development without Stripe keys makes a clearly marked test purchase through the same webhook code", async () => {
    const user = await trader();
    const cookie = user.cookie.replace("__Host-session=", "session=");
    const noStripe = { STRIPE_WEBHOOK_SECRET: "", STRIPE_PAYMENT_LINK_30: "", STRIPE_PAYMENT_LINK_60: "", STRIPE_PAYMENT_LINK_100: "" };
    const page = await (await devFetch("/mysite/connects", { headers: { Cookie: cookie } }, noStripe)).text();
    expect(page).toContain("Development only");
    expect(page).toContain("Make a test purchase");
    const response = await devFetch(
      "/mysite/connects",
      {
        method: "POST",
        body: new URLSearchParams({ intent: "test-purchase", bundle: "100" }),
        headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      },
      noStripe,
    );
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/mysite/connects?notice=test-purchase");
    expect(await balanceOf(user.userId)).toBe(120);
    const recorded = await env.DB.prepare("SELECT type, outcome, connects FROM payment_events WHERE user_id = ?").bind(user.userId).first();
    expect(recorded).toEqual({ type: "checkout.session.completed", outcome: "credited", connects: 100 });
  });
});
