import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { CONNECT_BUNDLES, DEFAULT_BUNDLE } from "~/domain/bundles";
import { formatShortDate } from "~/domain/dates";
import { requireAuth } from "~/services/auth.server";
import { connectLotsOf, ledgerOf } from "~/services/trades-read.server";

export const meta: MetaFunction = () => [{ title: "Connects - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const [lots, history] = await Promise.all([connectLotsOf(context.db, auth.user.id), ledgerOf(context.db, auth.user.id)]);
  return { available: auth.user.connects, held: auth.user.connectsHeld, lots, history, now: context.now() };
}

const SOURCES = { starter: "Starter grant", purchase: "Purchase", return: "Returned hold" } as const;
const KINDS = { grant: "Starter grant", purchase: "Purchase", hold: "Held for a proposal", spend: "Spent on an accepted trade", return: "Returned", expire: "Expired" } as const;

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

export default function Connects() {
  const { available, held, lots, history, now } = useLoaderData<typeof loader>();
  const live = lots.filter((lot) => lot.remaining > 0 && lot.expiresAt > now);
  return (
    <div className="connects stack-lg">
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
                  <td>{formatShortDate(lot.expiresAt, now)}</td>
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
                <td>{formatShortDate(entry.createdAt, now)}</td>
                <td>{KINDS[entry.kind]}</td>
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
