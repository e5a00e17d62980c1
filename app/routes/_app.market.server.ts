/** The market's server work: a page of posts, newest first or by record, and the post whose trade terms are open. */
import { parseCursor, parseRecordCursor } from "~/domain/cursor";
import { postForDisplay } from "~/domain/listing-format";
import type { AppContext } from "~/lib/context";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { listMarketByRecord, marketPageOf, marketPageStatements, marketPostStatements, parseMarketSort } from "~/services/market.server";

export async function loadMarketPage(request: Request, context: AppContext) {
  const params = new URL(request.url).searchParams;
  const sort = parseMarketSort(params.get("sort"));
  // Each order has its own cursor (app/domain/cursor.ts); another order's is the first page.
  const recordAfter = sort === "record" ? parseRecordCursor(params.get("after")) : null;
  const newestAfter = sort === "newest" ? parseCursor(params.get("after")) : null;
  const postId = params.get("post");
  // Newest first, the page and the open post are read in the session's round trip.
  const [page, selected] = await Promise.all([
    sort === "record"
      ? requireAuth(request, context).then((auth) => listMarketByRecord(context.db, auth.user.id, recordAfter))
      : requireAuthWith(request, context, (viewer) => marketPageStatements(context.db, viewer, newestAfter)).then(({ rows: [rows] }) =>
          marketPageOf(rows),
        ),
    postId && postId.length <= 64
      ? requireAuthWith(request, context, (viewer) => marketPostStatements(context.db, viewer, postId)).then(({ rows: [[post]] }) => post)
      : undefined,
  ]);
  return {
    posts: page.posts.map(postForDisplay),
    next: page.next,
    sort,
    /** The page's own position (null for the first page): a page appended with "More posts" is kept by it. */
    after: recordAfter || newestAfter ? params.get("after") : null,
    selected: selected ? postForDisplay(selected) : null,
  };
}
