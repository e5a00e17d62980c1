/** The Your Score page's server work: the active site's score, cards, audit runs and chart, and starting an audit. */
import { data, redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { AUDIT_STALE_MS, OWNER_AUDIT_INTERVAL_MS, scoreBreakdown, storedAttributes, type AuditFacts } from "~/domain/audit";
import { messages } from "~/domain/messages";
import { scoreCards } from "~/domain/score-cards";
import type { AppContext } from "~/lib/context";
import { parseForm, readFormData } from "~/lib/forms.server";
import { requestOwnerAudit, scorePageStatements } from "~/services/audit.server";
import { requireAuth, requireAuthWith } from "~/services/auth.server";
import { loadActiveSite, loadSiteOfForm } from "~/services/layout.server";

/** Points on the chart: the done runs of about the last year (weekly runs), oldest first. */
const CHART_RUNS = 60;
/** The latest runs, for one running now, the last failure and the owner's hourly turn. */
const RECENT_RUNS = 10;

export async function loadScorePage(request: Request, context: AppContext) {
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
    siteId: site.id,
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

/** "Run the audit" on the active site, at most once an hour; then the page shows the run's progress until it is done. */
export async function startOwnerAudit(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  // The site the page showed, even if another tab has switched the active site since.
  const site = await loadSiteOfForm(context, auth, formData);
  if (!site) throw redirect("/sites/new");
  const parsed = parseForm(formData, z.object({ intent: z.literal("audit") }));
  if (!parsed.ok) return data({ error: "Choose Run the audit." }, { status: 400 });
  const result = await requestOwnerAudit(context, site);
  if (!result.ok) return data({ error: result.message }, { status: result.status });
  // Post/redirect/get: the page shows the run's progress until it is done.
  throw redirect("/mysite/your-score");
}
