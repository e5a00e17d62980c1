/** Status labels of offers and trades. */
export const STATUS_LABELS = {
  PEN: "Pending",
  INP: "In Progress",
  ACC: "Accepted",
  DEC: "Declined",
  DNS: "Not Started",
  RES: "Rescinded",
  TRS: "Trash",
  STP: "Stopped",
  COM: "Completed",
  NORES: "Incomplete",
} as const;

export type StatusCode = keyof typeof STATUS_LABELS;
export type OfferStatus = "pending" | "declined" | "rescind" | "accepted" | "expired";

export const OFFER_STATUS_CODES: Record<OfferStatus, StatusCode> = {
  pending: "PEN",
  declined: "DEC",
  rescind: "RES",
  accepted: "ACC",
  expired: "NORES",
};

export interface CountableOffer {
  status: OfferStatus;
  senderSiteId: string;
  receiverSiteId: string;
}

/**
 * Dashboard counters: only offers involving the current site; pending offers it sent are pending,
 * pending offers it received are received, accepted offers are trades.
 */
export function countOffers(offers: readonly CountableOffer[], siteId: string) {
  const counts = { received: 0, pending: 0, trades: 0 };
  for (const offer of offers) {
    const sent = offer.senderSiteId === siteId;
    const received = offer.receiverSiteId === siteId;
    if (!sent && !received) continue;
    if (offer.status === "accepted") counts.trades += 1;
    else if (offer.status === "pending") counts[sent ? "pending" : "received"] += 1;
  }
  return counts;
}
