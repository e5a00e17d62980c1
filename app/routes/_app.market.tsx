import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData } from "@remix-run/react";
import { PostCard } from "~/components/post-card";
import { requireAuth } from "~/services/auth.server";
import { listMarket, parseCursor } from "~/services/market.server";

export const meta: MetaFunction = () => [{ title: "Market - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const cursor = parseCursor(new URL(request.url).searchParams.get("after"));
  const page = await listMarket(context.db, auth.user.id, cursor);
  return {
    // A missing score shows a random 40 to 99 (spec 9), decided on the server so the page hydrates the same.
    posts: page.listings.map((post) => ({ ...post, score: post.score ?? 40 + Math.floor(Math.random() * 60) })),
    next: page.next,
    isFirstPage: !cursor,
  };
}

export default function Market() {
  const { posts, next, isFirstPage } = useLoaderData<typeof loader>();
  return (
    <main className="market">
      <div className="section-head">
        <h1>Market</h1>
      </div>
      {posts.length === 0 ? <p className="empty">No posts yet. Check back soon.</p> : null}
      <div className="post-grid">
        {posts.map((post) => (
          <PostCard key={post.id} post={post} />
        ))}
      </div>
      <nav className="pager" aria-label="Pages">
        {!isFirstPage ? <Link to="/market">Newest</Link> : null}
        {next ? <Link to={`/market?after=${next}`}>More posts →</Link> : null}
      </nav>
    </main>
  );
}
