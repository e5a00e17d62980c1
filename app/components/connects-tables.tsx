import { Link } from "@remix-run/react";
import { LEDGER_KIND_LABELS, LOT_SOURCE_LABELS, type ConnectLot, type LedgerEntry } from "~/domain/connects";
import { formatShortDate } from "~/domain/dates";
import { formatMoney } from "~/domain/money";
import { useTimeZone } from "./use-time-zone";

const signed = (value: number) => (value > 0 ? `+${value}` : String(value));

/**
 * The lots the user can still spend (as read), soonest to expire first, each with what is left of it; `more`: the lots
 * past those listed, and what they hold.
 */
export function ConnectLots({ lots, more, now }: { lots: readonly ConnectLot[]; more: { lots: number; connects: number } | null; now: number }) {
  const timeZone = useTimeZone();
  return (
    <section className="card stack">
      <h2>Your lots</h2>
      {lots.length === 0 ? (
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
            {lots.map((lot) => (
              <tr key={lot.id}>
                <td>{LOT_SOURCE_LABELS[lot.source]}</td>
                <td>
                  {lot.remaining} of {lot.amount}
                </td>
                <td>{formatShortDate(lot.expiresAt, now, timeZone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more ? (
        <p className="muted">
          {more.lots === 1 ? "1 more lot" : `${more.lots} more lots`} with {more.connects} connects {more.lots === 1 ? "expires" : "expire"} later.
        </p>
      ) : null}
    </section>
  );
}

/**
 * Every move of the user's connects, newest first, a page at a time: what it was and how it changed the available and
 * held balances. `older`: where the next page starts; `paged`: this is a later page (it links back to the newest).
 */
export function ConnectsHistory({
  history,
  older,
  paged,
  now,
}: {
  history: readonly LedgerEntry[];
  older: string | null;
  paged: boolean;
  now: number;
}) {
  const timeZone = useTimeZone();
  return (
    <section className="card stack" id="history">
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
                {LEDGER_KIND_LABELS[entry.kind]}
                {entry.kind === "purchase" && entry.paid ? ` (receipt: ${formatMoney(entry.paid, entry.currency ?? "usd")} paid)` : ""}
              </td>
              <td>{entry.amount === 0 ? "" : signed(entry.amount)}</td>
              <td>{entry.held === 0 ? "" : signed(entry.held)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {paged || older ? (
        <nav className="button-row" aria-label="Pages of the history">
          {paged ? (
            <Link to="/mysite/connects#history" className="text-link small">
              Newest moves
            </Link>
          ) : null}
          {older ? (
            <Link to={`/mysite/connects?history=${encodeURIComponent(older)}#history`} className="text-link small">
              Older moves
            </Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
