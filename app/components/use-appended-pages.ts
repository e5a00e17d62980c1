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

/** Where a history entry's appended pages are kept in this tab's storage: by the entry, and by the release. */
function storeKey(entry: string): string {
  return `more:${(window as { __remixManifest?: { version?: string } }).__remixManifest?.version}:${entry}`;
}

/**
 * "More posts" on a list page. With JavaScript, further pages are appended in place (loaded from `addressAfter(next)`,
 * the same route's loader); without it the link opens the next page. The appended pages belong to the list they
 * continue (`list`: its order and page): they are dropped when that changes, and kept when the page's data is loaded
 * again after an action (the fetcher then loads its last page again, which replaces that page).
 * The first page the appended ones continue is kept with them: loaded again (Back, or after an action) once new posts
 * have pushed some of its posts down, it ends before the first appended page starts, and the posts between, shown
 * before, are shown from it (each once, in their place).
 */
export function useAppendedPages<Post extends { id: string }>(list: string, page: ListPage<Post>, addressAfter: (after: string) => string) {
  const hydrated = useHydrated();
  const more = useFetcher();
  // Kept with the history entry (this tab's storage, by its key, and by the release, whose posts may be shaped
  // otherwise): back on it from another page of the app, the posts loaded are shown again in the first render, so that
  // the scroll position comes back to its place among them.
  const entry = useLocation().key;
  const [appended, setAppended] = useState<{ list: string; first?: Post[]; pages: (ListPage<Post> & { after: string })[] }>(() => {
    try {
      const kept = hydrated ? JSON.parse(sessionStorage.getItem(storeKey(entry)) ?? "null") : null;
      // Only what this code wrote: pages with their posts (a changed value starts over).
      const pages = kept?.list === list && Array.isArray(kept.pages) ? kept.pages : [];
      const shapely = pages.every((shown: ListPage<Post>) => typeof shown?.after === "string" && Array.isArray(shown.posts));
      if (pages.length > 0 && shapely && (kept.first === undefined || Array.isArray(kept.first))) return kept;
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
  const firstPosts = useRef(page.posts);
  firstPosts.current = page.posts;
  useEffect(() => {
    // The same route's loader answered: a page of this list.
    const loaded = more.data as ListPage<Post> | undefined;
    if (!loaded?.after) return;
    const after = loaded.after;
    setAppended((current) => {
      if (current.list !== loadingFor.current) return current;
      const kept = current.pages.filter((shown) => shown.after !== after);
      return { list: current.list, first: current.first ?? firstPosts.current, pages: [...kept, { after, posts: loaded.posts, next: loaded.next }] };
    });
  }, [more.data]);
  const continued = appended.pages[0]?.after === page.next;
  const posts = withoutRepeats([page.posts, ...(continued ? [] : [appended.first ?? []]), ...appended.pages.map((shown) => shown.posts)]);
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
