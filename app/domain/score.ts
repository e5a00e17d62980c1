/** Authority score colours (spec 9), on the rounded-up score. */
export type ScoreColour = "red" | "orange" | "yellow" | "green";

export function scoreColour(score: number): ScoreColour {
  const rounded = Math.ceil(score);
  if (rounded < 20) return "red";
  if (rounded < 50) return "orange";
  if (rounded < 70) return "yellow";
  return "green";
}
