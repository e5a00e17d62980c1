import { Link, useLocation, useSearchParams } from "@remix-run/react";
import { addressWith } from "~/domain/page-address";
import { CONTENT_TYPES, labelOf, PROVIDED_MATERIALS, SITE_CATEGORIES } from "~/domain/options";
import type { PostCardData } from "./post-card";
import { ScoreBadge } from "./score-badge";
import { VerifyBanner } from "./verify-banner";
import { OpenChatForm } from "./open-chat-form";
import { ProposalForm, type ProposalError } from "./proposal-form";
import { SlideOut } from "./slide-out";
import { SiteIcon } from "./site-icon";
import { SiteRecord } from "./site-record";
import { useSignedInShell } from "./use-signed-in-shell";

export interface TradePanelPost extends PostCardData {
  contentTypes: string[];
  materials: string[];
}

function Chips({ ids, options, empty }: { ids: string[]; options: readonly { id: string; label: string }[]; empty: string }) {
  if (ids.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="chip-list">
      {ids.map((id) => (
        <li key={id} className="chip chip-static">
          {labelOf(options, id)}
        </li>
      ))}
    </ul>
  );
}

/**
 * In place of the panel, when the post in the address is not (or no longer) in the market: over the list, where the
 * toasts show (the list may be scrolled far from its end, where this comes in the page).
 */
function PostGone({ closeTo }: { closeTo: string }) {
  return (
    <p className="post-gone" role="alert">
      This post is no longer available. <Link to={closeTo}>Close</Link>
    </p>
  );
}

/** The trade terms of a post, in the right-hand slide-out. The proposal posts to `proposeTo`, closing to `closeTo`. */
export function TradePanel({
  post,
  closeTo,
  proposeTo,
  siteVerified,
  connects,
  failure,
}: {
  post: TradePanelPost;
  closeTo: string;
  proposeTo: string;
  siteVerified: boolean;
  connects: number;
  failure?: ProposalError | null;
}) {
  return (
    <SlideOut titleId="trade-title" closeTo={closeTo}>
      <header className="panel-head">
        <SiteIcon icon={post.icon} size={48} />
        <div>
          <h2 id="trade-title">{post.address}</h2>
          <p className="post-category">{labelOf(SITE_CATEGORIES, post.category)}</p>
        </div>
        <ScoreBadge score={post.score} />
      </header>
      <p className="user-text">{post.description || "No description"}</p>
      {!siteVerified ? <VerifyBanner /> : null}
      <section className="terms">
        <h3>Trade terms</h3>
        <dl>
          <dt>Price</dt>
          <dd>
            <strong>{post.connects} connects</strong> to send a proposal
          </dd>
          <dt>Willing to provide</dt>
          <dd>
            <Chips ids={post.contentTypes} options={CONTENT_TYPES} empty="Any content type" />
          </dd>
          <dt>They can provide</dt>
          <dd>
            <Chips ids={post.materials.length > 0 ? post.materials : ["logo"]} options={PROVIDED_MATERIALS} empty="" />
          </dd>
        </dl>
      </section>
      {post.record ? <SiteRecord counts={post.record} headingId="trade-record-title" /> : null}
      <ProposalForm action={proposeTo} listingId={post.id} connects={post.connects} theirMaterials={post.materials} failure={failure} />
      <p className="balance-line">
        You have <strong>{connects}</strong> connects. <Link to="/mysite/connects">Buy connects</Link>
      </p>
      <section className="terms" aria-labelledby="trade-chat-title">
        <h3 id="trade-chat-title">Questions first?</h3>
        <p className="muted small">Agree on topics, anchors and deadlines with the owner before you send an offer.</p>
        <OpenChatForm listingId={post.id} label={`Message ${post.address}`} />
      </section>
    </SlideOut>
  );
}

/**
 * The post a list page's address names (`post=ID`): its trade terms over the list, or a notice that it is gone. The post
 * is one of the page's `posts`, or `loaded` (read on its own when the address names a post beyond this page). The
 * proposal posts to the same address; closing drops `post` and keeps the rest (order, page, search).
 */
export function AddressedPost({
  posts,
  loaded,
  failure,
}: {
  posts: readonly TradePanelPost[];
  loaded: TradePanelPost | null;
  failure?: ProposalError | null;
}) {
  const shell = useSignedInShell();
  const [searchParams] = useSearchParams();
  const { pathname } = useLocation();
  const postId = searchParams.get("post");
  if (!postId) return null;
  const post = posts.find((candidate) => candidate.id === postId) ?? (loaded?.id === postId ? loaded : null);
  const closeTo = addressWith(pathname, searchParams, "post", null);
  if (!post) return <PostGone closeTo={closeTo} />;
  return (
    <TradePanel
      key={post.id}
      post={post}
      closeTo={closeTo}
      proposeTo={addressWith(pathname, searchParams, "post", post.id)}
      siteVerified={shell?.activeSite?.verified ?? false}
      connects={shell?.user.connects ?? 0}
      failure={failure}
    />
  );
}
