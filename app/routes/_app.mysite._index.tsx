import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData, useLocation, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { FeedbackDialog } from "~/components/feedback-dialog";
import { OfferListPager, OfferRows } from "~/components/offer-rows";
import { PostCard } from "~/components/post-card";
import { SiteRecord } from "~/components/site-record";
import { VerifyBanner } from "~/components/verify-banner";
import { formatShortDate } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { listWith, offersPageHref, type ListParam } from "~/domain/offer-links";
import { labelOf, CATEGORY_TAGS } from "~/domain/options";
import { displayScore } from "~/domain/score";
import { requireAuthWith } from "~/services/auth.server";
import { dashboardOf, dashboardStatements } from "~/services/dashboard.server";
import { loadActiveSite, loadSignedInShell } from "~/services/layout.server";
import type { MySiteData } from "./_app.mysite";
import { recordOfSite } from "~/services/reputation.server";
import { useTimeZone } from "~/components/use-time-zone";
import { timeZoneOf } from "~/lib/time-zone.server";

export const meta: MetaFunction = () => [{ title: "My site - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const now = context.now();
  const timeZone = timeZoneOf(request);
  // Read in the session's round trip.
  const { auth, rows } = await requireAuthWith(request, context, (viewer) => dashboardStatements(context.db, viewer, now, timeZone));
  const [site, shell] = await Promise.all([loadActiveSite(context, auth), loadSignedInShell(context, auth)]);
  if (!site) return null;
  const { suggestions, ...dashboard } = dashboardOf(site, now, timeZone, rows);
  const card = (s: (typeof suggestions.matched)[number]) => ({
    id: s.listingId,
    url: s.url,
    description: s.description,
    category: s.category,
    icon: s.icon,
    score: displayScore(s.score),
    connects: s.connects,
  });
  return {
    now,
    connects: shell.user.connects,
    email: shell.user.email,
    emailVerified: shell.user.emailVerified,
    ...dashboard,
    // The site's own record, as other owners see it on its cards, panel and profile.
    record: recordOfSite(site),
    suggestions: { tag: suggestions.tag, matched: suggestions.matched.map(card), somethingNew: suggestions.somethingNew.map(card) },
  };
}

/** The dashboard shows the first page of each list; the next one is on the Offers page. */
const nextPageOf = (param: ListParam, next: string | null) => (next ? offersPageHref(listWith("", param, next)) : null);

const LINK_PROBLEMS: Record<string, string> = {
  lost: "the link is gone",
  moved: "the link points to another site now",
  nofollow: "the link is nofollow now",
  hidden: "the link is hidden now",
};

export default function Dashboard() {
  const timeZone = useTimeZone();
  const data = useLoaderData<typeof loader>();
  const { site } = useRouteLoaderData("routes/_app.mysite") as MySiteData;
  const [searchParams] = useSearchParams();
  const location = useLocation();
  if (!data) return null;
  const { counts, suggestions } = data;
  return (
    <div className="dashboard stack-lg">
      <h2 className="greeting">Happy trading with {site.host}</h2>
      {!site.verified ? <VerifyBanner /> : null}
      {!data.emailVerified ? (
        <div className="banner-warning" role="note">
          <span>
            {messages.confirmEmailBanner} {data.email}.
          </span>
          <Form method="post" action="/confirm-email">
            <button type="submit" name="intent" value="resend" className="button button-small button-outline">
              Send it again
            </button>
          </Form>
        </div>
      ) : null}
      <section className="counters" aria-label="Your numbers">
        <div className="counter">
          <strong>{counts.received}</strong>
          <span>Received Offers</span>
        </div>
        <Link to="/mysite/connects" className="counter">
          <strong>{data.connects}</strong>
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
      {data.linkProblems.length > 0 ? (
        <section className="card banner-warning link-problems" aria-labelledby="link-problems-title">
          <h3 id="link-problems-title">Delivered links to look at</h3>
          <ul>
            {data.linkProblems.map((problem) => (
              <li key={`${problem.offerId}:${problem.delivererHost}`}>
                <Link to={`/mysite/offers?offer=${problem.offerId}`}>
                  {problem.delivererHost}: {LINK_PROBLEMS[problem.status ?? "lost"] ?? problem.status}
                </Link>
                {problem.checkedAt ? <span className="muted small"> · checked {formatShortDate(problem.checkedAt, data.now, timeZone)}</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <div className="two-columns">
        <section className="card">
          <h3>Trades</h3>
          <OfferRows rows={data.trades.rows} empty={messages.noTrades} now={data.now} />
          <OfferListPager label="More trades" firstTo={null} nextTo={nextPageOf("tradesAfter", data.trades.next)} nextLabel="More trades" />
        </section>
        <section className="card">
          <h3>Offers</h3>
          <OfferRows rows={data.offers.rows} empty={messages.noOffers} now={data.now} />
          <OfferListPager label="More offers" firstTo={null} nextTo={nextPageOf("offersAfter", data.offers.next)} nextLabel="More offers" />
        </section>
      </div>
      <div className="card">
        <SiteRecord counts={data.record} headingId="own-record-title" title="Your record, as other sites see it" />
      </div>
      <section className="card feedback-card">
        <div>
          <h3>How are we doing?</h3>
          <p className="muted">Tell us what works and what does not; we read every message.</p>
        </div>
        <Link to="/mysite?feedback=true" className="button button-outline" preventScrollReset>
          Give feedback
        </Link>
      </section>
      <section aria-labelledby="suggested-title">
        <h3 id="suggested-title">{suggestions.tag ? `Try these sites about ${labelOf(CATEGORY_TAGS, suggestions.tag)}` : "Try these sites"}</h3>
        {!suggestions.tag ? (
          <p className="muted">
            Add tags in <Link to="/mysite/settings">settings</Link> to get sites that match your content.
          </p>
        ) : null}
        <div className="post-grid">
          {suggestions.matched.map((post) => (
            <PostCard key={post.id} post={post} to={`/market?post=${post.id}`} />
          ))}
        </div>
      </section>
      <section aria-labelledby="new-title">
        <h3 id="new-title">Try something new</h3>
        <div className="post-grid">
          {suggestions.somethingNew.map((post) => (
            <PostCard key={post.id} post={post} to={`/market?post=${post.id}`} />
          ))}
        </div>
      </section>
      {searchParams.get("feedback") !== null ? <FeedbackDialog closeTo="/mysite" key={location.key} /> : null}
    </div>
  );
}
