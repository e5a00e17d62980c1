import { useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useRef, useState, type MouseEvent } from "react";
import { useHydrated } from "./use-hydrated";

/** A page of a list as its loader answers it: its position (null for the first page), its posts, the next page's position. */
export interface ListPage<Post> {
  after: string | null;
  posts: Post[];
  next: string | null;
}

/** The pages' posts in order, each once (a post that moved to a later page since is shown where it came first). */
function withoutRepeats<Post extends { id: string }>(pages: Post[][]): Post[] {
  const seen = new Set<string>();
  return pages.flat().filter((post) => {
    if (seen.has(post.id)) return false;
    seen.add(post.id);
    return true;
  });
}

/**
 * Where the pages leave posts out: the position after a page that the next one kept does not continue from, and does
 * not overlap with (a page that was loaded again ends before it; one that ends further, its posts taken down meanwhile,
 * overlaps, and the repeats are shown once). Null without a gap.
 */
function gapIn<Post extends { id: string }>(first: ListPage<Post>, pages: ListPage<Post>[]): string | null {
  let before = first;
  for (const shown of pages) {
    const ids = new Set(before.posts.map((post) => post.id));
    if (before.next !== null && shown.after !== before.next && !shown.posts.some((post) => ids.has(post.id))) return before.next;
    before = shown;
  }
  return null;
}

/** Where a history entry's appended pages are kept in this tab's storage: by the entry, and by the release. */
function storeKey(entry: string): string {
  return `more:${(window as { __remixManifest?: { version?: string } }).__remixManifest?.version}:${entry}`;
}

/**
 * "More posts" on a list page. With JavaScript, further pages are appended in place (loaded from `addressAfter(next)`,
 * the same route's loader); without it the link opens the next page. The appended pages belong to the list they
 * continue (`list`: its order and page): they are dropped when that changes, and kept when the page's data is loaded
 * again after an action (the fetcher then loads its last page again, which replaces that page).
 * A page loaded again (the first, on Back or after an action) that no longer reaches the page kept after it, because new
 * posts pushed some of its own down, leaves a gap: the posts after it are loaded into the gap, once.
 */
export function useAppendedPages<Post extends { id: string }>(list: string, page: ListPage<Post>, addressAfter: (after: string) => string) {
  const hydrated = useHydrated();
  const more = useFetcher();
  // Kept with the history entry (this tab's storage, by its key, and by the release, whose posts may be shaped
  // otherwise): back on it from another page of the app, the posts loaded are shown again in the first render, so that
  // the scroll position comes back to its place among them.
  const entry = useLocation().key;
  const [appended, setAppended] = useState<{ list: string; pages: (ListPage<Post> & { after: string })[] }>(() => {
    try {
      const kept = hydrated ? JSON.parse(sessionStorage.getItem(storeKey(entry)) ?? "null") : null;
      // Only what this code wrote: pages with their posts (a changed value starts over).
      const pages = kept?.list === list && Array.isArray(kept.pages) ? kept.pages : [];
      const shapely = pages.every((shown: ListPage<Post>) => typeof shown?.after === "string" && Array.isArray(shown.posts));
      if (pages.length > 0 && shapely) return kept;
    } catch {
      // Storage off or full: the list starts at its first page.
    }
    return { list, pages: [] };
  });
  useEffect(() => {
    try {
      if (appended.pages.length > 0) sessionStorage.setItem(storeKey(entry), JSON.stringify(appended));
      else sessionStorage.removeItem(storeKey(entry));
    } catch {
      // As above.
    }
  }, [entry, appended]);
  if (appended.list !== list) setAppended({ list, pages: [] });
  const loadingFor = useRef(list);
  const firstNext = useRef(page.next);
  firstNext.current = page.next;
  useEffect(() => {
    // The same route's loader answered: a page of this list, in its place (after the page it continues, else last).
    const loaded = more.data as ListPage<Post> | undefined;
    if (!loaded?.after) return;
    const after = loaded.after;
    setAppended((current) => {
      if (current.list !== loadingFor.current) return current;
      const pages = current.pages.filter((shown) => shown.after !== after);
      const at = after === firstNext.current ? 0 : pages.findIndex((shown) => shown.next === after) + 1 || pages.length;
      pages.splice(at, 0, { after, posts: loaded.posts, next: loaded.next });
      return { list: current.list, pages };
    });
  }, [more.data]);
  const posts = withoutRepeats([page.posts, ...appended.pages.map((shown) => shown.posts)]);
  const gap = gapIn(page, appended.pages);
  const gapAddress = gap === null ? null : addressAfter(gap);
  const gapsLoaded = useRef(new Set<string>());
  useEffect(() => {
    if (!gapAddress || more.state !== "idle" || gapsLoaded.current.has(gapAddress)) return;
    gapsLoaded.current.add(gapAddress);
    loadingFor.current = list;
    more.load(gapAddress);
  }, [gapAddress, more, list]);
  const lastAppended = appended.pages.at(-1);
  const next = lastAppended ? lastAppended.next : page.next;
  const nextAddress = next ? addressAfter(next) : null;

  const loadMore = (event: MouseEvent) => {
    if (!hydrated || !nextAddress) return;
    event.preventDefault();
    loadingFor.current = list;
    more.load(nextAddress);
  };

  // Choosing the order the list is already in starts it again from its first page, as it does without JavaScript.
  const startOver = () => {
    loadingFor.current = "";
    setAppended({ list, pages: [] });
  };

  return { posts, nextAddress, loading: more.state === "loading", loadMore, startOver };
}
