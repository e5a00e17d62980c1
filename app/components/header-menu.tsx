import { useLocation } from "@remix-run/react";
import { useEffect, useRef, type ReactNode } from "react";

/**
 * A header menu: a disclosure (`<details>`) of links and buttons, the same without JavaScript. With it, the menu also
 * closes after a choice (the header stays on the page while the next one loads), on a press outside it, and on Escape
 * (focus back on its button). Its items are plain links and buttons in the page's Tab order: a disclosure, not an ARIA
 * menu, which would promise arrow-key navigation.
 */
export function HeaderMenu({ className, summary, children }: { className: string; summary: ReactNode; children: ReactNode }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const { key } = useLocation();
  useEffect(() => {
    const details = menu.current!;
    details.open = false;
    const close = (event: Event) => {
      if (!details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener("pointerdown", close);
    return () => document.removeEventListener("pointerdown", close);
  }, [key]);
  return (
    <details
      className={className}
      ref={menu}
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !event.currentTarget.open) return;
        event.currentTarget.open = false;
        (event.currentTarget.firstElementChild as HTMLElement).focus();
      }}
    >
      {summary}
      <div className="menu-panel">{children}</div>
    </details>
  );
}
