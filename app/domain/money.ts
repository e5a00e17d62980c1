/** Currencies Stripe counts in whole units, and in thousandths (https://docs.stripe.com/currencies); the rest in hundredths. */
const ZERO_DECIMAL = new Set(["BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF"]);
const THREE_DECIMAL = new Set(["BHD", "JOD", "KWD", "OMR", "TND"]);

/** An amount as Stripe gives it (the currency's smallest unit: cents, or yen), as receipts show it: "$20.00", "¥3,200". */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase();
  const divisor = ZERO_DECIMAL.has(code) ? 1 : THREE_DECIMAL.has(code) ? 1000 : 100;
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: code }).format(amount / divisor);
  } catch {
    return `${(amount / divisor).toFixed(divisor === 1 ? 0 : divisor === 1000 ? 3 : 2)} ${code}`;
  }
}
