import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { AuditControls } from "~/components/audit-controls";
import { ScoreBadge } from "~/components/score-badge";
import { ScoreBreakdownTable } from "~/components/score-breakdown";
import { ScoreChart } from "~/components/score-chart";
import { useTimeZone } from "~/components/use-time-zone";
import { formatRunDate } from "~/domain/dates";
import { loadScorePage, startOwnerAudit } from "./_app.mysite.your-score.server";

export const meta: MetaFunction = () => [{ title: "Your Score - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadScorePage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => startOwnerAudit(request, context);

/** What the last audit found; the audit itself fills these numbers (docs/decisions/0011-authority-score-audit.md). */
export default function YourScore() {
  const timeZone = useTimeZone();
  const { now, siteId, host, score, placeholderScore, scoreRunAt, cards, breakdown, running, lastFailure, nextOwnerRunAt, history } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <div className="your-score stack-lg">
      <div className="score-head card">
        <div>
          <p className="muted">Last run {formatRunDate(scoreRunAt, now, timeZone)}</p>
          <h2>Your Score</h2>
          <p>Here is the information we were able to gather about {host}</p>
          <Link to="/market?feedback=true">Something not right?</Link>
        </div>
        <ScoreBadge score={score ?? placeholderScore ?? 0} label="Authority" />
      </div>

      <AuditControls
        siteId={siteId}
        now={now}
        audited={score !== null}
        placeholderScore={placeholderScore}
        running={running}
        lastFailure={lastFailure}
        nextOwnerRunAt={nextOwnerRunAt}
        error={actionData?.error}
      />

      <div className="score-cards">
        {cards.map((card) => (
          <article key={card.id} className="card score-card" data-testid="score-card">
            <h3>{card.title}</h3>
            <p className="score-value">{card.value}</p>
            {card.found ? <p className="score-found">{card.found}</p> : null}
            {card.raise ? <p className="score-raise">To raise it: {card.raise}</p> : null}
            <p className="muted">{card.explanation}</p>
          </article>
        ))}
      </div>

      <section className="card stack" aria-labelledby="history-heading">
        <h3 id="history-heading">Your score over time</h3>
        <ScoreChart points={history} now={now} />
      </section>

      {breakdown ? <ScoreBreakdownTable breakdown={breakdown} /> : null}
    </div>
  );
}
