import { Link } from "@remix-run/react";
import { formatShortDate } from "~/domain/dates";
import { STATUS_LABELS, type StatusCode } from "~/domain/offer-status";
import { useTimeZone } from "./use-time-zone";

export function StatusLabel({ code }: { code: StatusCode }) {
  return <span className={`status status-${code}`}>{STATUS_LABELS[code]}</span>;
}

export interface OfferRow {
  id: string;
  code: StatusCode;
  sent: boolean;
  otherHost: string;
  createdAt: number;
}

/** Offers or trades of the active site, each opening its detail; the dashboard and the Offers page share it. */
export function OfferRows({ rows, empty, now }: { rows: OfferRow[]; empty: string; now: number }) {
  const timeZone = useTimeZone();
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ul className="offer-list">
      {rows.map((row) => (
        <li key={row.id}>
          <Link to={`/mysite/offers?offer=${row.id}`} preventScrollReset>
            <StatusLabel code={row.code} />
            <span className="offer-site">
              {row.sent ? "To" : "From"} {row.otherHost}
            </span>
            <span className="muted">{formatShortDate(row.createdAt, now, timeZone)}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
