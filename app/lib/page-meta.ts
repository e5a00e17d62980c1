import type { MetaDescriptor } from "@remix-run/cloudflare";

/** The product's description for search results; a page with nothing more specific to say uses it. */
export const SITE_DESCRIPTION = "Grow organic website traffic at no cost: trade content and backlinks with site owners like you.";

/**
 * A public page's title and description. A route's `meta` replaces its parents' entirely, so each public page names
 * its own description (search results show it); signed-in pages need none, search engines are kept out of them.
 */
export function publicPageMeta(title: string, description = SITE_DESCRIPTION): MetaDescriptor[] {
  return [{ title }, { name: "description", content: description }];
}
