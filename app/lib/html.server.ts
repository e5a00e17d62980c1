/** Reading other sites' pages with the Workers HTMLRewriter, streaming, without building a document. */
import type { OnPageFacts } from "~/domain/audit";
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
  let rewriter = new HTMLRewriter().on("head", { element: (head) => head.onEndTag(() => void (headOver = true)) }).on("*", {
    element: (element) => {
      if (rawDepth > 0 || headOver) return;
      if (!HEAD_ELEMENTS.has(element.tagName)) headOver = true;
      else if (element.tagName === "noscript" || element.tagName === "template") {
        rawDepth += 1;
        element.onEndTag(() => void (rawDepth -= 1));
      }
    },
  });
  for (const [selector, handler] of Object.entries(handlers)) {
    rewriter = rewriter.on(selector, { element: (element) => (headOver || rawDepth > 0 ? undefined : handler(element)) });
  }
  const streamed = await streamThrough(page, rewriter, () => headOver || enough());
  if (!streamed.ok) return streamed;
  const failure = enough() ? null : page.failure();
  return failure ? refused(failure, page.url) : { ok: true };
}

/**
 * Runs a page's body through the rewriter until it ends or `stop` says enough, then lets the rest go. A charset the
 * parser does not know is read as UTF-8 (the ASCII of tags survives it).
 */
async function streamThrough(page: FetchedPage, rewriter: HTMLRewriter, stop: () => boolean): Promise<{ ok: true } | FetchRefused> {
  const declared = page.headers.get("Content-Type") ?? "";
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    try {
      reader = rewriter
        .transform(new Response(page.body, { headers: { "Content-Type": /html/i.test(declared) ? declared : "text/html" } }))
        .body?.getReader();
    } catch {
      reader = rewriter.transform(new Response(page.body, { headers: { "Content-Type": "text/html; charset=utf-8" } })).body?.getReader();
    }
    while (reader && !stop()) {
      const { done } = await reader.read();
      if (done) break;
    }
    return { ok: true };
  } catch {
    return refused(page.failure() ?? "unreachable", page.url);
  } finally {
    await reader?.cancel().catch(() => undefined);
    await page.cancel();
  }
}

export type LinkRel = "follow" | "nofollow" | "sponsored" | "ugc";

export interface FoundLink {
  href: string;
  rel: LinkRel;
  anchorText: string;
  hidden: boolean;
}

/** Elements that never have content, so they have no end tag to wait for. */
const VOID_ELEMENTS = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
  "keygen",
]);

const END = String.raw`\s*(!\s*important\s*)?(;|$)`;
const HIDING_STYLE = [
  /(^|;)\s*display\s*:\s*none\b/i,
  /(^|;)\s*visibility\s*:\s*(hidden|collapse)\b/i,
  new RegExp(String.raw`(^|;)\s*opacity\s*:\s*0(\.0+)?${END}`, "i"),
  new RegExp(String.raw`(^|;)\s*font-size\s*:\s*0(px|em|rem|pt|%)?${END}`, "i"),
  new RegExp(String.raw`(^|;)\s*(left|top|text-indent)\s*:\s*-\d{3,}(px|em|rem)?${END}`, "i"),
];
/** Zero width or height hides only what does not overflow the box. */
const ZERO_SIZE = new RegExp(String.raw`(^|;)\s*(max-)?(width|height)\s*:\s*0(px|em|rem|%)?${END}`, "i");
const OVERFLOW_HIDDEN = /(^|;)\s*overflow(-x|-y)?\s*:\s*(hidden|clip)\b/i;

/** Elements whose end tag may be left out: a new one of the same kind (or, for p, a block) closes the open one. */
const OPTIONAL_END = new Set(["p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "tbody", "thead", "tfoot", "rb", "rt", "rp"]);
const CLOSES_P = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "details",
  "div",
  "dl",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hr",
  "main",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "table",
  "ul",
]);

/**
 * Elements inside which an optional end tag's element (li, td, dd…) is a new one of its own, not a sibling: an `<li>`
 * in a list nested in a hidden `<li>` does not close that one.
 */
const NESTING_CONTAINERS = new Set(["ul", "ol", "menu", "table", "dl", "select", "datalist"]);

/** Hidden elements open at once beyond which a page is read as hiding everything after (no page shows that many). */
const MAX_OPEN_HIDDEN = 1_000;

/**
 * Whether an element hides what it holds: the `hidden` attribute, a dialog not open, or an inline style that hides or
 * shrinks it to nothing (read without its CSS comments, which would otherwise keep a `display` from its `none`).
 */
export function hidesContent(element: { tagName: string; getAttribute(name: string): string | null; hasAttribute(name: string): boolean }): boolean {
  if (element.hasAttribute("hidden") || (element.tagName === "dialog" && !element.hasAttribute("open"))) return true;
  const written = element.getAttribute("style");
  if (written === null) return false;
  // A comment reads as a space, as in CSS: `dis/**/play:none` is no declaration at all.
  const style = written.replace(/\/\*[^]*?(\*\/|$)/g, " ");
  return HIDING_STYLE.some((pattern) => pattern.test(style)) || (ZERO_SIZE.test(style) && OVERFLOW_HIDDEN.test(style));
}

/** A link's rel as a search engine reads it: sponsored and ugc before nofollow; none of them is a followed link. */
export function relOf(value: string | null): LinkRel {
  const tokens = new Set((value ?? "").toLowerCase().split(/\s+/).filter(Boolean));
  if (tokens.has("sponsored")) return "sponsored";
  if (tokens.has("ugc")) return "ugc";
  if (tokens.has("nofollow")) return "nofollow";
  return "follow";
}

/** Directives of `X-Robots-Tag` that take a value after a colon, so are not a crawler's name. */
const ROBOTS_DIRECTIVES_WITH_VALUES = new Set(["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"]);

/**
 * Whether an `X-Robots-Tag` header tells search engines to follow none of the page's links: `nofollow` or `none`.
 * Directives for another crawler by name (`otherbot: noindex, nofollow`) do not count.
 */
function headerFollowsNothing(directives: string | null): boolean {
  let forSearchEngines = true;
  for (const part of (directives ?? "").toLowerCase().split(",")) {
    let token = part.trim();
    const named = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(token);
    if (named && !ROBOTS_DIRECTIVES_WITH_VALUES.has(named[1]!)) {
      forSearchEngines = named[1] === "googlebot" || named[1] === "robots";
      token = named[2]!.trim();
    }
    if (forSearchEngines && (token === "nofollow" || token === "none")) return true;
  }
  return false;
}

/**
 * Whether a `<meta name="robots">` or `googlebot` content says `nofollow` or `none`: it names no crawler inside, and
 * its directives are read whether commas or only spaces part them ("noindex nofollow").
 */
function metaFollowsNothing(content: string | null): boolean {
  return (content ?? "")
    .toLowerCase()
    .split(/[\s,]+/)
    .some((token) => token === "nofollow" || token === "none");
}

/**
 * Calls `handler` at the element's end tag and says true; says false for an element that has none (a self-closed
 * foreign element such as `<svg/>`, for which HTMLRewriter refuses an end-tag handler).
 */
function onClose(element: Element, handler: () => void): boolean {
  try {
    element.onEndTag(handler);
    return true;
  } catch {
    return false;
  }
}

/**
 * Streams a whole page (up to the safe fetch's size cap) through HTMLRewriter and lists its links that `wanted`
 * accepts: each with its rel, its anchor text and whether it is hidden (by itself or by an element around it).
 */
export async function scanLinks(
  page: FetchedPage,
  wanted: (url: URL) => boolean,
): Promise<{ ok: true; links: FoundLink[]; canonical: string | null } | FetchRefused> {
  const links: FoundLink[] = [];
  let base = page.url;
  let baseSet = false;
  // The page's own name for its address (`<link rel="canonical">`, the first), resolved: what says two addresses are
  // one page (a query string or a short link that serves the same article).
  let canonical: string | null = null;
  // Open elements that hide what they hold (template too: its content is not shown), each with the number of lists and
  // tables open around it; an entry leaves when its end tag comes, or what HTML says closes it when the end tag is left
  // out (a new element of its kind at the same depth, a block after a paragraph). A page with more open at once than
  // any page shows is read as hiding all that follows.
  type Hiding = { tag: string; containers: number };
  const hiding = new Set<Hiding>();
  // The open ones whose end tag may be left out, by tag and depth: what a start tag may close is found at once.
  const closable = new Map<string, Hiding[]>();
  let containers = 0;
  let overwhelmed = false;
  const open = () => overwhelmed || hiding.size > 0;
  const closeAll = (key: string) => {
    for (const entry of closable.get(key) ?? []) hiding.delete(entry);
    closable.delete(key);
  };
  let current: FoundLink | null = null;
  // A page that tells search engines to follow none of its links makes every link on it a nofollow one.
  let followNothing = headerFollowsNothing(page.headers.get("X-Robots-Tag"));
  const rewriter = new HTMLRewriter()
    .on("meta[name][content]", {
      element: (element) => {
        const name = element.getAttribute("name")!.trim().toLowerCase();
        if ((name === "robots" || name === "googlebot") && metaFollowsNothing(element.getAttribute("content"))) followNothing = true;
      },
    })
    .on("base[href]", {
      element: (element) => {
        if (baseSet) return;
        baseSet = true;
        try {
          base = new URL(element.getAttribute("href") ?? "", page.url).toString();
        } catch {
          // A broken base changes nothing.
        }
      },
    })
    .on("*", {
      element: (element) => {
        // Past the limit everything after is hidden: nothing more to track.
        if (overwhelmed) return;
        const tag = element.tagName;
        if (OPTIONAL_END.has(tag)) closeAll(`${tag} ${containers}`);
        if (CLOSES_P.has(tag)) closeAll(`p ${containers}`);
        const container = NESTING_CONTAINERS.has(tag);
        const hides = !VOID_ELEMENTS.has(tag) && (tag === "template" || hidesContent(element));
        if (!container && !hides) return;
        if (hides && hiding.size >= MAX_OPEN_HIDDEN) {
          overwhelmed = true;
          return;
        }
        const entry = hides ? { tag, containers: containers + (container ? 1 : 0) } : null;
        // One handler for both: its end leaves the set of hidden elements and ends a list's or table's depth.
        const ends = onClose(element, () => {
          if (entry) hiding.delete(entry);
          if (container) containers -= 1;
        });
        if (!ends) return;
        if (container) containers += 1;
        if (!entry) return;
        hiding.add(entry);
        if (OPTIONAL_END.has(tag)) {
          const key = `${tag} ${entry.containers}`;
          const others = closable.get(key);
          if (others) others.push(entry);
          else closable.set(key, [entry]);
        }
      },
    })
    .on("link[rel][href]", {
      element: (element) => {
        if (canonical !== null || !(element.getAttribute("rel") ?? "").toLowerCase().split(/\s+/).includes("canonical")) return;
        try {
          const url = new URL((element.getAttribute("href") ?? "").trim(), base);
          if (url.protocol === "https:" || url.protocol === "http:") canonical = url.toString();
        } catch {
          // A broken canonical names nothing.
        }
      },
    })
    .on("a[href]", {
      element: (element) => {
        let url: URL;
        try {
          url = new URL((element.getAttribute("href") ?? "").trim(), base);
        } catch {
          return;
        }
        if ((url.protocol !== "https:" && url.protocol !== "http:") || !wanted(url)) return;
        const link: FoundLink = { href: url.toString(), rel: relOf(element.getAttribute("rel")), anchorText: "", hidden: open() };
        links.push(link);
        // A self-closed <a/> (inside SVG) has no end tag and no anchor text.
        current = onClose(element, () => void (current = null)) ? link : null;
      },
      text: (chunk) => {
        if (current && current.anchorText.length < 500) current.anchorText += chunk.text;
      },
    });
  const streamed = await streamThrough(page, rewriter, () => false);
  if (!streamed.ok) return streamed;
  const failure = page.failure();
  if (failure && failure !== "too_large") return refused(failure, page.url);
  return {
    ok: true,
    canonical,
    links: links.map((link) => ({
      ...link,
      rel: followNothing && link.rel === "follow" ? "nofollow" : link.rel,
      anchorText: link.anchorText.replace(/\s+/g, " ").trim().slice(0, 200),
    })),
  };
}

/**
 * Streams a whole page (up to the size cap and the deadline: what was read by then counts) through HTMLRewriter and
 * gathers the on-page facts: the first title
 * outside `<svg>`, the meta description and viewport, the `<html lang>`, the h1 headings, the images with an alt
 * attribute (an empty alt marks a decorative image, which is right) and a canonical link. What sits inside
 * `<template>` or `<noscript>` is not on the page a search engine reads, and is left out.
 */
export async function scanOnPage(page: FetchedPage): Promise<{ ok: true; facts: OnPageFacts; bytes: number } | FetchRefused> {
  const facts: OnPageFacts = {
    title: null,
    description: false,
    h1Count: 0,
    lang: false,
    viewport: false,
    images: 0,
    imagesWithAlt: 0,
    canonical: false,
  };
  let bytes = 0;
  let skipped = 0; // inside <svg>, <template> or <noscript>
  let title: string | null = null;
  let inTitle = false;
  let bodyReached = false;
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const rewriter = new HTMLRewriter()
    .on("svg, template, noscript", {
      element: (element) => {
        if (onClose(element, () => void (skipped -= 1))) skipped += 1;
      },
    })
    .on("html", { element: (element) => void (facts.lang ||= Boolean(element.getAttribute("lang")?.trim())) })
    .on("title", {
      element: (element) => {
        if (skipped > 0 || title !== null) return;
        inTitle = onClose(element, () => void (inTitle = false));
        if (inTitle) title = "";
      },
      text: (chunk) => {
        if (inTitle && title !== null && title.length < 300) title += chunk.text;
      },
    })
    .on("meta[name]", {
      element: (element) => {
        if (skipped > 0) return;
        const name = element.getAttribute("name")?.trim().toLowerCase();
        const content = element.getAttribute("content")?.trim();
        if (name === "description" && content) facts.description = true;
        if (name === "viewport" && content) facts.viewport = true;
      },
    })
    .on("link[rel][href]", {
      element: (element) => {
        const rel = (element.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
        if (skipped === 0 && rel.includes("canonical") && element.getAttribute("href")?.trim()) facts.canonical = true;
      },
    })
    .on("body", { element: () => void (bodyReached = true) })
    .on("h1", { element: () => void (skipped === 0 && (facts.h1Count += 1)) })
    .on("img", {
      element: (element) => {
        if (skipped > 0) return;
        facts.images += 1;
        if (element.hasAttribute("alt")) facts.imagesWithAlt += 1;
      },
    });
  const measured: FetchedPage = { ...page, body: page.body.pipeThrough(counted) };
  const streamed = await streamThrough(measured, rewriter, () => false);
  if (!streamed.ok) return streamed;
  const failure = page.failure();
  // A page cut off by the size cap, or by the deadline once its whole head was read, is scored on what was read, as a
  // search engine would: a home page that trickled its body past the deadline got no score at all, and kept its
  // placeholder for good. One cut off before its body began has not shown enough to be scored.
  const partial = failure === "too_large" || (failure === "timeout" && bodyReached);
  if (failure && !partial) return refused(failure, page.url);
  const text = (title as string | null)?.replace(/\s+/g, " ").trim();
  facts.title = text ? text.slice(0, 200) : null;
  return { ok: true, facts, bytes };
}
