import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { PostCard } from "~/components/post-card";
import { CATEGORY_TAGS } from "~/domain/options";
import { AUTHORITY_BANDS, displayScore } from "~/domain/score";
import { parseSearchQuery } from "~/domain/search";
import { requireAuth } from "~/services/auth.server";
import { searchListings } from "~/services/search.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.query.term ? `Results for ${data.query.term}` : "Search results"} - Backlink Market` },
];

/** Serves /search?term=… and, through search.$term.tsx, /search/{term}. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const url = new URL(request.url);
  const query = parseSearchQuery(url.searchParams, params.term);
  const result = await searchListings(context.db, auth.user.id, query, url.searchParams.get("after"));
  context.responseHeaders.set("Server-Timing", `search;dur=${result.durationMs.toFixed(1)}`);
  return {
    query,
    posts: result.posts.map((post) => ({ ...post, score: displayScore(post.score) })),
    count: result.count,
    next: result.next,
  };
}

function queryString(query: { term: string; tags: string[]; bands: string[] }, extra: Record<string, string> = {}) {
  const params = new URLSearchParams();
  if (query.term) params.set("term", query.term);
  for (const tag of query.tags) params.append("tag", tag);
  for (const band of query.bands) params.append("band", band);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return params.toString();
}

export default function SearchResults() {
  const { query, posts, count, next } = useLoaderData<typeof loader>();
  const filtered = query.tags.length > 0 || query.bands.length > 0;
  return (
    <main className="market">
      <h1>{query.term ? `Results for ${query.term}` : "Search results"}</h1>
      <Form method="get" action="/search" className="filters" aria-label="Filters">
        <input type="hidden" name="term" value={query.term} />
        <details className="filter">
          <summary>Category{query.tags.length > 0 ? ` (${query.tags.length})` : ""}</summary>
          <div className="filter-panel">
            {CATEGORY_TAGS.map((tag) => (
              <label key={tag.id} className="check">
                <input type="checkbox" name="tag" value={tag.id} defaultChecked={query.tags.includes(tag.id)} />
                {tag.label}
              </label>
            ))}
          </div>
        </details>
        <details className="filter">
          <summary>Authority{query.bands.length > 0 ? ` (${query.bands.length})` : ""}</summary>
          <div className="filter-panel">
            {AUTHORITY_BANDS.map((band) => (
              <label key={band.id} className="check">
                <input type="checkbox" name="band" value={band.id} defaultChecked={query.bands.includes(band.id)} />
                {band.label}
              </label>
            ))}
          </div>
        </details>
        <button type="submit" className="button button-primary button-small">
          Apply
        </button>
        {filtered ? (
          <Link to={`/search?${queryString({ ...query, tags: [], bands: [] })}`} className="button button-ghost button-small">
            Clear
          </Link>
        ) : null}
      </Form>
      <p className="count-line">{count}+ sites available</p>
      <div className="post-grid">
        {posts.map((post) => (
          <PostCard key={post.id} post={post} to={`/market?post=${post.id}`} />
        ))}
      </div>
      {next ? (
        <nav className="pager" aria-label="More results">
          <Link to={`/search?${queryString(query, { after: String(next) })}`}>More results</Link>
        </nav>
      ) : null}
    </main>
  );
}
