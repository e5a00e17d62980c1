/** The user's connects as the Connects page shows them: lots, the ledger, and the return from a payment. */

/**
 * When connects got at `from` (epoch ms) expire: the same moment a calendar year later, as "a year after purchase"
 * reads (a 365-day year would end a day early across a 29 February; one got on 29 February lasts until 1 March).
 */
export function oneYearAfter(from: number): number {
  const date = new Date(from);
  date.setUTCFullYear(date.getUTCFullYear() + 1);
  return date.getTime();
}

/**
 * The connects a refund takes back from a purchase: its share of the purchase's connects, as `refunded` is of `paid`
 * (both in the currency's minor units), rounded up; all of them when nothing was paid. Worked in whole numbers: a
 * fraction first (371 / 5300 of 100 is 7.000000000000001 in floating point) would take one connect too many.
 */
export function connectsRefunded(connects: number, refunded: number, paid: number): number {
  if (paid <= 0 || refunded >= paid) return connects;
  return Math.ceil((connects * Math.max(0, refunded)) / paid);
}

/** Where a lot of connects came from. */
export type LotSource = "starter" | "purchase" | "return";

/** A move in the ledger. */
export type LedgerKind = "grant" | "purchase" | "hold" | "spend" | "return" | "expire" | "refund" | "chargeback";

/** Connects granted or bought together, spent oldest expiry first. */
export interface ConnectLot {
  id: string;
  source: LotSource;
  amount: number;
  remaining: number;
  expiresAt: number;
}

/** One move of the user's connects: `amount` to or from the available balance, `held` to or from the held one. */
export interface LedgerEntry {
  id: string;
  kind: LedgerKind;
  amount: number;
  held: number;
  createdAt: number;
  /** What a purchase's payment came to (minor units) and its currency; null for the other kinds. */
  paid: number | null;
  currency: string | null;
}

export const LOT_SOURCE_LABELS: Record<LotSource, string> = { starter: "Starter grant", purchase: "Purchase", return: "Returned hold" };

export const LEDGER_KIND_LABELS: Record<LedgerKind, string> = {
  grant: "Starter grant",
  purchase: "Purchase",
  hold: "Held for a proposal",
  spend: "Spent on an accepted trade",
  return: "Returned",
  expire: "Expired",
  refund: "Taken back: payment refunded",
  chargeback: "Taken back: payment disputed",
};

/** While a payment's connects are on their way, the page looks again this often (without JavaScript too)… */
export const RECHECK_SECONDS = 4;
/** …for about two minutes; after that the payment is still processing (a bank debit can take days). */
export const MAX_RECHECKS = 30;

/** The Connects page back from a checkout, looking again for the `tries`th time. */
export function recheckAddress(sessionId: string, tries: number): string {
  return `/mysite/connects?checkout=success&session_id=${encodeURIComponent(sessionId)}&tries=${tries}`;
}

/** What the webhook has recorded of a checkout: its connects credited, its payment failed, or nothing yet (null). */
export type CheckoutOutcome = { credited: number } | "failed" | null;

/**
 * Where a payment the user came back from stands, after `tries` looks: its connects added (`credited`, the webhook has
 * landed), `failed` (a bank payment that did not go through), still on their way (`pending`, look again), or
 * `processing` once the looks are used up.
 */
export type CheckoutState = "credited" | "failed" | "pending" | "processing";

export function checkoutState(outcome: CheckoutOutcome, tries: number): CheckoutState {
  if (outcome === "failed") return "failed";
  if (outcome !== null) return "credited";
  return tries < MAX_RECHECKS ? "pending" : "processing";
}
