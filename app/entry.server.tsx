import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { isRouteErrorResponse, RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { NonceProvider } from "./components/nonce";

/** Errors worth a log line: not aborted requests and not 404s for unknown addresses. */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status === 404) return;
  console.error(error);
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  loadContext.timing?.renderStarts();
  const body = await renderToReadableStream(
    <NonceProvider value={loadContext.nonce}>
      <RemixServer context={remixContext} url={request.url} nonce={loadContext.nonce} />
    </NonceProvider>,
    {
      nonce: loadContext.nonce,
      signal: request.signal,
      onError(error: unknown) {
        if (!request.signal.aborted) console.error(error);
        responseStatusCode = 500;
      },
    },
  );
  if (isbot(request.headers.get("user-agent") || "")) await body.allReady;
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}

// The Worker's handlers and its Durable Object, taken from this build by `app/worker.ts`.
export { ChatRoom, createContext, createWorker } from "./handler.server";
