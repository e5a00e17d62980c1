import { Link } from "@remix-run/react";
import { formatShortDate } from "~/domain/dates";
import { CATEGORY_TAGS, labelOf } from "~/domain/options";
import { PostCard, type PostCardData } from "./post-card";
import { useTimeZone } from "./use-time-zone";

/** The owner's numbers at a glance; the connects lead to their page. */
export function DashboardCounters({ counts, connects }: { counts: { received: number; pending: number; trades: number }; connects: number }) {
  return (
    <section className="counters" aria-label="Your numbers">
      <div className="counter">
        <strong>{counts.received}</strong>
        <span>Received Offers</span>
      </div>
      <Link to="/mysite/connects" className="counter">
        <strong>{connects}</strong>
        <span>Connects</span>
      </Link>
      <div className="counter">
        <strong>{counts.pending}</strong>
        <span>Pending Offers</span>
      </div>
      <div className="counter">
        <strong>{counts.trades}</strong>
        <span>Trades</span>
      </div>
    </section>
  );
}

/** A link a partner delivered that a later check found changed. */
export interface LinkProblem {
  offerId: string;
  delivererHost: string | null;
  /** What is wrong, said after "the link" (`linkProblemOf`, on the server). */
  problem: string;
  checkedAt: number | null;
}

/** The delivered links to look at, each leading to its trade; nothing when there are none. */
export function LinkProblems({ problems, now }: { problems: readonly LinkProblem[]; now: number }) {
  const timeZone = useTimeZone();
  if (problems.length === 0) return null;
  return (
    <section className="card banner-warning link-problems" aria-labelledby="link-problems-title">
      <h3 id="link-problems-title">Delivered links to look at</h3>
      <ul>
        {problems.map((problem) => (
          <li key={`${problem.offerId}:${problem.delivererHost}`}>
            <Link to={`/mysite/offers?offer=${problem.offerId}`}>
              {problem.delivererHost}: the link {problem.problem}
            </Link>
            {problem.checkedAt ? <span className="muted small"> · checked {formatShortDate(problem.checkedAt, now, timeZone)}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A section's site cards; with none to suggest (none match, or no one else trades yet) it says so instead of an empty grid. */
function SuggestedPosts({ posts }: { posts: readonly PostCardData[] }) {
  if (posts.length === 0) return <p className="muted">No sites to suggest right now.</p>;
  return (
    <div className="post-grid">
      {posts.map((post) => (
        <PostCard key={post.id} post={post} to={`/market?post=${post.id}`} />
      ))}
    </div>
  );
}

/**
 * Sites to trade with: those about the tag of the day (`tag`, one of the owner's), then something new. Each opens its
 * trade terms over the market.
 */
export function Suggestions({
  suggestions,
}: {
  suggestions: { tag: string | null; matched: readonly PostCardData[]; somethingNew: readonly PostCardData[] };
}) {
  return (
    <>
      <section aria-labelledby="suggested-title">
        <h3 id="suggested-title">{suggestions.tag ? `Try these sites about ${labelOf(CATEGORY_TAGS, suggestions.tag)}` : "Try these sites"}</h3>
        {!suggestions.tag ? (
          <p className="muted">
            Add tags in <Link to="/mysite/settings">settings</Link> to get sites that match your content.
          </p>
        ) : null}
        <SuggestedPosts posts={suggestions.matched} />
      </section>
      <section aria-labelledby="new-title">
        <h3 id="new-title">Try something new</h3>
        <SuggestedPosts posts={suggestions.somethingNew} />
      </section>
    </>
  );
}
