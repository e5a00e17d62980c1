import { iconSource, previewDescription, shortenAddress } from "~/domain/listing-format";
import { labelOf, SITE_CATEGORIES } from "~/domain/options";
import { scoreColour } from "~/domain/score";

export interface PostCardData {
  id: string;
  url: string;
  description: string;
  category: string;
  icon: string | null;
  score: number;
  connects: number;
}

export function PostCard({ post }: { post: PostCardData }) {
  return (
    <article className="post-card" data-testid="post-card">
      <header>
        <img src={iconSource(post.icon)} alt="" width="40" height="40" loading="lazy" />
        <span className={`score score-${scoreColour(post.score)}`} aria-label={`Authority score ${post.score}`}>
          {Math.ceil(post.score)}
        </span>
      </header>
      <p className="post-category">{labelOf(SITE_CATEGORIES, post.category)}</p>
      <p className="post-url">{shortenAddress(post.url)}</p>
      <p className="post-description">{previewDescription(post.description)}</p>
      <span className="button button-outline button-block">Trade for {post.connects} connects</span>
    </article>
  );
}
