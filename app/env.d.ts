/// <reference types="@cloudflare/workers-types" />

declare module "remix-server-build" {
  import type { ServerBuild } from "@remix-run/cloudflare";
  const build: ServerBuild;
  export = build;
}

/** Stripe's pricing table web component (https://docs.stripe.com/payments/checkout/pricing-table). */
declare namespace JSX {
  interface IntrinsicElements {
    "stripe-pricing-table": {
      "pricing-table-id": string;
      "publishable-key": string;
      "client-reference-id"?: string;
      "customer-email"?: string;
    };
  }
}
