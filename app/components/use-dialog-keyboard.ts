import { useEffect, useRef, type RefObject } from "react";

const FOCUSABLE = [
  "a[href]",
  "button:not([disabled])",
  'input:not([disabled]):not([type="hidden"])',
  "select:not([disabled])",
  "textarea:not([disabled])",
  "summary",
  '[tabindex]:not([tabindex="-1"])',
].join(", ");

/** The dialogs open now, the last on top: only the top one answers keys. */
const openDialogs: HTMLElement[] = [];

/** What Tab can reach inside the dialog now (hidden controls, e.g. in a closed <details>, are skipped). */
function focusableIn(dialog: HTMLElement) {
  return [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.getClientRects().length > 0);
}

/**
 * A modal dialog's keyboard behaviour: focus moves into it when it opens (unless something in it already has
 * focus), Tab and Shift+Tab go round inside it, Escape closes it unless something was typed in it (Escape must not
 * throw away a draft), and when it closes focus goes back to the control that opened it. With two open, the one on
 * top has the keys. The dialog element needs tabIndex={-1}. Without JavaScript none of this runs; the dialog is then a
 * page of its own and its close link is the first control in it.
 */
export function useDialogKeyboard(ref: RefObject<HTMLElement | null>, onEscape: (() => void) | null) {
  const escape = useRef(onEscape);
  escape.current = onEscape;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const active = document.activeElement;
    const opener = active instanceof HTMLElement && active !== document.body && !dialog.contains(active) ? active : null;
    if (!dialog.contains(active)) dialog.focus({ preventScroll: true });
    openDialogs.push(dialog);
    let edited = false;
    const onInput = () => {
      edited = true;
    };
    dialog.addEventListener("input", onInput);

    const onKeyDown = (event: KeyboardEvent) => {
      if (openDialogs.at(-1) !== dialog || event.defaultPrevented) return;
      if (event.key === "Escape") {
        if (event.isComposing || event.repeat || edited || !escape.current) return;
        event.preventDefault();
        escape.current();
        return;
      }
      if (event.key !== "Tab") return;
      const items = focusableIn(dialog);
      const first = items[0];
      const last = items[items.length - 1];
      if (!first || !last) return event.preventDefault();
      const inside = dialog.contains(document.activeElement);
      if (event.shiftKey && (!inside || document.activeElement === first || document.activeElement === dialog)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
        event.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("keydown", onKeyDown);
      dialog.removeEventListener("input", onInput);
      openDialogs.splice(openDialogs.indexOf(dialog), 1);
      if (opener?.isConnected) opener.focus({ preventScroll: true });
    };
  }, [ref]);
}
