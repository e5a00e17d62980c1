import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { receiveStripeWebhook } from "~/services/payments.server";

/** Stripe's events are small; anything larger is not one. */
const MAX_EVENT_BYTES = 512 * 1024;

const plain = (body: string, status: number) => new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

/** The body as text, read at most to the limit (null beyond it), whether or not a length was declared. */
async function readLimited(request: Request): Promise<string | null> {
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_EVENT_BYTES) return null;
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_EVENT_BYTES) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
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
