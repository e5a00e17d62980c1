import { Form } from "@remix-run/react";
import { useEffect } from "react";
import { CONNECT_BUNDLES, DEFAULT_BUNDLE } from "~/domain/bundles";
import { messages } from "~/domain/messages";
import { usePostAddress } from "./use-post-address";

/** Stripe's embeddable pricing table for this user, with the same reference as the Payment Links. */
export interface PricingTableConfig {
  id: string;
  publishableKey: string;
  clientReferenceId: string;
  email: string;
}

/** Stripe's embeddable pricing table (a script element of Stripe's, so it needs JavaScript). */
function PricingTable({ table }: { table: PricingTableConfig }) {
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

/**
 * The bundles and how to pay for one: by card through its Payment Link (`canPay`), or, in development on this machine
 * without Stripe, a test purchase; `error` is the server's answer to the last attempt.
 */
export function BuyConnects({
  canPay,
  testPurchases,
  pricingTable,
  error,
  chosen = DEFAULT_BUNDLE,
}: {
  canPay: boolean;
  testPurchases: boolean;
  pricingTable: PricingTableConfig | null;
  error: string | undefined;
  /** The bundle of the last attempt, refused: chosen again. */
  chosen?: number;
}) {
  const postTo = usePostAddress();
  // With only the pricing table configured, it is the way to pay: no bundles without a button, no "payments off".
  const payHere = canPay || testPurchases;
  return (
    <section className="card stack" aria-labelledby="buy-title">
      <h2 id="buy-title">Buy connects</h2>
      {payHere || !pricingTable ? (
        // A document post, with JavaScript too: paying leaves for Stripe's page, and a page the browser keeps to come
        // back to must not keep a submission in progress (it kept "Pay by card" disabled after Back from Stripe).
        <Form method="post" action={postTo} className="stack" reloadDocument>
          <fieldset className="bundles">
            <legend className="visually-hidden">Bundle</legend>
            {CONNECT_BUNDLES.map((bundle) => (
              <label key={bundle.connects} className="bundle">
                <input type="radio" name="bundle" value={bundle.connects} defaultChecked={bundle.connects === chosen} />
                <strong>{bundle.connects} connects</strong>
                <span>${bundle.priceUsd} + tax</span>
              </label>
            ))}
          </fieldset>
          {canPay ? (
            <div className="button-row">
              <button type="submit" name="intent" value="pay" className="button button-primary">
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
                <button type="submit" name="intent" value="test-purchase" className="button button-outline">
                  Make a test purchase
                </button>
              </div>
            </div>
          ) : null}
          {!payHere ? <p className="muted">{messages.paymentsOff}</p> : null}
        </Form>
      ) : null}
      {/* Outside the form: a post from a page loaded before the Payment Links were taken away is answered here too. */}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {pricingTable ? <PricingTable table={pricingTable} /> : null}
      {pricingTable && !payHere ? (
        // Stripe's table is a script of Stripe's: where it is the only way to pay, a browser without JavaScript is told.
        <noscript>
          <p className="muted">Paying by card here needs JavaScript: turn it on to see the prices and pay.</p>
        </noscript>
      ) : null}
      <p className="muted">Connects expire one year after purchase. Unused connects roll over to the next month until then.</p>
    </section>
  );
}
