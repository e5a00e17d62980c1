import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useActionData, useLoaderData, useLocation, useSearchParams, type ShouldRevalidateFunction } from "@remix-run/react";
import { FeedbackDialog } from "~/components/feedback-dialog";
import { feedbackOpen, inertWhen, panelShown, useReportPanel } from "~/components/inert";
import { PostCard } from "~/components/post-card";
import { AddressedPost } from "~/components/trade-panel";
import { ActiveSiteVerifyBanner, NO_MORE_POSTS } from "~/components/post-list-notes";
import { useAppendedPages } from "~/components/use-appended-pages";
import { messages } from "~/domain/messages";
import { addressOf, addressWith, listReloads, paramsNamed } from "~/domain/page-address";
import type { MarketSort } from "~/services/market.server";
import { proposalFormAction } from "~/services/proposal-form.server";
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

export default function Market() {
  const data = useLoaderData<typeof loader>();
  const failure = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const location = useLocation();
  const { posts, nextAddress, loading, loadMore, startOver } = useAppendedPages(`${data.sort} ${data.after ?? ""}`, data, (after) =>
    listAddress(data.sort, after),
  );

  // The trade terms of a post on a page appended in place (with JavaScript), which the layout cannot tell from the data.
  const panel = panelShown(searchParams, { posts, selected: data.selected });
  useReportPanel(panel);
  const feedback = feedbackOpen(searchParams);
  // The order shown: its link is this page only on the first page (a later page's link goes back to the first).
  const current = data.after === null ? "page" : "true";
  return (
    <main className="market" id="main">
      {/* Behind a dialog or a post's trade terms, the list is out of reach (without JavaScript too). */}
      <div {...inertWhen(feedback || panel)}>
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
          <Link to={listAddress("newest")} aria-current={data.sort === "newest" ? current : undefined} onClick={startOver}>
            Newest
          </Link>
          <Link to={listAddress("record")} aria-current={data.sort === "record" ? current : undefined} onClick={startOver}>
            Best record
          </Link>
        </nav>
        <ActiveSiteVerifyBanner />
        {posts.length === 0 ? <p className="empty">{data.after !== null ? NO_MORE_POSTS : messages.noPosts}</p> : null}
        <div className="post-grid">
          {posts.map((post) => (
            <PostCard key={post.id} post={post} to={addressWith("/market", searchParams, "post", post.id)} />
          ))}
        </div>
        {data.after !== null || nextAddress ? (
          <nav className="pager" aria-label="More posts">
            {data.after !== null ? <Link to={listAddress(data.sort)}>{data.sort === "record" ? "Best records" : "Newest posts"}</Link> : null}
            {nextAddress ? (
              <Link to={nextAddress} onClick={loadMore} aria-busy={loading}>
                {loading ? "Loading…" : "More posts"}
              </Link>
            ) : null}
          </nav>
        ) : null}
      </div>
      <AddressedPost posts={posts} loaded={data.selected} failure={failure} />
      {feedback ? <FeedbackDialog closeTo={addressWith("/market", searchParams, "feedback", null)} key={location.key} /> : null}
    </main>
  );
}
