import { formatShortDate } from "~/domain/dates";
import { useTimeZone } from "./use-time-zone";

export interface ScorePoint {
  at: number;
  score: number;
}

const WIDTH = 480;
const HEIGHT = 200;
const PAD = { left: 40, right: 16, top: 14, bottom: 30 };

/**
 * The authority score over time as an SVG drawn on the server: it shows without JavaScript and scales with its box.
 * Points sit at their dates; the label names every point for screen readers.
 */
export function ScoreChart({ points, now }: { points: ScorePoint[]; now: number }) {
  const timeZone = useTimeZone();
  if (points.length === 0) return <p className="muted">The chart appears after the first audit.</p>;
  const first = points[0]!.at;
  const last = points[points.length - 1]!.at;
  const span = Math.max(1, last - first);
  const innerWidth = WIDTH - PAD.left - PAD.right;
  const innerHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (at: number) => (points.length === 1 ? PAD.left + innerWidth / 2 : PAD.left + ((at - first) / span) * innerWidth);
  const y = (score: number) => PAD.top + (1 - Math.min(100, Math.max(0, score)) / 100) * innerHeight;
  const label = `Authority score over time: ${points.map((point) => `${point.score} on ${formatShortDate(point.at, now, timeZone)}`).join(", ")}.`;
  return (
    <svg className="score-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} data-testid="score-chart">
      {[0, 50, 100].map((value) => (
        <g key={value} className="score-chart-grid">
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(value)} y2={y(value)} />
          <text x={PAD.left - 6} y={y(value) + 4} textAnchor="end">
            {value}
          </text>
        </g>
      ))}
      {points.length > 1 ? (
        <polyline className="score-chart-line" points={points.map((point) => `${x(point.at).toFixed(1)},${y(point.score).toFixed(1)}`).join(" ")} />
      ) : null}
      {points.map((point) => (
        <circle key={point.at} className="score-chart-point" cx={x(point.at)} cy={y(point.score)} r={4}>
          <title>{`${point.score} on ${formatShortDate(point.at, now, timeZone)}`}</title>
        </circle>
      ))}
      <text className="score-chart-date" x={PAD.left} y={HEIGHT - 6} textAnchor="start">
        {formatShortDate(first, now, timeZone)}
      </text>
      {points.length > 1 ? (
        <text className="score-chart-date" x={WIDTH - PAD.right} y={HEIGHT - 6} textAnchor="end">
          {formatShortDate(last, now, timeZone)}
        </text>
      ) : null}
    </svg>
  );
}
