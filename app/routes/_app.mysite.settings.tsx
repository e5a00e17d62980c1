import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation, useRouteLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { ChipGroup } from "~/components/chip-group";
import { PasswordChecklist } from "~/components/password-checklist";
import { PasswordInput } from "~/components/password-input";
import { Spinner } from "~/components/spinner";
import { CATEGORY_TAGS, CONTENT_TYPES, PROVIDED_MATERIALS } from "~/domain/options";
import { changePasswordSchema, siteSettingsSchema } from "~/domain/validation";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { changePassword, signOutOtherSessions } from "~/services/account-security.server";
import { notificationEmailsOf, setNotificationEmails } from "~/services/email-preferences.server";
import { requireAuth } from "~/services/auth.server";
import { loadSignedInShell } from "~/services/layout.server";
import { getListingOf, updateSiteSettings } from "~/services/sites.server";
import { allow, RATE_LIMITS } from "~/services/rate-limit.server";
import { messages } from "~/domain/messages";
import type { MySiteData } from "./_app.mysite";

export const meta: MetaFunction = () => [{ title: "Site Settings - Backlink Market" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireAuth(request, context);
  const shell = await loadSignedInShell(context, auth);
  const [listing, notificationEmails] = await Promise.all([
    shell.activeSite ? getListingOf(context.db, shell.activeSite.id) : null,
    notificationEmailsOf(context.db, auth.user.id),
  ]);
  return { listing: listing ?? null, notificationEmails };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const shell = await loadSignedInShell(context, auth);
  const formData = await readFormData(request);
  const intent = formData.get("intent");
  if (intent === "email-preferences") {
    await setNotificationEmails(context.db, auth.user.id, formData.get("notificationEmails") === "on");
    throw redirect("/mysite/settings?notice=email-preferences-saved");
  }
  if (intent === "sign-out-others") {
    await signOutOtherSessions(context, auth);
    throw redirect("/mysite/settings?notice=other-sessions-ended");
  }
  if (intent === "change-password") {
    const change = parseForm(formData, changePasswordSchema, ["currentPassword", "newPassword"]);
    if (!change.ok) {
      const field = change.errors.currentPassword ? ("currentPassword" as const) : ("newPassword" as const);
      return data({ account: { field, error: firstError(change.errors, field) ?? messages.currentPasswordWrong } }, { status: 400 });
    }
    const changed = await changePassword(context, auth, change.value.currentPassword, change.value.newPassword);
    if (!changed.ok) return data({ account: { field: changed.field ?? null, error: changed.message } }, { status: changed.status });
    throw redirect("/mysite/settings?notice=password-changed-here");
  }
  const parsed = parseForm(formData, siteSettingsSchema);
  if (!parsed.ok) {
    const error = firstError(parsed.errors, "description") ?? firstError(parsed.errors, "connects") ?? "Choose from the lists.";
    return data({ error, description: parsed.values.description ?? "" }, { status: 400 });
  }
  if (!(await allow(context, RATE_LIMITS.settingsPerUser, auth.user.id))) {
    return data({ error: messages.tooManyAttempts, description: parsed.value.description }, { status: 429 });
  }
  if (!shell.activeSite || !(await updateSiteSettings(context.db, auth.user.id, shell.activeSite.id, parsed.value, context.now()))) {
    throw new Response("Not found", { status: 404 });
  }
  throw redirect("/mysite/settings?notice=settings-saved");
}

export default function SiteSettings() {
  const { site } = useRouteLoaderData("routes/_app.mysite") as MySiteData;
  const { listing, notificationEmails } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [editing, setEditing] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (editing) field.current?.focus();
  }, [editing]);
  const [description, setDescription] = useState((actionData && "description" in actionData ? actionData.description : null) ?? site.description);
  const busy =
    navigation.state === "submitting" && navigation.formAction?.startsWith("/mysite/settings") === true && !navigation.formData?.get("intent");
  const siteError = actionData && "error" in actionData ? actionData.error : null;
  return (
    <div className="stack-lg">
      <Form method="post" className="settings stack-lg" key={site.id}>
        <h2>Site Settings</h2>
        <section className="card stack">
          <h3>Description</h3>
          {/* A disclosure, the same with JavaScript and without: the description as text until "Edit" opens the
              field, which is always in the form. Rendered alike on both sides, the page paints its largest text once
              (it was swapped in after hydration, which held Lighthouse's largest paint until the scripts ran). */}
          <details className="description-edit" open={editing || siteError !== null} onToggle={(event) => setEditing(event.currentTarget.open)}>
            <summary className="editable">
              <span className="user-text">{description || "Add a description"}</span>
              <span className="edit-hint">Edit</span>
            </summary>
            <textarea
              ref={field}
              name="description"
              rows={4}
              maxLength={500}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
              aria-label="Description"
              className="textarea"
            />
          </details>
          {siteError ? (
            <p className="form-error" role="alert">
              {siteError}
            </p>
          ) : null}
        </section>
        <section className="card stack">
          <ChipGroup legend="You are willing to provide" name="contentTypes" options={CONTENT_TYPES} chosen={site.contentTypes} />
          <ChipGroup legend="Provided materials" name="materials" options={PROVIDED_MATERIALS} chosen={site.materials} />
          <ChipGroup legend="Category" name="tags" options={CATEGORY_TAGS} chosen={site.tags} />
        </section>
        <section className="card stack">
          <h3>Market listing</h3>
          <label className="check">
            <input type="checkbox" name="listed" defaultChecked={listing?.active ?? false} />
            Show {site.host} in the market
          </label>
          <label className="field narrow">
            <span>Connects a proposal needs</span>
            <input name="connects" type="number" min={1} max={99} placeholder="10" defaultValue={listing?.connects ?? ""} />
          </label>
          <p className="muted small">Only verified sites appear in the market. The listing offers what you chose above.</p>
        </section>
        <div>
          <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
            {busy ? <Spinner label="Saving" /> : null} Save
          </button>
        </div>
      </Form>
      <AccountSecurity failure={actionData && "account" in actionData ? actionData.account : null} notificationEmails={notificationEmails} />
    </div>
  );
}

/** The account's password and sessions: forms of their own, beside the site's settings. */
function AccountSecurity({
  failure,
  notificationEmails,
}: {
  failure: { field: "currentPassword" | "newPassword" | null; error: string } | null;
  notificationEmails: boolean;
}) {
  const [newPassword, setNewPassword] = useState("");
  const navigation = useNavigation();
  const changing = navigation.state === "submitting" && navigation.formData?.get("intent") === "change-password";
  return (
    <section className="card stack" aria-labelledby="account-title">
      <h3 id="account-title">Your account</h3>
      <Form method="post" className="stack narrow-form">
        <input type="hidden" name="intent" value="change-password" />
        <label className="field">
          <span>Current password</span>
          <PasswordInput name="currentPassword" autoComplete="current-password" aria-invalid={failure?.field === "currentPassword"} />
        </label>
        <label className="field">
          <span>New password</span>
          <PasswordInput
            name="newPassword"
            autoComplete="new-password"
            value={newPassword}
            onChange={(event) => setNewPassword(event.target.value)}
            aria-describedby="new-password-rules"
            aria-invalid={failure?.field === "newPassword"}
          />
        </label>
        <PasswordChecklist password={newPassword} id="new-password-rules" />
        {failure ? (
          <p className="form-error" role="alert">
            {failure.error}
            {failure.error === messages.noPasswordYet ? (
              <>
                {" "}
                <Link to="/reset-password">Send me a link</Link>
              </>
            ) : null}
          </p>
        ) : null}
        <div>
          <button type="submit" className="button button-primary" disabled={changing} aria-busy={changing}>
            {changing ? <Spinner label="Changing password" /> : null} Change password
          </button>
        </div>
      </Form>
      <Form method="post" className="stack">
        <input type="hidden" name="intent" value="email-preferences" />
        <label className="check-line">
          <input type="checkbox" name="notificationEmails" value="on" defaultChecked={notificationEmails} />
          <span>Email me about offers, messages and my site&apos;s verification</span>
        </label>
        <p className="muted small">Receipts and security emails (password resets and changes) always come.</p>
        <div>
          <button type="submit" className="button button-outline">
            Update email settings
          </button>
        </div>
      </Form>
      <Form method="post" className="stack">
        <p className="muted">Lost a phone or used a shared computer? End every session but this one.</p>
        <div>
          <button type="submit" name="intent" value="sign-out-others" className="button button-outline">
            Sign out everywhere else
          </button>
        </div>
      </Form>
    </section>
  );
}
