/**
 * Addresses of the Offers page. Which page of each list is shown is part of the address (`list`, a query string of
 * the lists' cursors, docs/decisions/0026-offers-paging.md), so opening an offer, its profile or closing the panel
 * keeps the lists where they were.
 */
import { formatCursor, type Cursor } from "./cursor";

/** The query parameters naming where the Offers list and the Trades list start. */
export const LIST_PARAMS = ["offersAfter", "tradesAfter"] as const;
export type ListParam = (typeof LIST_PARAMS)[number];

/** The lists' part of an address: the cursor of each list that is not on its first page. */
export function listQuery(positions: Record<ListParam, Cursor | null>): string {
  const params = new URLSearchParams();
  for (const name of LIST_PARAMS) {
    const cursor = positions[name];
    if (cursor) params.set(name, formatCursor(cursor));
  }
  return params.toString();
}

/** The lists' part of an address with one list moved to another page (null: its first page). */
export function listWith(list: string, name: ListParam, cursor: string | null): string {
  const params = new URLSearchParams(list);
  if (cursor) params.set(name, cursor);
  else params.delete(name);
  return params.toString();
}

/** An address of the Offers page: the lists where `list` has them, with an offer's panel open or not. */
export function offersPageHref(list: string, offer?: { id: string; view?: "profile" }): string {
  const params = new URLSearchParams(list);
  if (offer) {
    params.set("offer", offer.id);
    if (offer.view) params.set("view", offer.view);
  }
  const query = params.toString();
  return `/mysite/offers${query ? `?${query}` : ""}`;
}
