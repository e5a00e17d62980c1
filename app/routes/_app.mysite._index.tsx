import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useLoaderData, useLocation, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { DashboardCounters, LinkProblems, Suggestions } from "~/components/dashboard-sections";
import { FeedbackDialog } from "~/components/feedback-dialog";
import { feedbackOpen, inertWhen } from "~/components/inert";
import { OfferListPager, OfferRows } from "~/components/offer-rows";
import { SiteRecord } from "~/components/site-record";
import { VerifyBanner } from "~/components/verify-banner";
import { messages } from "~/domain/messages";
import { listWith, offersPageHref, type ListParam } from "~/domain/offer-links";
import type { MySiteData } from "./_app.mysite";
import { loadDashboard } from "./_app.mysite._index.server";

export const meta: MetaFunction = () => [{ title: "My site - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadDashboard(request, context);

/** The dashboard shows the first page of each list; the next one is on the Offers page. */
const nextPageOf = (param: ListParam, next: string | null) => (next ? offersPageHref(listWith("", param, next)) : null);

export default function Dashboard() {
  const data = useLoaderData<typeof loader>();
  const { site } = useRouteLoaderData("routes/_app.mysite") as MySiteData;
  const [searchParams] = useSearchParams();
  const location = useLocation();
  if (!data) return null;
  const { counts, suggestions } = data;
  return (
    <>
      <div className="dashboard stack-lg" {...inertWhen(feedbackOpen(searchParams))}>
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
        <DashboardCounters counts={counts} connects={data.connects} />
        <LinkProblems problems={data.linkProblems} now={data.now} />
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
        <Suggestions suggestions={suggestions} />
      </div>
      {feedbackOpen(searchParams) ? <FeedbackDialog closeTo="/mysite" key={location.key} /> : null}
    </>
  );
}
