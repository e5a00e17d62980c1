import { Link, useNavigate } from "@remix-run/react";
import { useState, type MouseEvent, type ReactNode } from "react";

export const SLIDE_OUT_CLOSE_MS = 300;

/**
 * A panel that slides in from the right (40% wide, at most 550px, full width under 900px). It is an address of
 * its own; the close link works without JavaScript, and with it the panel slides out for 300 ms first.
 */
export function SlideOut({ titleId, closeTo, children }: { titleId: string; closeTo: string; children: ReactNode }) {
  const navigate = useNavigate();
  const [closing, setClosing] = useState(false);
  const close = (event: MouseEvent) => {
    event.preventDefault();
    setClosing(true);
    setTimeout(() => navigate(closeTo, { preventScrollReset: true }), SLIDE_OUT_CLOSE_MS);
  };
  return (
    <div className={`slide-out-backdrop${closing ? " closing" : ""}`}>
      <Link to={closeTo} className="slide-out-scrim" aria-label="Close panel" tabIndex={-1} onClick={close} preventScrollReset />
      <aside className="slide-out" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <Link to={closeTo} className="modal-close" aria-label="Close" onClick={close} preventScrollReset>
          ×
        </Link>
        {children}
      </aside>
    </div>
  );
}
