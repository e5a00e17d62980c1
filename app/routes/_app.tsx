import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet, useLoaderData, useLocation, useNavigation, useSearchParams, type ShouldRevalidateFunction } from "@remix-run/react";
import { useState } from "react";
import { PanelReport, useDialogOverHeader } from "~/components/inert";
import { SkipLink } from "~/components/skip-link";
import { Toast, ToastRegion } from "~/components/toast";
import { SignedInHeader } from "~/components/signed-in-header";
import { messages } from "~/domain/messages";
import { addressWith } from "~/domain/page-address";
import { noticeNamed } from "~/domain/redirects";
import { requireAuth } from "~/services/auth.server";
import { loadSignedInShell } from "~/services/layout.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const shell = await loadSignedInShell(context, auth);
  // A signed-in user without a website is asked for one first (docs/decisions/0029-first-site-at-sites-new.md).
  const url = new URL(request.url);
  if (shell.sites.length === 0 && url.pathname !== "/sites/new") throw redirect("/sites/new");
  // The notice's words are read here, so that the browser's code carries none of them.
  return { ...shell, notice: noticeNamed(NOTICES, url.searchParams.get("notice")) };
}

// The header's data changes only through actions or on another page; a new notice is read with it.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }) => {
  if (formMethod) return defaultShouldRevalidate;
  const notice = nextUrl.searchParams.get("notice");
  return currentUrl.pathname !== nextUrl.pathname || (notice !== null && notice !== currentUrl.searchParams.get("notice"));
};

const NOTICES: Record<string, string> = {
  "feedback-sent": "Thanks for your feedback!",
  "settings-saved": "Settings saved",
  "offer-sent": messages.offerSent,
  verified: messages.siteVerified,
  "new-tag": "Here is your new tag. Put it on your home page, then check.",
  "icon-updated": messages.iconUpdated,
  "icon-missing": messages.iconNotFound,
  "icon-limited": messages.tooManyIconUpdates,
  "site-fetches-limited": messages.tooManySiteFetches,
  "site-not-yours": "The site that link is about is not in your account, so this page shows your active site.",
  "password-changed-here": messages.passwordUpdated,
  "email-confirmed": messages.emailConfirmed,
  "confirmation-sent": messages.confirmationSent,
  "confirmation-limited": messages.tooManyAttempts,
  "other-sessions-ended": messages.otherSessionsEnded,
  "chat-failed": messages.chatOpenFailed,
  "test-purchase": messages.testPurchaseDone,
  "email-preferences-saved": "Email settings saved",
  "chat-limited": messages.tooManyChatOpens,
  "chat-verify": messages.verifyBanner,
  "site-listed": messages.siteListed,
  "site-listed-unverified": messages.siteListedUnverified,
};

export default function SignedInLayout() {
  const { sites, activeSite, notice: noticeText } = useLoaderData<typeof loader>();
  const location = useLocation();
  const [searchParams] = useSearchParams();
  // A dialog or a page's panel over the header: the header is out of reach, and there is no skip link (to nothing, or to
  // what is behind). The page may report a panel its loader data does not show (PanelReport).
  const [panelAt, reportPanel] = useState<string | null>(null);
  const dialog = useDialogOverHeader() || panelAt === location.pathname + location.search;
  // Shown while the address has it: dismissed, the address drops it. A form sent from the page puts it away at once:
  // a refusal shows while the page's data loads again, still at the address of the notice before it.
  const sending = useNavigation().formMethod !== undefined;
  const notice = searchParams.get("notice") && !sending ? noticeText : null;
  return (
    <div className="page app-page">
      {dialog ? null : <SkipLink />}
      <SignedInHeader sites={sites} activeSite={activeSite} behindDialog={dialog} />
      <PanelReport.Provider value={reportPanel}>
        <Outlet />
      </PanelReport.Provider>
      <ToastRegion>
        {notice ? <Toast key={location.key} message={notice} dismissTo={addressWith(location.pathname, searchParams, "notice", null)} /> : null}
      </ToastRegion>
    </div>
  );
}
