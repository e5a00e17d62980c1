/** The search's server work: the results of a search (or the market's list when there is nothing to search for) and the open post. */
import { data } from "@remix-run/cloudflare";
import { postForDisplay } from "~/domain/listing-format";
import { isBrowsing, parseSearchQuery, searchTermOf, type SearchQuery } from "~/domain/search";
import type { AppContext } from "~/lib/context";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { marketPostStatements, type MarketPost } from "~/services/market.server";
import { browseResultOf, browseStatements, searchListings, type SearchPost } from "~/services/search.server";

/** The results for the address's search (`term` from the path of /search/{term}), and the post whose trade terms are open. */
export async function loadSearchResults(request: Request, context: AppContext, term: string | undefined) {
  const url = new URL(request.url);
  // The term of /search/{term} as its address spells it: the router leaves a segment with a stray "%" undecoded whole.
  const query = parseSearchQuery(url.searchParams, term === undefined ? undefined : searchTermOf(url.pathname, ""));
  const after = url.searchParams.get("after");
  // The open post (a results page without JavaScript, or a link), read in the session's round trip.
  const postId = url.searchParams.get("post");
  const selectedPost =
    postId && postId.length <= 64
      ? requireAuthWith(request, context, (viewer) => marketPostStatements(context.db, viewer, postId)).then(({ rows: [[post]] }) =>
          post ? postForDisplay(post) : null,
        )
      : null;
  if (isBrowsing(query) && query.sort === "newest") {
    // Nothing to search for: the market's list, read in the session's round trip and not counted as a search.
    const started = performance.now();
    const [{ rows }, selected] = await Promise.all([
      requireAuthWith(request, context, (viewer) => browseStatements(context.db, viewer, after)),
      selectedPost,
    ]);
    context.responseHeaders.set("Server-Timing", `search;dur=${(performance.now() - started).toFixed(1)}`);
    return found(query, browseResultOf(rows), selected);
  }
  const [auth, selected] = await Promise.all([requireAuth(request, context), selectedPost]);
  // Counted at the edge (no database write per search); people never reach it, scripts do. Browsing sorted by record
  // is /market?sort=record's list, which has no limit either.
  const limited = !isBrowsing(query) && context.env.SEARCH_LIMITER && !(await context.env.SEARCH_LIMITER.limit({ key: auth.user.id })).success;
  if (limited) return data({ query, posts: [], count: 0, next: null, limited: true, selected }, { status: 429 });
  const result = await searchListings(context.db, auth.user.id, query, after);
  context.responseHeaders.set("Server-Timing", `search;dur=${result.durationMs.toFixed(1)}`);
  return found(query, result, selected);
}

function found(
  query: SearchQuery,
  result: { posts: SearchPost[]; count: number; next: string | null },
  selected: ReturnType<typeof postForDisplay<MarketPost>> | null,
) {
  return {
    query,
    posts: result.posts.map(postForDisplay),
    count: result.count,
    next: result.next,
    limited: false,
    selected,
  };
}
