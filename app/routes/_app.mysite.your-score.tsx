import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import { z } from "zod";
import { ScoreBadge } from "~/components/score-badge";
import { ScoreChart } from "~/components/score-chart";
import { Spinner } from "~/components/spinner";
import {
  AUDIT_STALE_MS,
  AUDIT_STEP_LABELS,
  AUDIT_STEPS,
  OWNER_AUDIT_INTERVAL_MS,
  scoreBreakdown,
  storedAttributes,
  type AuditFacts,
} from "~/domain/audit";
import { formatRunDate, formatShortDate } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { scoreCards } from "~/domain/score-cards";
import { parseForm, readFormData } from "~/lib/forms.server";
import { requestOwnerAudit, scorePageStatements } from "~/services/audit.server";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { loadActiveSite } from "~/services/layout.server";
import { useTimeZone } from "~/components/use-time-zone";

export const meta: MetaFunction = () => [{ title: "Your Score - Backlink Market" }];

/** Points on the chart: the done runs of about the last year (weekly runs), oldest first. */
const CHART_RUNS = 60;
/** The latest runs, for one running now, the last failure and the owner's hourly turn. */
const RECENT_RUNS = 10;

export async function loader({ request, context }: LoaderFunctionArgs) {
  // Read in the session's round trip.
  const {
    auth,
    rows: [runs, done],
  } = await requireAuthWith(request, context, (viewer) => scorePageStatements(context.db, viewer, RECENT_RUNS, CHART_RUNS));
  const site = await loadActiveSite(context, auth);
  if (!site) throw redirect("/sites/new");
  const now = context.now();
  const isRunning = (run: (typeof runs)[number]) => run.status === "running" && run.startedAt > now - AUDIT_STALE_MS;
  const running = runs.find(isRunning) ?? null;
  const facts = (done[0]?.details ?? null) as AuditFacts | null;
  // The newest finished run, when it went wrong (a run whose Worker stopped counts as failed).
  const latestFinished = runs.find((run) => !isRunning(run));
  const lastFailure = latestFinished && latestFinished.status !== "done" ? latestFinished : null;
  const lastOwnerRun = runs.find((run) => run.reason === "owner");
  const nextOwnerRunAt =
    lastOwnerRun && lastOwnerRun.startedAt + OWNER_AUDIT_INTERVAL_MS > now ? lastOwnerRun.startedAt + OWNER_AUDIT_INTERVAL_MS : null;
  return {
    now,
    host: site.host,
    score: site.score,
    placeholderScore: site.placeholderScore,
    scoreRunAt: site.scoreRunAt,
    // Worked out here, so the cards' texts and the scoring rules stay out of the page's JavaScript.
    cards: scoreCards(storedAttributes(site), facts),
    breakdown: facts ? scoreBreakdown(facts) : null,
    running: running ? { step: running.step, startedAt: running.startedAt } : null,
    lastFailure: lastFailure ? { at: lastFailure.startedAt, error: lastFailure.error ?? messages.auditDidNotFinish } : null,
    nextOwnerRunAt,
    history: done.map((run) => ({ at: run.finishedAt ?? run.startedAt, score: run.score ?? 0 })).reverse(),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const site = await loadActiveSite(context, auth);
  if (!site) throw redirect("/sites/new");
  const parsed = parseForm(await readFormData(request), z.object({ intent: z.literal("audit") }));
  if (!parsed.ok) return data({ error: "Choose Run the audit." }, { status: 400 });
  const result = await requestOwnerAudit(context, site);
  if (!result.ok) return data({ error: result.message }, { status: result.status });
  // Post/redirect/get: the page shows the run's progress until it is done.
  throw redirect("/mysite/your-score");
}

function minutesUntil(at: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((at - now) / 60_000));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** While an audit runs: its step, refreshed every second and a half (with JavaScript) or by the page itself (without). */
function AuditProgress({ step }: { step: (typeof AUDIT_STEPS)[number] | null }) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (state !== "idle") return;
    const timer = setTimeout(revalidate, 1500);
    return () => clearTimeout(timer);
  }, [state, revalidate]);
  const index = step ? AUDIT_STEPS.indexOf(step) : 0;
  return (
    <div className="audit-progress" role="status" data-testid="audit-progress">
      {/* Without JavaScript the page reloads itself until the audit is done. */}
      <noscript>
        <meta httpEquiv="refresh" content="3" />
      </noscript>
      <Spinner label="Audit running" />
      <div>
        <p>
          <strong>Audit running.</strong> {AUDIT_STEP_LABELS[step ?? "home"]}
        </p>
        <progress max={AUDIT_STEPS.length} value={index + 1} aria-label="Audit progress" />
      </div>
    </div>
  );
}

/** What the last audit found; the audit itself fills these numbers (docs/decisions/0011-authority-score-audit.md). */
export default function YourScore() {
  const timeZone = useTimeZone();
  const { now, host, score, placeholderScore, scoreRunAt, cards, breakdown, running, lastFailure, nextOwnerRunAt, history } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const starting = navigation.state !== "idle" && navigation.formAction === "/mysite/your-score";
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

      <section className="card stack" aria-labelledby="audit-heading">
        <h3 id="audit-heading">The audit</h3>
        {score === null ? <p className="muted">Your site has not been audited yet: until then it shows an estimate of {placeholderScore}.</p> : null}
        {lastFailure ? (
          <p className="form-error" role="alert">
            The audit of {formatShortDate(lastFailure.at, now, timeZone)} could not be finished: {lastFailure.error}
          </p>
        ) : null}
        {actionData?.error ? (
          <p className="form-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
        {running ? (
          <AuditProgress step={running.step} />
        ) : nextOwnerRunAt ? (
          <p className="muted">You can run the audit again in {minutesUntil(nextOwnerRunAt, now)}.</p>
        ) : (
          <Form method="post" className="button-row">
            <button type="submit" name="intent" value="audit" className="button" disabled={starting} aria-busy={starting}>
              {starting ? <Spinner label="Starting the audit" /> : null}
              {score === null ? "Run the audit" : "Run the audit again"}
            </button>
            <span className="muted">Once an hour. The audit reads your home page, robots.txt and sitemap.</span>
          </Form>
        )}
      </section>

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

      {breakdown ? (
        <section className="card stack" aria-labelledby="sum-heading">
          <h3 id="sum-heading">How the score is worked out</h3>
          <p className="muted">
            Each part earns points up to its weight. The score is the points earned as a share of the weights of the parts that could be measured,
            rounded up.
          </p>
          <table className="score-sum">
            <thead>
              <tr>
                <th scope="col">Part</th>
                <th scope="col">Points</th>
              </tr>
            </thead>
            <tbody>
              {breakdown.rows.map((row) => (
                <tr key={row.part}>
                  <th scope="row">{row.label}</th>
                  <td>{row.points === null ? `not measured (of ${row.weight})` : `${row.points} of ${row.weight}`}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Score</th>
                <td>
                  {breakdown.earned} of {breakdown.possible} = {breakdown.score}
                </td>
              </tr>
            </tfoot>
          </table>
        </section>
      ) : null}
    </div>
  );
}
