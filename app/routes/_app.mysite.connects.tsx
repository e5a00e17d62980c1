import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, type ClientLoaderFunctionArgs } from "@remix-run/react";
import { BuyConnects } from "~/components/buy-connects";
import { CheckoutNotice } from "~/components/checkout-return";
import { ConnectLots, ConnectsHistory } from "~/components/connects-tables";
import { buyConnects, loadConnectsPage } from "./_app.mysite.connects.server";

export const meta: MetaFunction<typeof loader> = () => [{ title: "Connects - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadConnectsPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => buyConnects(request, context);

const CONNECTS_PATH = "/mysite/connects";

/**
 * Stripe's pricing table runs under this page's own security policy (its script's origin, the inline styles it sets),
 * which comes with the page's document only: reached from another page of the app, with a table configured, the page
 * loads whole. Not on the page's first load (no client loader runs then), not when the page reads its data again after
 * a form of its own (which would lose the form's answer), nor for a payment-links-only setup (every page's policy lets
 * a form go on to the payment links). A browser that keeps no record of the document's address reloads only when
 * arriving from another page.
 */
export async function clientLoader({ request, serverLoader }: ClientLoaderFunctionArgs) {
  const page = await serverLoader<typeof loader>();
  const [firstLoad] = performance.getEntriesByType("navigation");
  const documentHere = firstLoad !== undefined && new URL(firstLoad.name).pathname === CONNECTS_PATH;
  if (page.pricingTable && !documentHere && window.location.pathname !== CONNECTS_PATH) {
    window.location.assign(request.url);
    // The navigation waits for the document that replaces this one.
    return new Promise<never>(() => {});
  }
  return page;
}

export default function Connects() {
  const { available, held, lots, moreLots, history, olderHistory, historyPaged, refused, now, checkout, canPay, testPurchases, pricingTable } =
    useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  return (
    <div className="connects stack-lg">
      {checkout ? <CheckoutNotice checkout={checkout} /> : null}
      {refused ? (
        <p className="form-error" role="alert">
          {refused}
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
      <BuyConnects
        canPay={canPay}
        testPurchases={testPurchases}
        pricingTable={pricingTable}
        error={failure?.error}
        chosen={failure && "bundle" in failure ? failure.bundle : undefined}
      />
      <ConnectLots lots={lots} more={moreLots} now={now} />
      <ConnectsHistory history={history} older={olderHistory} paged={historyPaged} now={now} />
    </div>
  );
}
