import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { readBodyUpTo } from "~/lib/security.server";
import { receiveStripeWebhook } from "~/services/payments.server";

/** Stripe's events are small; anything larger is not one. */
const MAX_EVENT_BYTES = 512 * 1024;

const plain = (body: string, status: number) => new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

/** The body as text, read at most to the limit (null beyond it), whether or not a length was declared. */
async function readLimited(request: Request): Promise<string | null> {
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_EVENT_BYTES) return null;
  if (!request.body) return "";
  const bytes = await readBodyUpTo(request.body, MAX_EVENT_BYTES);
  return bytes ? new TextDecoder().decode(bytes) : null;
}

/** Stripe's webhook: the raw body and its signature go to the payments service, which answers Stripe. */
export async function action({ request, context }: ActionFunctionArgs) {
  if (request.method !== "POST") return plain("Method not allowed", 405);
  const payload = await readLimited(request);
  if (payload === null) return plain("Too large", 413);
  const answer = await receiveStripeWebhook(context, payload, request.headers.get("Stripe-Signature"));
  return plain(answer.message, answer.status);
}

export function loader() {
  return new Response("Stripe posts its events here.", { status: 405, headers: { Allow: "POST" } });
}
