import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import {
  Link,
  useActionData,
  useFetcher,
  useLoaderData,
  useLocation,
  useRouteLoaderData,
  useSearchParams,
  type ShouldRevalidateFunction,
} from "@remix-run/react";
import { useEffect, useRef, useState, type MouseEvent } from "react";
import { FeedbackDialog } from "~/components/feedback-dialog";
import { PostCard } from "~/components/post-card";
import { PostGone, TradePanel } from "~/components/trade-panel";
import { useHydrated } from "~/components/use-hydrated";
import { messages } from "~/domain/messages";
import { addressOf, addressWith, listReloads, paramsNamed } from "~/domain/page-address";
import type { MarketSort } from "~/services/market.server";
import { proposalFormAction } from "~/services/proposal-form.server";
import type { loader as appLoader } from "./_app";
import { loadMarketPage } from "./_app.market.server";

export const meta: MetaFunction = () => [{ title: "Market - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadMarketPage(request, context);

/** Where the user is in the market's list: its order and page. */
const LIST_PARAMS = ["sort", "after"];

/** Sends a proposal from the trade terms panel; works as a plain form post. A refused one comes back with its choices. */
export async function action({ request, context }: ActionFunctionArgs) {
  return proposalFormAction(request, context, addressOf("/market", paramsNamed(new URL(request.url).searchParams, LIST_PARAMS)));
}

// Opening or closing a panel or dialog needs no new data: the post is already on the page.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }) =>
  formMethod ? defaultShouldRevalidate : listReloads(currentUrl, nextUrl, LIST_PARAMS);

/** The market's list in `sort` order: its first page, or the page after the position `after`. */
function listAddress(sort: MarketSort, after: string | null = null): string {
  const params = new URLSearchParams();
  if (sort === "record") params.set("sort", "record");
  if (after) params.set("after", after);
  return addressOf("/market", params);
}

type Post = ReturnType<typeof useLoaderData<typeof loader>>["posts"][number];

/** A page loaded with "More posts": its position, its posts and the next page's position. */
interface AppendedPage {
  after: string;
  posts: Post[];
  next: string | null;
}

/** The pages' posts in order, each once (a post that moved to a later page since is shown where it came first). */
function withoutRepeats(pages: Post[][]): Post[] {
  const seen = new Set<string>();
  return pages.flat().filter((post) => {
    if (seen.has(post.id)) return false;
    seen.add(post.id);
    return true;
  });
}

export default function Market() {
  const data = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const shell = useRouteLoaderData<typeof appLoader>("routes/_app");
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const hydrated = useHydrated();
  const more = useFetcher<typeof loader>();
  // With JavaScript, further pages are appended in place ("More posts"); without it the link opens the next page.
  // The appended pages belong to the list they continue (its order and page): they are dropped when that changes,
  // and kept when the page's data is loaded again after an action (the fetcher then loads its last page again,
  // which replaces that page).
  const list = `${data.sort} ${data.after ?? ""}`;
  const [appended, setAppended] = useState<{ list: string; pages: AppendedPage[] }>({ list, pages: [] });
  if (appended.list !== list) setAppended({ list, pages: [] });
  const loadingFor = useRef(list);
  useEffect(() => {
    const page = more.data;
    if (!page?.after) return;
    const after = page.after;
    setAppended((current) => {
      if (current.list !== loadingFor.current) return current;
      const kept = current.pages.filter((shown) => shown.after !== after);
      return { list: current.list, pages: [...kept, { after, posts: page.posts, next: page.next }] };
    });
  }, [more.data]);
  const posts = withoutRepeats([data.posts, ...appended.pages.map((page) => page.posts)]);
  const lastAppended = appended.pages.at(-1);
  const next = lastAppended ? lastAppended.next : data.next;

  const loadMore = (event: MouseEvent) => {
    if (!hydrated || !next) return;
    event.preventDefault();
    loadingFor.current = list;
    more.load(nextPage);
  };

  // Choosing the order the list is already in starts it again from its first page, as it does without JavaScript.
  const startOver = () => {
    loadingFor.current = "";
    setAppended({ list, pages: [] });
  };

  const nextPage = listAddress(data.sort, next);
  const postId = searchParams.get("post");
  const selected = postId ? posts.find((post) => post.id === postId) ?? (data.selected?.id === postId ? data.selected : null) : null;
  const closeTo = addressWith("/market", searchParams, "post", null);

  return (
    <main className="market">
      <div className="section-head">
        <h1>Market</h1>
        <div className="head-actions">
          <Link to={addressWith("/market", searchParams, "feedback", "true")} className="button button-ghost button-small" preventScrollReset>
            Feedback
          </Link>
          <Link to="/add-site?source=market" className="button button-outline button-small">
            List a site
          </Link>
        </div>
      </div>
      <nav className="sort-links" aria-label="Sort posts">
        <span className="muted">Sort:</span>
        <Link to={listAddress("newest")} aria-current={data.sort === "newest" ? "page" : undefined} onClick={startOver}>
          Newest
        </Link>
        <Link to={listAddress("record")} aria-current={data.sort === "record" ? "page" : undefined} onClick={startOver}>
          Best record
        </Link>
      </nav>
      {posts.length === 0 ? <p className="empty">{messages.noPosts}</p> : null}
      <div className="post-grid">
        {posts.map((post) => (
          <PostCard key={post.id} post={post} to={addressWith("/market", searchParams, "post", post.id)} />
        ))}
      </div>
      <nav className="pager" aria-label="More posts">
        {data.after !== null ? <Link to={listAddress(data.sort)}>{data.sort === "record" ? "Best records" : "Newest posts"}</Link> : null}
        {next ? (
          <Link to={nextPage} onClick={loadMore} aria-busy={more.state === "loading"}>
            {more.state === "loading" ? "Loading…" : "More posts"}
          </Link>
        ) : null}
      </nav>
      {postId && !selected ? <PostGone closeTo={closeTo} /> : null}
      {selected ? (
        <TradePanel
          key={selected.id}
          post={selected}
          closeTo={closeTo}
          proposeTo={addressWith("/market", searchParams, "post", selected.id)}
          siteVerified={shell?.activeSite?.verified ?? false}
          connects={shell?.user.connects ?? 0}
          failure={failure}
        />
      ) : null}
      {searchParams.get("feedback") !== null ? (
        <FeedbackDialog closeTo={addressWith("/market", searchParams, "feedback", null)} key={location.key} />
      ) : null}
    </main>
  );
}
