/** Connect bundles: prices in US dollars, plus tax; 30 is the default choice. */
export const CONNECT_BUNDLES = [
  { connects: 30, priceUsd: 20 },
  { connects: 60, priceUsd: 32 },
  { connects: 100, priceUsd: 53 },
] as const;

export const DEFAULT_BUNDLE = 30;

export type ConnectBundle = (typeof CONNECT_BUNDLES)[number];
