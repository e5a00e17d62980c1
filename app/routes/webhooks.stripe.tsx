import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { receiveStripeWebhook } from "~/services/payments.server";

/** Stripe's events are small; anything larger is not one. */
const MAX_EVENT_BYTES = 512 * 1024;

/** Stripe's webhook: the raw body and its signature go to the payments service, which answers Stripe. */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return new Response("Method not allowed", { status: 405 });
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_EVENT_BYTES) return new Response("Too large", { status: 413 });
  const payload = await request.text();
  if (payload.length > MAX_EVENT_BYTES) return new Response("Too large", { status: 413 });
  const answer = await receiveStripeWebhook(context, payload, request.headers.get("Stripe-Signature"));
  return new Response(answer.message, { status: answer.status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export function loader() {
  return new Response("Stripe posts its events here.", { status: 405, headers: { Allow: "POST" } });
}
