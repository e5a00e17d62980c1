import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData } from "@remix-run/react";
import { AccountSecurity, SiteSettingsForm } from "~/components/site-settings-forms";
import { changePasswordSchema, siteSettingsSchema } from "~/domain/validation";
import { chosenValues, firstError, parseForm, readFormData, typedValues } from "~/lib/forms.server";
import { changePassword, signOutOtherSessions } from "~/services/account-security.server";
import { notificationEmailsOf, setNotificationEmails } from "~/services/email-preferences.server";
import { requireAuth } from "~/services/auth.server";
import { sessionCookie } from "~/services/sessions.server";
import { loadActiveSite, loadSiteOfForm } from "~/services/layout.server";
import { getListingOf, updateSiteSettings } from "~/services/sites.server";
import { allow, RATE_LIMITS } from "~/services/rate-limit.server";
import { messages } from "~/domain/messages";

export const meta: MetaFunction = () => [{ title: "Site Settings - Backlink Market" }];

/**
 * The active site's settings and its listing, read together: the form shows and saves one site. (The owner's-area
 * layout keeps its data while the user moves between its pages, so a site switched in another tab meanwhile would
 * have put one site's settings beside the other's listing.)
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const site = await loadActiveSite(context, auth);
  if (!site) throw redirect("/sites/new");
  const [listing, notificationEmails] = await Promise.all([getListingOf(context.db, site.id), notificationEmailsOf(context.db, auth.user.id)]);
  const { id, host, description, contentTypes, materials, tags } = site;
  return { site: { id, host, description, contentTypes, materials, tags }, listing: listing ?? null, notificationEmails };
}

/** The site's settings as they were sent, for a refused save to show them again (without JavaScript the page is rendered from them). */
function sentSettings(formData: FormData) {
  const typed = typedValues(formData);
  return {
    description: typed.description ?? "",
    chosen: chosenValues(formData, ["contentTypes", "materials", "tags"]),
    listed: typed.listed === "on",
    connects: typed.connects ?? "",
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const intent = formData.get("intent");
  if (intent === "email-preferences") {
    await setNotificationEmails(context.db, auth.user.id, formData.get("notificationEmails") === "on");
    throw redirect("/mysite/settings?notice=email-preferences-saved");
  }
  if (intent === "sign-out-others") {
    const session = await signOutOtherSessions(context, auth);
    if (!session) throw redirect(`/login?redirectTo=${encodeURIComponent("/mysite/settings")}`);
    // Pressed twice: the first press's answer carries the new session; this one changes nothing.
    const cookie = session === "already" ? undefined : { "Set-Cookie": sessionCookie(context.env, session.token, session.expiresAt) };
    throw redirect("/mysite/settings?notice=other-sessions-ended", { headers: cookie });
  }
  if (intent === "change-password") {
    const change = parseForm(formData, changePasswordSchema, ["currentPassword", "newPassword"]);
    if (!change.ok) {
      const field = change.errors.currentPassword ? ("currentPassword" as const) : ("newPassword" as const);
      return data({ account: { field, error: firstError(change.errors, field) ?? messages.currentPasswordWrong } }, { status: 400 });
    }
    const changed = await changePassword(context, auth, change.value.currentPassword, change.value.newPassword);
    if (!changed.ok && "signedOut" in changed) throw redirect(`/login?redirectTo=${encodeURIComponent("/mysite/settings")}`);
    if (!changed.ok) return data({ account: { field: changed.field ?? null, error: changed.message } }, { status: changed.status });
    const cookie = changed.session ? { "Set-Cookie": sessionCookie(context.env, changed.session.token, changed.session.expiresAt) } : undefined;
    throw redirect("/mysite/settings?notice=password-changed-here", { headers: cookie });
  }
  // The site the page showed, even if another tab has switched the active site since: a refused save shows its
  // settings again beside that site, not the other one.
  const site = await loadSiteOfForm(context, auth, formData);
  if (!site) throw new Response("Not found", { status: 404 });
  const parsed = parseForm(formData, siteSettingsSchema);
  if (!parsed.ok) {
    // A field's message shows beside it (the description's opens its field); any other by the Save button.
    const descriptionError = firstError(parsed.errors, "description");
    const connectsError = firstError(parsed.errors, "connects");
    const error = descriptionError ?? connectsError ?? "Choose from the lists.";
    const field = descriptionError ? ("description" as const) : connectsError ? ("connects" as const) : null;
    return data({ error, field, ...sentSettings(formData) }, { status: 400 });
  }
  if (!(await allow(context, RATE_LIMITS.settingsPerUser, auth.user.id))) {
    return data({ error: messages.tooManyAttempts, field: null, ...sentSettings(formData) }, { status: 429 });
  }
  if (!(await updateSiteSettings(context.db, auth.user.id, site.id, parsed.value, context.now()))) {
    throw new Response("Not found", { status: 404 });
  }
  throw redirect("/mysite/settings?notice=settings-saved");
}

export default function SiteSettings() {
  const { site, listing, notificationEmails } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <div className="stack-lg">
      <SiteSettingsForm key={site.id} site={site} listing={listing} failure={actionData && "error" in actionData ? actionData : null} />
      <AccountSecurity failure={actionData && "account" in actionData ? actionData.account : null} notificationEmails={notificationEmails} />
    </div>
  );
}
