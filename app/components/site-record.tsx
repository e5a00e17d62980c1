import { RECORD_EXPLANATION, recordLines, recordSummary, reputationOf, type ReputationCounts } from "~/domain/reputation";

/** A site's record in full, for its profile and the market panel, with what it means; a poor record says why. */
export function SiteRecord({ counts, headingId, title = "Record" }: { counts: ReputationCounts; headingId: string; title?: string }) {
  const rep = reputationOf(counts);
  return (
    <section className="terms site-record" aria-labelledby={headingId}>
      <h3 id={headingId}>{title}</h3>
      {rep.poorReasons.length ? (
        <p className="record-poor" role="note">
          <strong>Poor record:</strong> {rep.poorReasons.join("; ")}.
        </p>
      ) : null}
      <dl className="terms-list">
        {recordLines(rep).map((line) => (
          <div key={line.label} className="record-line">
            <dt>{line.label}</dt>
            <dd>{line.value}</dd>
          </div>
        ))}
      </dl>
      <details className="record-explanation">
        <summary>How is this measured?</summary>
        <p className="muted small">{RECORD_EXPLANATION}</p>
      </details>
    </section>
  );
}

/**
 * The record on one line, for a card; a poor record is marked in red. How it is measured is said once, in the post's
 * panel, not in a tooltip on every card (a tooltip no touch screen or keyboard reaches, and 430 bytes per card).
 */
export function RecordSummary({ counts }: { counts: ReputationCounts }) {
  const rep = reputationOf(counts);
  return (
    <p className={`record-summary${rep.poorReasons.length ? " record-summary-poor" : ""}`}>
      {rep.poorReasons.length ? <strong>Poor record: </strong> : null}
      {recordSummary(rep)}
    </p>
  );
}
