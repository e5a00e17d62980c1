import { Link } from "@remix-run/react";
import { previewDescription } from "~/domain/listing-format";
import { labelOf, SITE_CATEGORIES } from "~/domain/options";
import type { ReputationCounts } from "~/domain/reputation";
import { ScoreBadge } from "./score-badge";
import { RecordSummary } from "./site-record";
import { SiteIcon } from "./site-icon";

export interface PostCardData {
  id: string;
  /** The site's address as cards show it, short (made on the server: app/domain/listing-format.ts). */
  address: string;
  description: string;
  category: string;
  icon: string | null;
  /** Already resolved for display (a missing score is replaced on the server). */
  score: number;
  connects: number;
  /** The site's record, shown on the card when given (market and search). */
  record?: ReputationCounts;
}

/** A post in the market or the search results; it opens the trade terms panel at `to` (the list's address with `post=ID`). */
export function PostCard({ post, to }: { post: PostCardData; to: string }) {
  return (
    <Link to={to} className="post-card" data-testid="post-card" preventScrollReset>
      <header>
        <SiteIcon icon={post.icon} size={40} lazy />
        <ScoreBadge score={post.score} />
      </header>
      <p className="post-category">{labelOf(SITE_CATEGORIES, post.category)}</p>
      <p className="post-url">{post.address}</p>
      <p className="post-description user-text">{previewDescription(post.description)}</p>
      {post.record ? <RecordSummary counts={post.record} /> : null}
      <span className="button button-outline button-block">Trade for {post.connects} connects</span>
    </Link>
  );
}
