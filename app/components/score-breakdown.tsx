import type { ScoreBreakdown } from "~/domain/audit";

/** How the last audit's score adds up: each part's points out of its weight, and the share they make. */
export function ScoreBreakdownTable({ breakdown }: { breakdown: ScoreBreakdown }) {
  return (
    <section className="card stack" aria-labelledby="sum-heading">
      <h3 id="sum-heading">How the score is worked out</h3>
      <p className="muted">
        Each part earns points up to its weight. The score is the points earned as a share of the weights of the parts that could be measured, rounded
        up.
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
  );
}
