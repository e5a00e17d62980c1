import { scoreColour } from "~/domain/score";

/**
 * An authority score in its colour (red, orange, yellow, green), named for screen readers: "Authority score 72". It is
 * an image to them (role="img"): a name on a plain <span> is not one ARIA lets them read.
 */
export function ScoreBadge({ score, label = "Authority score" }: { score: number; label?: string }) {
  return (
    <span className={`score score-${scoreColour(score)}`} role="img" aria-label={`${label} ${score}`}>
      {score}
    </span>
  );
}
