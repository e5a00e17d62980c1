import { Link, useNavigate } from "@remix-run/react";
import { useRef, type ReactNode } from "react";
import { useDialogKeyboard } from "./use-dialog-keyboard";

/**
 * A modal that is a page of its own: rendered open by the server, closed by a link, so it works without
 * JavaScript. Page scroll is locked by CSS while one is open; under 600px it fills the screen. With JavaScript,
 * focus stays inside it and Escape closes it. A modal without `closeTo` cannot be closed (a first website is needed).
 */
export function Modal({
  titleId,
  closeTo,
  children,
  className = "",
}: {
  titleId: string;
  closeTo: string | null;
  children: ReactNode;
  className?: string;
}) {
  const navigate = useNavigate();
  const ref = useRef<HTMLElement>(null);
  useDialogKeyboard(ref, closeTo ? () => navigate(closeTo, { preventScrollReset: true }) : null);
  return (
    <div className="modal-backdrop">
      <section ref={ref} role="dialog" aria-modal="true" aria-labelledby={titleId} className={`modal ${className}`} tabIndex={-1}>
        {closeTo ? (
          <Link to={closeTo} className="modal-close" aria-label="Close" preventScrollReset>
            ×
          </Link>
        ) : null}
        {children}
      </section>
    </div>
  );
}
