import { useLocation } from "@remix-run/react";
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";

/**
 * A header menu: a disclosure (`<details>`) of links and buttons, the same without JavaScript. With it, the menu also
 * closes after a choice (the header stays on the page while the next one loads), on Escape (focus back on its
 * button) and on a click or focus outside it. Its items are plain links and buttons in the page's Tab order: a
 * disclosure, not an ARIA menu, which would promise arrow-key navigation.
 */
export function HeaderMenu({ className, summary, children }: { className: string; summary: ReactNode; children: ReactNode }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const location = useLocation();

  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [location.key]);

  useEffect(() => {
    const closeOutside = (event: Event) => {
      const details = menu.current;
      if (details?.open && event.target instanceof Node && !details.contains(event.target)) details.open = false;
    };
    document.addEventListener("pointerdown", closeOutside);
    document.addEventListener("focusin", closeOutside);
    return () => {
      document.removeEventListener("pointerdown", closeOutside);
      document.removeEventListener("focusin", closeOutside);
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDetailsElement>) => {
    if (event.key !== "Escape" || !event.currentTarget.open) return;
    event.currentTarget.open = false;
    event.currentTarget.querySelector("summary")?.focus();
  };

  return (
    <details className={className} ref={menu} onKeyDown={onKeyDown}>
      {summary}
      <div className="menu-panel">{children}</div>
    </details>
  );
}
