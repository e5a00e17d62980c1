/** Reading other sites' pages with the Workers HTMLRewriter, streaming, without building a document. */
import { refused, type FetchedPage, type FetchRefused } from "./safe-fetch.server";

/** Elements that may stand in a document's head; any other element starts the body (HTML's parsing rules). */
const HEAD_ELEMENTS = new Set(["html", "head", "title", "meta", "link", "style", "script", "noscript", "base", "template"]);

export type HeadHandlers = Record<string, (element: Element) => void>;

/**
 * Streams a page through HTMLRewriter and calls the handlers for matching elements of its head only. Reading stops
 * as soon as the head ends (its end tag, or the first element that belongs to the body), so the rest of a big page
 * is never downloaded, or as soon as `enough` says the caller has what it needs. A page whose head never ends is
 * read up to the safe fetch's size cap.
 */
export async function scanHead(page: FetchedPage, handlers: HeadHandlers, enough: () => boolean = () => false): Promise<{ ok: true } | FetchRefused> {
  let headOver = false;
  let rawDepth = 0; // inside <noscript> or <template>, whose contents are not the head's own elements
  let rewriter = new HTMLRewriter()
    .on("head", { element: (head) => head.onEndTag(() => void (headOver = true)) })
    .on("*", {
      element: (element) => {
        if (rawDepth > 0 || headOver) return;
        if (!HEAD_ELEMENTS.has(element.tagName)) headOver = true;
        else if ((element.tagName === "noscript" || element.tagName === "template")) {
          rawDepth += 1;
          element.onEndTag(() => void (rawDepth -= 1));
        }
      },
    });
  for (const [selector, handler] of Object.entries(handlers)) {
    rewriter = rewriter.on(selector, { element: (element) => (headOver || rawDepth > 0 ? undefined : handler(element)) });
  }
  const declared = page.headers.get("Content-Type") ?? "";
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    try {
      reader = rewriter.transform(new Response(page.body, { headers: { "Content-Type": /html/i.test(declared) ? declared : "text/html" } })).body?.getReader();
    } catch {
      // A charset the parser does not know: read the bytes as UTF-8, which the ASCII of a head's tags survives.
      reader = rewriter.transform(new Response(page.body, { headers: { "Content-Type": "text/html; charset=utf-8" } })).body?.getReader();
    }
    while (reader && !headOver && !enough()) {
      const { done } = await reader.read();
      if (done) break;
    }
    const failure = enough() ? null : page.failure();
    return failure ? refused(failure, page.url) : { ok: true };
  } catch {
    return refused(page.failure() ?? "unreachable", page.url);
  } finally {
    await reader?.cancel().catch(() => undefined);
    await page.cancel();
  }
}
