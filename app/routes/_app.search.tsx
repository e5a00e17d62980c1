import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useActionData, useLoaderData, useLocation, useSearchParams, type ShouldRevalidateFunction } from "@remix-run/react";
import { PostCard } from "~/components/post-card";
import { SearchFilters } from "~/components/search-filters";
import { inertWhen, panelShown } from "~/components/inert";
import { AddressedPost } from "~/components/trade-panel";
import { ActiveSiteVerifyBanner, NO_MORE_POSTS } from "~/components/post-list-notes";
import { messages } from "~/domain/messages";
import { addressOf, addressWith, listReloads, paramsNamed } from "~/domain/page-address";
import { hasFilters, isBrowsing, type SearchQuery } from "~/domain/search";
import { proposalFormAction } from "~/services/proposal-form.server";
import { loadSearchResults } from "./_app.search.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.query.term ? `Results for ${data.query.term}` : "Search results"} - Backlink Market` },
];

/**
 * Serves /search?term=… and, through search.$term.tsx, /search/{term}. A post's trade terms open over the results
 * (`post=ID`), as on the market.
 */
export const loader = ({ request, context, params }: LoaderFunctionArgs) => loadSearchResults(request, context, params.term);

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

/** What a search without matches says: browsing an empty market, or a search to change. */
function noMatchesMessage(query: SearchQuery) {
  if (isBrowsing(query)) return messages.noPosts;
  return hasFilters(query) ? messages.noMatchesFiltered : messages.noMatches;
}

export default function SearchResults() {
  const { query, posts, count, next, limited, selected } = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const { pathname } = useLocation();
  const filtered = hasFilters(query) || query.sort !== "newest";
  const laterPage = searchParams.has("after");
  return (
    <main className="market" id="main">
      {/* Behind a post's trade terms, the results are out of reach (without JavaScript too). */}
      <div {...inertWhen(panelShown(searchParams, { posts, selected }))}>
        <h1 className="user-text">{query.term ? `Results for ${query.term}` : "Search results"}</h1>
        <SearchFilters query={query} clearTo={filtered ? addressOf(pathname, paramsNamed(searchParams, ["term"])) : null} />
        {limited ? (
          <p className="form-error" role="alert">
            {messages.tooManySearches}
          </p>
        ) : (
          <p className="count-line">{count}+ sites available</p>
        )}
        <ActiveSiteVerifyBanner />
        {count === 0 && !limited ? <p className="empty">{noMatchesMessage(query)}</p> : null}
        {count > 0 && posts.length === 0 && laterPage ? <p className="empty">{NO_MORE_POSTS}</p> : null}
        <div className="post-grid">
          {posts.map((post) => (
            <PostCard key={post.id} post={post} to={addressWith(pathname, searchParams, "post", post.id)} />
          ))}
        </div>
        {next || laterPage ? (
          <nav className="pager" aria-label="More results">
            {laterPage ? <Link to={addressOf(pathname, paramsNamed(searchParams, ["term", "tag", "band", "sort"]))}>First results</Link> : null}
            {next ? <Link to={addressWith(pathname, paramsNamed(searchParams, RESULTS_PARAMS), "after", String(next))}>More results</Link> : null}
          </nav>
        ) : null}
      </div>
      <AddressedPost posts={posts} loaded={selected} failure={failure} />
    </main>
  );
}
