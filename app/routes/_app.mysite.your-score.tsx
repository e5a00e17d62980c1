import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { ScoreBadge } from "~/components/post-card";
import { formatRunDate } from "~/domain/dates";
import { scoreCards } from "~/domain/score-cards";
import type { MySiteData } from "./_app.mysite";

export const meta: MetaFunction = () => [{ title: "Your Score - Backlink Market" }];

export function loader({ context }: LoaderFunctionArgs) {
  return { now: context.now() };
}

/** What the last audit found; the audit itself fills these numbers (decision 11). */
export default function YourScore() {
  const { now } = useLoaderData<typeof loader>();
  const { site } = useRouteLoaderData("routes/_app.mysite") as MySiteData;
  return (
    <div className="your-score stack-lg">
      <div className="score-head card">
        <div>
          <p className="muted">Last run {formatRunDate(site.scoreRunAt, now)}</p>
          <h2>Your Score</h2>
          <p>Here is the information we were able to gather about {site.host}</p>
          <Link to="/market?feedback=true">Something not right?</Link>
        </div>
        {site.score === null ? <span className="score score-none score-large">N/A</span> : <ScoreBadge score={site.score} label="Authority" />}
      </div>
      <div className="score-cards">
        {scoreCards(site.attributes).map((card) => (
          <article key={card.id} className="card score-card" data-testid="score-card">
            <h3>{card.title}</h3>
            <p className="score-value">{card.value}</p>
            <p className="muted">{card.explanation}</p>
          </article>
        ))}
      </div>
    </div>
  );
}
