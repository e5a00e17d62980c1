import { Link } from "@remix-run/react";

export function Wordmark({ to = "/" }: { to?: string }) {
  return (
    <Link to={to} className="wordmark" aria-label="Backlink Market home">
      <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="var(--brand)" />
        <path
          d="M10 19.5a4.5 4.5 0 0 1 0-7h4M22 12.5a4.5 4.5 0 0 1 0 7h-4M12.5 16h7"
          stroke="#fff"
          strokeWidth="2.4"
          fill="none"
          strokeLinecap="round"
        />
      </svg>
      <span>Backlink Market</span>
    </Link>
  );
}
