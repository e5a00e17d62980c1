import { useLocation, useMatches, useSearchParams } from "@remix-run/react";
import { createContext, useContext, useEffect, useLayoutEffect } from "react";

/**
 * The attribute that takes a part of the page out of reach (neither clicked nor reached by keyboard or screen reader)
 * while a dialog is open over it: server-rendered, so it holds without JavaScript too, where no script keeps the
 * keyboard inside the dialog.
 */
export function inertWhen(behindDialog: boolean): Record<string, string> {
  return behindDialog ? { inert: "" } : {};
}

/** Whether the address opens the feedback dialog over its page (`?feedback=true`, on the market and the dashboard). */
export function feedbackOpen(searchParams: URLSearchParams): boolean {
  return searchParams.get("feedback") !== null;
}

/**
 * Whether a signed-in address is a dialog over the header: a page that is only a dialog (feedback, a new site), or the
 * market or the dashboard with their feedback dialog open.
 */
export function dialogOverHeader(pathname: string, searchParams: URLSearchParams): boolean {
  // Without regard to case, as Remix matches routes.
  return /^\/(feedback|sites\/new)\/?$/i.test(pathname) || (/^\/(market|mysite)\/?$/i.test(pathname) && feedbackOpen(searchParams));
}

/**
 * Whether a page shows a slide-out panel over itself: the trade terms of the post its address names (`post=ID`, one of
 * its posts or the one read on its own; a post that is gone is a notice in the page, not a panel), or an offer
 * (`offer=ID`) the page could read. `data` is the page's loader data, or the posts it shows.
 */
export function panelShown(searchParams: URLSearchParams, data: unknown): boolean {
  const page = (data ?? {}) as { posts?: { id: string }[]; selected?: { id: string } | null; detail?: unknown };
  const post = searchParams.get("post");
  if (post) return Boolean(page.posts?.some((candidate) => candidate.id === post) || page.selected?.id === post);
  return Boolean(searchParams.get("offer") && page.detail);
}

/**
 * Whether a dialog or the page's panel is over the layouts' header and navigation, which are then out of reach. The panel
 * follows the innermost route's loader data, what the server rendered it from.
 */
export function useDialogOverHeader(): boolean {
  const [searchParams] = useSearchParams();
  // The innermost route's match: its address (the whole path) and its data.
  const page = useMatches().at(-1);
  return !!page && (dialogOverHeader(page.pathname, searchParams) || panelShown(searchParams, page.data));
}

/**
 * Where a page tells the signed-in layout that its panel is open, when the page knows more than its loader data: the
 * market with JavaScript shows posts of pages appended in place, which its loader data does not hold.
 */
export const PanelReport = createContext<((address: string | null) => void) | null>(null);

/**
 * An effect run before the browser paints what was rendered (a layout effect), so that what it changes shows in the
 * same frame; on the server, where no effect runs, the plain one (React warns of a layout effect there).
 */
const useBeforePaint = typeof document === "undefined" ? useEffect : useLayoutEffect;

/**
 * Tells the layout (with JavaScript) the address whose panel is open, until the page goes: the layout believes it only
 * on that address, so the report of a page being left never holds the next one's header. Before the paint: the header
 * is out of reach from the panel's first frame.
 */
export function useReportPanel(open: boolean) {
  const report = useContext(PanelReport);
  const { pathname, search } = useLocation();
  const address = open ? pathname + search : null;
  useBeforePaint(() => {
    report?.(address);
    return () => report?.(null);
  }, [report, address]);
}
