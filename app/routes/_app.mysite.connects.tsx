import type { MetaFunction } from "@remix-run/cloudflare";
import { useRouteLoaderData } from "@remix-run/react";
import { CONNECT_BUNDLES, DEFAULT_BUNDLE } from "~/domain/bundles";
import type { loader as appLoader } from "./_app";

export const meta: MetaFunction = () => [{ title: "Connects - Backlink Market" }];

export default function Connects() {
  const shell = useRouteLoaderData<typeof appLoader>("routes/_app");
  return (
    <div className="connects stack-lg">
      <section className="counters" aria-label="Your connects">
        <div className="counter">
          <strong data-testid="available-connects">{shell?.user.connects ?? 0}</strong>
          <span>Available connects</span>
        </div>
        <div className="counter">
          <strong>{shell?.user.connectsHeld ?? 0}</strong>
          <span>Held by sent proposals</span>
        </div>
      </section>
      <section className="card stack">
        <h2>Buy connects</h2>
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
        <p className="muted">
          Connects expire one year after purchase. Unused connects roll over to the next month until then. Card payments
          are not switched on for this installation yet.
        </p>
      </section>
    </div>
  );
}
