import { Link } from "@remix-run/react";
import { formatShortDate } from "~/domain/dates";
import { offersPageHref } from "~/domain/offer-links";
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

/**
 * Offers or trades of the active site, each opening its detail; the dashboard and the Offers page share it. `list`
 * keeps the Offers page's lists on the pages they were (docs/decisions/0026-offers-paging.md).
 */
export function OfferRows({ rows, empty, now, list = "" }: { rows: OfferRow[]; empty: string; now: number; list?: string }) {
  const timeZone = useTimeZone();
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <ul className="offer-list">
      {rows.map((row) => (
        <li key={row.id}>
          <Link to={offersPageHref(list, { id: row.id })} preventScrollReset>
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

/**
 * The links between pages of a list: plain links (with JavaScript Remix follows them without a reload). Keyset pages
 * go forward only; the first page is a link, the previous one the browser's back button.
 */
export function OfferListPager({
  label,
  firstTo,
  nextTo,
  nextLabel = "Next page",
}: {
  label: string;
  firstTo: string | null;
  nextTo: string | null;
  nextLabel?: string;
}) {
  if (!firstTo && !nextTo) return null;
  return (
    <nav className="pager pager-in-card" aria-label={label}>
      {firstTo ? (
        <Link to={firstTo} preventScrollReset>
          First page
        </Link>
      ) : null}
      {nextTo ? (
        <Link to={nextTo} preventScrollReset>
          {nextLabel}
        </Link>
      ) : null}
    </nav>
  );
}
