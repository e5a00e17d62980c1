import { Link } from "@remix-run/react";
import { useState, type ReactNode } from "react";

/**
 * A notice that closes by itself: the bar runs out at 4 s and it fades at about 6 s (CSS only, so it works without
 * JavaScript). Its × dismisses it at once: with JavaScript in place, without it by opening the page without the
 * notice. Put it in a ToastRegion, so screen readers announce it.
 */
export function Toast({ message, dismissTo }: { message: string; dismissTo: string }) {
  const [dismissed, setDismissed] = useState(false);
  if (dismissed) return null;
  return (
    <div className="toast">
      <span>{message}</span>
      <Link
        to={dismissTo}
        replace
        preventScrollReset
        className="toast-close"
        aria-label="Dismiss"
        onClick={(event) => {
          event.preventDefault();
          setDismissed(true);
        }}
      >
        ×
      </Link>
      <span className="toast-progress" aria-hidden="true" />
    </div>
  );
}

/** The live region toasts appear in: it stays on the page, so a toast added after a navigation is announced. */
export function ToastRegion({ children }: { children: ReactNode }) {
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {children}
    </div>
  );
}
