import { Link } from "@remix-run/react";
import type { ReactNode } from "react";

/**
 * A modal that is a page of its own: rendered open by the server, closed by a link, so it works without
 * JavaScript. Page scroll is locked by CSS while one is open; under 600px it fills the screen.
 */
export function Modal({
  titleId,
  closeTo,
  children,
  className = "",
}: {
  titleId: string;
  closeTo: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className="modal-backdrop">
      <section role="dialog" aria-modal="true" aria-labelledby={titleId} className={`modal ${className}`}>
        <Link to={closeTo} className="modal-close" aria-label="Close" preventScrollReset>
          ×
        </Link>
        {children}
      </section>
    </div>
  );
}
