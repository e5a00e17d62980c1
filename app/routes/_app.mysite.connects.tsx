import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData } from "@remix-run/react";
import { BuyConnects } from "~/components/buy-connects";
import { CheckoutNotice } from "~/components/checkout-return";
import { ConnectLots, ConnectsHistory } from "~/components/connects-tables";
import { buyConnects, loadConnectsPage } from "./_app.mysite.connects.server";

export const meta: MetaFunction<typeof loader> = () => [{ title: "Connects - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadConnectsPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => buyConnects(request, context);

export default function Connects() {
  const { available, held, lots, history, now, checkout, canPay, testPurchases, pricingTable } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  return (
    <div className="connects stack-lg">
      {checkout ? <CheckoutNotice checkout={checkout} /> : null}
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
      <ConnectLots lots={lots} now={now} />
      <ConnectsHistory history={history} now={now} />
    </div>
  );
}
