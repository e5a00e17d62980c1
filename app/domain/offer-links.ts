/**
 * Addresses of the Offers page. Which page of each list is shown is part of the address (`list`, a query string of
 * the lists' cursors), so opening an offer, its profile or closing the panel keeps the lists where they were.
 */
export function offersPageHref(list: string, offer?: { id: string; view?: "profile" }): string {
  const params = new URLSearchParams(list);
  if (offer) {
    params.set("offer", offer.id);
    if (offer.view) params.set("view", offer.view);
  }
  const query = params.toString();
  return `/mysite/offers${query ? `?${query}` : ""}`;
}
