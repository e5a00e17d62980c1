import { scoreColour } from "~/domain/score";

/** An authority score in its colour (red, orange, yellow, green), named for screen readers: "Authority score 72". */
export function ScoreBadge({ score, label = "Authority score" }: { score: number; label?: string }) {
  return (
    <span className={`score score-${scoreColour(score)}`} aria-label={`${label} ${score}`}>
      {score}
    </span>
  );
}
