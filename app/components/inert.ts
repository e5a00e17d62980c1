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
