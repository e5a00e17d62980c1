import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import {
  Form,
  Link,
  useActionData,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
  useSearchParams,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { PostCard } from "~/components/post-card";
import { PostGone, TradePanel } from "~/components/trade-panel";
import { messages } from "~/domain/messages";
import { CATEGORY_TAGS, type Option } from "~/domain/options";
import { addressOf, addressWith, listReloads, paramsNamed } from "~/domain/page-address";
import { AUTHORITY_BANDS, displayScore } from "~/domain/score";
import { hasFilters, isBrowsing, parseSearchQuery, type SearchQuery } from "~/domain/search";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { marketPostStatements, type MarketPost } from "~/services/market.server";
import { proposalFormAction } from "~/services/proposal-form.server";
import { browseResultOf, browseStatements, searchListings, type SearchPost } from "~/services/search.server";
import type { loader as appLoader } from "./_app";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.query.term ? `Results for ${data.query.term}` : "Search results"} - Backlink Market` },
];

/**
 * Serves /search?term=… and, through search.$term.tsx, /search/{term}. A post's trade terms open over the results
 * (`post=ID`), as on the market.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const query = parseSearchQuery(url.searchParams, params.term);
  const after = url.searchParams.get("after");
  // The open post (a results page without JavaScript, or a link), read in the session's round trip.
  const postId = url.searchParams.get("post");
  const selectedPost =
    postId && postId.length <= 64
      ? requireAuthWith(request, context, (viewer) => marketPostStatements(context.db, viewer, postId)).then(({ rows: [[post]] }) =>
          post ? forDisplay(post) : null,
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

// A missing score shows a placeholder from 40 to 99 (docs/decisions/0024-placeholder-score.md), decided on the server.
const forDisplay = <Post extends SearchPost | MarketPost>(post: Post): Post => ({ ...post, score: displayScore(post.score) });

function found(query: SearchQuery, result: { posts: SearchPost[]; count: number; next: string | null }, selected: MarketPost | null) {
  return {
    query,
    posts: result.posts.map(forDisplay),
    count: result.count,
    next: result.next,
    limited: false,
    selected,
  };
}

/** Where the user is in the results: the search and its page. */
const RESULTS_PARAMS = ["term", "tag", "band", "sort", "after"];

/** Sends a proposal from the trade terms panel over the results; sent, the results are shown again with the notice. */
export async function action({ request, context }: ActionFunctionArgs) {
  const url = new URL(request.url);
  return proposalFormAction(request, context, addressOf(url.pathname, paramsNamed(url.searchParams, RESULTS_PARAMS)));
}

// Opening or closing a post's panel searches nothing again: the post is on the page.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }) =>
  formMethod ? defaultShouldRevalidate : listReloads(currentUrl, nextUrl, RESULTS_PARAMS);

/** A dropdown of checkboxes; with JavaScript or without, Apply sends them as a plain GET form. */
function FilterDropdown({ title, name, options, chosen }: { title: string; name: string; options: readonly Option[]; chosen: string[] }) {
  return (
    <details className="filter">
      <summary>
        {title}
        {chosen.length > 0 ? ` (${chosen.length})` : ""}
      </summary>
      <div className="filter-panel">
        {options.map((option) => (
          <label key={option.id} className="check">
            <input type="checkbox" name={name} value={option.id} defaultChecked={chosen.includes(option.id)} />
            {option.label}
          </label>
        ))}
      </div>
    </details>
  );
}

/** What a search without matches says: browsing an empty market, or a search to change. */
function noMatchesMessage(query: SearchQuery) {
  if (isBrowsing(query)) return messages.noPosts;
  return hasFilters(query) ? messages.noMatchesFiltered : messages.noMatches;
}

export default function SearchResults() {
  const { query, posts, count, next, limited, selected: loaded } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const shell = useRouteLoaderData<typeof appLoader>("routes/_app");
  const [searchParams] = useSearchParams();
  const { pathname } = useLocation();
  const filtered = hasFilters(query) || query.sort !== "newest";
  const postId = searchParams.get("post");
  const selected = postId ? posts.find((post) => post.id === postId) ?? (loaded?.id === postId ? loaded : null) : null;
  const closeTo = addressWith(pathname, searchParams, "post", null);
  return (
    <main className="market">
      <h1 className="user-text">{query.term ? `Results for ${query.term}` : "Search results"}</h1>
      <Form method="get" action="/search" className="filters" aria-label="Filters">
        <input type="hidden" name="term" value={query.term} />
        <FilterDropdown title="Category" name="tag" options={CATEGORY_TAGS} chosen={query.tags} />
        <FilterDropdown title="Authority" name="band" options={AUTHORITY_BANDS} chosen={query.bands} />
        <label className="sort-select">
          <span>Sort</span>
          <select name="sort" defaultValue={query.sort}>
            <option value="newest">Newest</option>
            <option value="record">Best record</option>
          </select>
        </label>
        <button type="submit" className="button button-primary button-small">
          Apply
        </button>
        {filtered ? (
          <Link to={addressOf(pathname, paramsNamed(searchParams, ["term"]))} className="button button-ghost button-small">
            Clear
          </Link>
        ) : null}
      </Form>
      {limited ? (
        <p className="form-error" role="alert">
          {messages.tooManySearches}
        </p>
      ) : (
        <p className="count-line">{count}+ sites available</p>
      )}
      {count === 0 && !limited ? <p className="empty">{noMatchesMessage(query)}</p> : null}
      <div className="post-grid">
        {posts.map((post) => (
          <PostCard key={post.id} post={post} to={addressWith(pathname, searchParams, "post", post.id)} />
        ))}
      </div>
      {next ? (
        <nav className="pager" aria-label="More results">
          <Link to={addressWith(pathname, paramsNamed(searchParams, RESULTS_PARAMS), "after", String(next))}>More results</Link>
        </nav>
      ) : null}
      {postId && !selected ? <PostGone closeTo={closeTo} /> : null}
      {selected ? (
        <TradePanel
          key={selected.id}
          post={selected}
          closeTo={closeTo}
          proposeTo={addressWith(pathname, searchParams, "post", selected.id)}
          siteVerified={shell?.activeSite?.verified ?? false}
          connects={shell?.user.connects ?? 0}
          failure={failure}
        />
      ) : null}
    </main>
  );
}
