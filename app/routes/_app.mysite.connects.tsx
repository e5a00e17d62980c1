import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { useEffect } from "react";
import { z } from "zod";
import { CONNECT_BUNDLES, DEFAULT_BUNDLE } from "~/domain/bundles";
import { formatShortDate } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { formatMoney } from "~/domain/money";
import { isLocalRequest, requireDevTools } from "~/lib/dev-tools.server";
import { readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { checkoutCredited, makeTestPurchase, paymentConfig, paymentLinkFor } from "~/services/payments.server";
import { connectLotsOf, ledgerOf } from "~/services/trades-read.server";
import { useTimeZone } from "~/components/use-time-zone";

/** While a payment's connects are on their way, the page looks again this often (without JavaScript too)… */
const RECHECK_SECONDS = 4;
/** …for about two minutes; after that the payment is still processing (a bank debit can take days). */
const MAX_RECHECKS = 30;

function recheckAddress(sessionId: string, tries: number): string {
  return `/mysite/connects?checkout=success&session_id=${encodeURIComponent(sessionId)}&tries=${tries}`;
}

export const meta: MetaFunction<typeof loader> = () => [{ title: "Connects - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const url = new URL(request.url);
  const config = paymentConfig(context.env);
  const given = url.searchParams.get("session_id");
  const sessionId = given && given.length <= 200 ? given : null;
  const [lots, history, credited] = await Promise.all([
    connectLotsOf(context.db, auth.user.id),
    ledgerOf(context.db, auth.user.id),
    sessionId ? checkoutCredited(context.db, auth.user.id, sessionId) : null,
  ]);
  const returned = url.searchParams.get("checkout") === "success" && sessionId !== null;
  const tries = Math.min(Number.parseInt(url.searchParams.get("tries") ?? "0", 10) || 0, MAX_RECHECKS);
  return {
    available: auth.user.connects,
    held: auth.user.connectsHeld,
    lots,
    history,
    now: context.now(),
    // Back from Stripe's checkout: the webhook may not have landed yet.
    checkout: returned ? (credited !== null ? "credited" : tries < MAX_RECHECKS ? "pending" : "processing") : null,
    sessionId: returned ? sessionId : null,
    tries,
    creditedConnects: credited,
    canPay: CONNECT_BUNDLES.some((bundle) => config.links.has(bundle.connects)),
    testPurchases: config.testPurchases && isLocalRequest(request),
    pricingTable: config.pricingTable ? { ...config.pricingTable, clientReferenceId: auth.user.id, email: auth.user.email } : null,
  };
}

/** Paying goes to the chosen bundle's Payment Link; in development without Stripe, a test purchase. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const parsed = z
    .object({ intent: z.enum(["pay", "test-purchase"]), bundle: z.coerce.number().int() })
    .safeParse(Object.fromEntries(await readFormData(request)));
  const bundle = parsed.success ? CONNECT_BUNDLES.find((candidate) => candidate.connects === parsed.data.bundle) : undefined;
  if (!parsed.success || !bundle) return data({ error: messages.chooseBundle }, { status: 400 });
  const config = paymentConfig(context.env);
  if (parsed.data.intent === "test-purchase") {
    // Development on this machine only, like the dev mailbox (a staging deploy marked development has no free connects).
    requireDevTools(request, context.env);
    const answer = await makeTestPurchase(context, { id: auth.user.id, email: auth.user.email }, bundle.connects);
    if (answer.status !== 200) return data({ error: answer.message }, { status: answer.status === 404 ? 404 : 500 });
    throw redirect("/mysite/connects?notice=test-purchase");
  }
  const link = paymentLinkFor(config, bundle.connects, { id: auth.user.id, email: auth.user.email });
  if (!link) return data({ error: messages.paymentsOff }, { status: 404 });
  throw redirect(link);
}

const SOURCES = { starter: "Starter grant", purchase: "Purchase", return: "Returned hold" } as const;
const KINDS = {
  grant: "Starter grant",
  purchase: "Purchase",
  hold: "Held for a proposal",
  spend: "Spent on an accepted trade",
  return: "Returned",
  expire: "Expired",
  refund: "Taken back: payment refunded",
  chargeback: "Taken back: payment disputed",
} as const;

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

/** Stripe's embeddable pricing table (a script element of Stripe's, so it needs JavaScript), with the same reference as the links. */
function PricingTable({ table }: { table: { id: string; publishableKey: string; clientReferenceId: string; email: string } }) {
  useEffect(() => {
    if (customElements.get("stripe-pricing-table") || document.querySelector("script[data-stripe-pricing-table]")) return;
    const script = document.createElement("script");
    script.src = "https://js.stripe.com/v3/pricing-table.js";
    script.async = true;
    script.dataset.stripePricingTable = "";
    document.head.appendChild(script);
  }, []);
  return (
    <div className="pricing-table">
      <stripe-pricing-table
        pricing-table-id={table.id}
        publishable-key={table.publishableKey}
        client-reference-id={table.clientReferenceId}
        customer-email={table.email}
      />
    </div>
  );
}

export default function Connects() {
  const timeZone = useTimeZone();
  const { available, held, lots, history, now, checkout, sessionId, tries, creditedConnects, canPay, testPurchases, pricingTable } =
    useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/mysite/connects";
  const navigate = useNavigate();
  // With JavaScript the page looks again in place while the payment's connects are on their way.
  useEffect(() => {
    if (checkout !== "pending" || !sessionId) return;
    const timer = setTimeout(
      () => navigate(recheckAddress(sessionId, tries + 1), { replace: true, preventScrollReset: true }),
      RECHECK_SECONDS * 1000,
    );
    return () => clearTimeout(timer);
  }, [checkout, sessionId, tries, navigate]);
  const live = lots.filter((lot) => lot.remaining > 0 && lot.expiresAt > now);
  return (
    <div className="connects stack-lg">
      {checkout === "pending" ? (
        <p className="notice-banner" role="status">
          {messages.paymentReceived}
          {/* Without JavaScript the page looks again by itself; with it, the effect above does, in place. */}
          {sessionId ? (
            <noscript>
              <meta httpEquiv="refresh" content={`${RECHECK_SECONDS}; url=${recheckAddress(sessionId, tries + 1)}`} />
            </noscript>
          ) : null}
        </p>
      ) : null}
      {checkout === "processing" ? (
        <p className="notice-banner" role="status">
          {messages.paymentProcessing}
        </p>
      ) : null}
      {checkout === "credited" ? (
        <p className="notice-banner success" role="status">
          Payment received: {creditedConnects} connects added to your balance.
        </p>
      ) : null}
      <section className="counters" aria-label="Your connects">
        <div className="counter">
          <strong data-testid="available-connects">{available}</strong>
          <span>Available connects</span>
        </div>
        <div className="counter">
          <strong data-testid="held-connects">{held}</strong>
          <span>Held by sent proposals</span>
        </div>
      </section>
      <section className="card stack" aria-labelledby="buy-title">
        <h2 id="buy-title">Buy connects</h2>
        <Form method="post" className="stack">
          <fieldset className="bundles">
            <legend className="visually-hidden">Bundle</legend>
            {CONNECT_BUNDLES.map((bundle) => (
              <label key={bundle.connects} className="bundle">
                <input type="radio" name="bundle" value={bundle.connects} defaultChecked={bundle.connects === DEFAULT_BUNDLE} />
                <strong>{bundle.connects} connects</strong>
                <span>${bundle.priceUsd} + tax</span>
              </label>
            ))}
          </fieldset>
          {canPay ? (
            <div className="button-row">
              <button type="submit" name="intent" value="pay" className="button button-primary" disabled={busy}>
                Pay by card
              </button>
            </div>
          ) : null}
          {testPurchases ? (
            <div className="test-purchase stack">
              <p>
                <strong>Development only:</strong> no Stripe keys are configured, so a test purchase stands in for paying. It signs a checkout event
                with a local secret and sends it through the same webhook code as Stripe&apos;s events. No card, no money.
              </p>
              <div className="button-row">
                <button type="submit" name="intent" value="test-purchase" className="button button-outline" disabled={busy}>
                  Make a test purchase
                </button>
              </div>
            </div>
          ) : null}
          {!canPay && !testPurchases ? <p className="muted">{messages.paymentsOff}</p> : null}
          {failure?.error ? (
            <p className="form-error" role="alert">
              {failure.error}
            </p>
          ) : null}
        </Form>
        {pricingTable ? <PricingTable table={pricingTable} /> : null}
        <p className="muted">Connects expire one year after purchase. Unused connects roll over to the next month until then.</p>
      </section>
      <section className="card stack">
        <h2>Your lots</h2>
        {live.length === 0 ? (
          <p className="empty">No connects left to spend.</p>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>From</th>
                <th>Left</th>
                <th>Expires</th>
              </tr>
            </thead>
            <tbody>
              {live.map((lot) => (
                <tr key={lot.id}>
                  <td>{SOURCES[lot.source]}</td>
                  <td>
                    {lot.remaining} of {lot.amount}
                  </td>
                  <td>{formatShortDate(lot.expiresAt, now, timeZone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="card stack">
        <h2>History</h2>
        <table className="table" data-testid="connects-history">
          <thead>
            <tr>
              <th>When</th>
              <th>What</th>
              <th>Available</th>
              <th>Held</th>
            </tr>
          </thead>
          <tbody>
            {history.map((entry) => (
              <tr key={entry.id}>
                <td>{formatShortDate(entry.createdAt, now, timeZone)}</td>
                <td>
                  {KINDS[entry.kind]}
                  {entry.kind === "purchase" && entry.paid !== null ? ` (receipt: ${formatMoney(entry.paid, entry.currency ?? "usd")} paid)` : ""}
                </td>
                <td>{entry.amount === 0 ? "" : signed(entry.amount)}</td>
                <td>{entry.held === 0 ? "" : signed(entry.held)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
