import { Form, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { AUDIT_STEP_LABELS, AUDIT_STEPS } from "~/domain/audit";
import { formatShortDate } from "~/domain/dates";
import { Spinner } from "./spinner";
import { useTimeZone } from "./use-time-zone";
import { usePostAddress } from "./use-post-address";

type AuditStep = (typeof AUDIT_STEPS)[number];

function minutesUntil(at: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((at - now) / 60_000));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/** While an audit runs: its step, refreshed every second and a half (with JavaScript) or by the page itself (without). */
function AuditProgress({ step }: { step: AuditStep | null }) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (state !== "idle") return;
    const timer = setTimeout(revalidate, 1500);
    return () => clearTimeout(timer);
  }, [state, revalidate]);
  const index = step ? AUDIT_STEPS.indexOf(step) : 0;
  return (
    <div className="audit-progress" data-testid="audit-progress">
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

/**
 * The audit of the owner's site: whether it has been audited, how the last run failed, the run in progress, or the
 * button that starts one (once an hour; `nextOwnerRunAt` is when the owner may again). `error` is the server's answer.
 */
export function AuditControls({
  siteId,
  now,
  audited,
  placeholderScore,
  running,
  lastFailure,
  nextOwnerRunAt,
  error,
}: {
  /** The site the page shows: the audit runs on it even if another tab switches the active site meanwhile. */
  siteId: string;
  now: number;
  audited: boolean;
  placeholderScore: number | null;
  running: { step: AuditStep | null } | null;
  lastFailure: { at: number; error: string } | null;
  nextOwnerRunAt: number | null;
  error: string | undefined;
}) {
  const timeZone = useTimeZone();
  const navigation = useNavigation();
  const postTo = usePostAddress();
  const starting = navigation.state !== "idle" && navigation.formAction?.startsWith("/mysite/your-score") === true;
  // Said to screen readers from a region that is always there (one added with its text is often not read): each step
  // while the audit runs, then that it finished, once one was started or seen running (a failed run, or a start the
  // server refused, is the alert above instead).
  const [watched, setWatched] = useState(false);
  useEffect(() => {
    if (running || starting) setWatched(true);
  }, [running, starting]);
  const said = running ? `Audit running. ${AUDIT_STEP_LABELS[running.step ?? "home"]}` : watched && !lastFailure && !error ? "Audit finished." : "";
  return (
    <section className="card stack" aria-labelledby="audit-heading">
      <h3 id="audit-heading">The audit</h3>
      <p className="visually-hidden" role="status">
        {said}
      </p>
      {!audited ? <p className="muted">Your site has not been audited yet: until then it shows an estimate of {placeholderScore}.</p> : null}
      {lastFailure ? (
        <p className="form-error" role="alert">
          The audit of {formatShortDate(lastFailure.at, now, timeZone)} could not be finished: {lastFailure.error}
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {running ? (
        <AuditProgress step={running.step} />
      ) : nextOwnerRunAt ? (
        <p className="muted">You can run the audit again in {minutesUntil(nextOwnerRunAt, now)}.</p>
      ) : (
        <Form method="post" action={postTo} className="button-row">
          <input type="hidden" name="siteId" value={siteId} />
          <button type="submit" name="intent" value="audit" className="button" disabled={starting} aria-busy={starting}>
            {starting ? <Spinner label="Starting the audit" /> : null}
            {audited ? "Run the audit again" : "Run the audit"}
          </button>
          <span className="muted">Once an hour. The audit reads your home page, robots.txt and sitemap.</span>
        </Form>
      )}
    </section>
  );
}
