import { vi } from "vitest";

/** What a mocked site answers for one address. */
export type Page = (request: Request) => Response | Promise<Response>;

/**
 * Answers outbound fetches from these pages (keyed by full address) through the runner's fetch mock; any other
 * address fails the way a name that does not resolve fails. Returns the requests the Worker sent.
 */
export function mockWeb(pages: Record<string, Page>) {
  const requests: Request[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request);
    const page = pages[request.url];
    if (!page) throw new TypeError(`DNS lookup failed: ${new URL(request.url).hostname} is not known`);
    return page(request);
  });
  return { requests, urls: () => requests.map((request) => request.url) };
}

export const html =
  (body: string, init: ResponseInit = {}): Page =>
  () =>
    new Response(body, { ...init, headers: { "Content-Type": "text/html; charset=utf-8", ...(init.headers as Record<string, string>) } });

export const redirectTo =
  (location: string, status = 301): Page =>
  () =>
    new Response(null, { status, headers: { Location: location } });

export const unreachable: Page = () => {
  throw new TypeError("Network connection lost");
};

/** A PNG's first bytes, enough for a browser (and the icon check) to know it as an image. */
export const PNG: Uint8Array<ArrayBuffer> = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

export const image =
  (bytes: Uint8Array<ArrayBuffer> = PNG, contentType = "image/png"): Page =>
  () =>
    new Response(bytes, { headers: { "Content-Type": contentType } });

/** A body of `total` bytes made on demand in 64 KiB chunks; `pulled` tells how much was read. */
export function endlessBytes(total: number, prefix = "") {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const state = { pulled: 0, cancelled: false };
  let sentPrefix = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sentPrefix && prefix) {
        sentPrefix = true;
        const bytes = new TextEncoder().encode(prefix);
        state.pulled += bytes.byteLength;
        controller.enqueue(bytes);
        return;
      }
      if (state.pulled >= total) return controller.close();
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** A body that sends `prefix` and then never another byte, and never ends. */
export function hangingBody(prefix = "<html><head>") {
  const state = { cancelled: false };
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(prefix));
        return;
      }
      return new Promise<void>(() => undefined);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}
