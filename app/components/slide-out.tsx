import { Link, useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState, type MouseEvent } from "react";
import type { ReactNode } from "react";
import { useDialogKeyboard } from "./use-dialog-keyboard";

export const SLIDE_OUT_CLOSE_MS = 300;

/**
 * A panel that slides in from the right (40% wide, at most 550px, full width under 900px). It is an address of
 * its own; the close link works without JavaScript, and with it the panel slides out for 300 ms first. With
 * JavaScript, focus stays inside it and Escape closes it.
 */
export function SlideOut({ titleId, closeTo, children }: { titleId: string; closeTo: string; children: ReactNode }) {
  const navigate = useNavigate();
  const ref = useRef<HTMLDivElement>(null);
  const [closing, setClosing] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);
  // Once: a second press while it slides out, or leaving for another page meanwhile, sends no second navigation.
  const startClosing = () => {
    if (timer.current) return;
    setClosing(true);
    timer.current = setTimeout(() => navigate(closeTo, { preventScrollReset: true }), SLIDE_OUT_CLOSE_MS);
  };
  const close = (event: MouseEvent) => {
    event.preventDefault();
    startClosing();
  };
  useDialogKeyboard(ref, startClosing);
  return (
    <div className={`slide-out-backdrop${closing ? " closing" : ""}`}>
      <Link to={closeTo} className="slide-out-scrim" aria-label="Close panel" tabIndex={-1} onClick={close} preventScrollReset />
      <div ref={ref} className="slide-out" role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <Link to={closeTo} className="modal-close" aria-label="Close" onClick={close} preventScrollReset>
          ×
        </Link>
        {children}
      </div>
    </div>
  );
}
