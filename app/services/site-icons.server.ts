/**
 * Site icons (also for the site header's icon edit control): read the home page's head for its icon links, else /favicon.ico, and keep
 * the first candidate that answers with an image over https. Without one the product favicon stays the fallback.
 */
import { and, eq } from "drizzle-orm";
import { sites } from "#drizzle/schema";
import type { AppContext } from "~/lib/context";
import { scanHead } from "~/lib/html.server";
import { safeFetch, safeFetchOptionsFor, type FetchedPage, type SafeFetchOptions } from "~/lib/safe-fetch.server";
import { messages } from "~/domain/messages";
import { typedHost } from "~/domain/site-address";
import { allow, RATE_LIMITS } from "./rate-limit.server";
import { fetchHomePage } from "./verification.server";

interface IconLink {
  href: string;
  /** 0 for rel icon / shortcut icon, 1 for apple-touch-icon: the page's own favicon first. */
  kind: number;
  /** Largest declared size in pixels; scalable (svg, "any") counts as large. */
  size: number;
}

function declaredSize(sizes: string | null, type: string | null, href: string): number {
  if (/svg/i.test(type ?? "") || /\.svg(\?|$)/i.test(href) || /\bany\b/i.test(sizes ?? "")) return 1024;
  const found = [...(sizes ?? "").matchAll(/(\d+)x(\d+)/gi)].map((match) => Number(match[1]));
  return found.length ? Math.max(...found) : 0;
}

/** Icon addresses a page's head names, best first, made absolute against the page (and its <base>). */
export async function iconLinksOf(page: FetchedPage): Promise<string[]> {
  const links: IconLink[] = [];
  const pageUrl = page.url;
  let base = pageUrl;
  await scanHead(page, {
    base: (element) => {
      const href = element.getAttribute("href");
      if (href) {
        try {
          base = new URL(href, pageUrl).href;
        } catch {
          // an unusable <base> is ignored, as browsers do
        }
      }
    },
    link: (element) => {
      const rel = (element.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
      const href = element.getAttribute("href")?.trim();
      if (!href) return;
      const kind = rel.includes("icon") ? 0 : rel.includes("apple-touch-icon") || rel.includes("apple-touch-icon-precomposed") ? 1 : -1;
      if (kind < 0) return;
      links.push({ href, kind, size: declaredSize(element.getAttribute("sizes"), element.getAttribute("type"), href) });
    },
  });
  const ordered = links.sort((a, b) => a.kind - b.kind || b.size - a.size);
  const addresses: string[] = [];
  for (const link of ordered) {
    try {
      const absolute = new URL(link.href, base);
      if (absolute.protocol === "http:") absolute.protocol = "https:";
      const fits = absolute.href.length <= MAX_ICON_ADDRESS;
      if (absolute.protocol === "https:" && fits && !addresses.includes(absolute.href)) addresses.push(absolute.href);
    } catch {
      // not an address
    }
  }
  return addresses;
}

/**
 * The longest icon address kept: it is sent with every card, chat row and switcher entry that shows the site, so one
 * page's 20,000-character address would weigh on every viewer's pages.
 */
export const MAX_ICON_ADDRESS = 2048;

/** Whether the first bytes are an image format browsers show as an icon. */
export function looksLikeImage(bytes: Uint8Array): boolean {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47) || starts(0x47, 0x49, 0x46, 0x38) || starts(0xff, 0xd8, 0xff) || starts(0x00, 0x00, 0x01, 0x00)) return true;
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.slice(8, 12)) === "WEBP") return true;
  const text = new TextDecoder().decode(bytes.slice(0, 1024)).trimStart().toLowerCase();
  return text.startsWith("<svg") || (text.startsWith("<?xml") && text.includes("<svg"));
}

/** Fetches a candidate icon and answers its final https address when it is an image. */
async function imageAddress(address: string, options: SafeFetchOptions): Promise<string | null> {
  const icon = await safeFetch(address, { ...options, accept: "image/*" });
  if (!icon.ok) return null;
  try {
    if (icon.status < 200 || icon.status > 299 || !icon.url.startsWith("https://")) return null;
    const reader = icon.body.getReader();
    const first = await reader.read().catch(() => ({ done: true as const, value: undefined }));
    const declaredImage = /^image\//i.test(icon.headers.get("Content-Type") ?? "");
    const image = first.value && (declaredImage || looksLikeImage(first.value));
    return image && icon.url.length <= MAX_ICON_ADDRESS ? icon.url : null;
  } finally {
    await icon.cancel();
  }
}

/** The whole lookup (home page and candidates) ends within this, well inside what a Worker gives `waitUntil`. */
const ICON_LOOKUP_MS = 15_000;

/** The site's icon: the best icon link that answers with an image, else /favicon.ico, else null. */
export async function discoverSiteIcon(siteUrl: string, options: SafeFetchOptions): Promise<string | null> {
  const host = typedHost(siteUrl);
  if (!host) return null;
  const within = { ...options, deadline: Date.now() + ICON_LOOKUP_MS };
  const page = await fetchHomePage(siteUrl, { ...within, deadline: Date.now() + ICON_LOOKUP_MS / 2 });
  const origin = page.ok && page.url.startsWith("https://") ? new URL(page.url).origin : `https://${host}`;
  // Three named icons at most (each is a fetch, and a page may list dozens of sizes), then /favicon.ico.
  const named = page.ok ? (await iconLinksOf(page)).slice(0, 3) : [];
  for (const candidate of new Set([...named, `${origin}/favicon.ico`])) {
    const found = await imageAddress(candidate, within);
    if (found) return found;
  }
  return null;
}

/**
 * What pressing the icon control did: a new icon stored, none found (the site keeps the icon it had, if any), or
 * refused by the site's ten updates an hour (`icon`) or by the account's hourly reads of its sites (`sites`).
 */
export type IconUpdate = { ok: true; outcome: "updated" | "missing" } | { ok: false; status: 429; limit: "icon" | "sites"; message: string };

/**
 * Looks the icon up again and stores it; the write is for the owner's row only. When none is found (no icon named, or
 * the home page could not be read for now), nothing is written: the site keeps the icon it had, as the specification's
 * icon update applies nothing on a not-found answer.
 */
export async function updateSiteIcon(context: AppContext, userId: string, site: { id: string; url: string }): Promise<IconUpdate> {
  if (!(await allow(context, RATE_LIMITS.iconUpdatesPerSite, site.id))) {
    return { ok: false, status: 429, limit: "icon", message: messages.tooManyIconUpdates };
  }
  if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, userId))) {
    return { ok: false, status: 429, limit: "sites", message: messages.tooManySiteFetches };
  }
  const icon = await discoverSiteIcon(site.url, safeFetchOptionsFor(context.env, context.db));
  if (!icon) return { ok: true, outcome: "missing" };
  await context.db
    .update(sites)
    .set({ icon })
    .where(and(eq(sites.id, site.id), eq(sites.userId, userId)));
  return { ok: true, outcome: "updated" };
}

/** After sign-up and add-site: the icon is looked up once the response has gone, never delaying it. */
export function lookUpIconLater(context: AppContext, userId: string, siteId: string, siteUrl: string): void {
  context.ctx.waitUntil(
    (async () => {
      if (!(await allow(context, RATE_LIMITS.siteFetchesPerUser, userId))) return;
      const icon = await discoverSiteIcon(siteUrl, safeFetchOptionsFor(context.env, context.db));
      if (icon) await context.db.update(sites).set({ icon }).where(eq(sites.id, siteId));
    })().catch((error) => console.error("icon lookup failed", siteId, error)),
  );
}
