/** Authority score rules: colours and filter bands work on the rounded-up score. */
export type ScoreColour = "red" | "orange" | "yellow" | "green";
export type AuthorityBand = "low" | "mid" | "hi";

export const AUTHORITY_BANDS: { id: AuthorityBand; label: string; min: number; max: number }[] = [
  { id: "low", label: "Under 20", min: 0, max: 19 },
  { id: "mid", label: "20 to 69", min: 20, max: 69 },
  { id: "hi", label: "70 and above", min: 70, max: Number.MAX_SAFE_INTEGER },
];

export function scoreColour(score: number): ScoreColour {
  const rounded = Math.ceil(score);
  if (rounded < 20) return "red";
  if (rounded < 50) return "orange";
  if (rounded < 70) return "yellow";
  return "green";
}

export function authorityBand(score: number): AuthorityBand {
  const rounded = Math.ceil(score);
  if (rounded < 20) return "low";
  if (rounded < 70) return "mid";
  return "hi";
}

/**
 * The score as shown: rounded up. A site not audited yet comes with its placeholder from the database
 * (`sites.placeholder_score`, 40 to 99 from its id; docs/decisions/0024-placeholder-score.md), never a new random number per page.
 */
export function displayScore(score: number): number {
  return Math.ceil(score);
}
