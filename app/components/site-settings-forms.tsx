/**
 * The Settings page's forms (app/routes/_app.mysite.settings.tsx): the active site's settings, and the account's
 * password, email preferences and sessions.
 */
import { Form, Link, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { ChipGroup } from "~/components/chip-group";
import { NewPasswordField } from "~/components/password-checklist";
import { PasswordField } from "~/components/password-input";
import { Spinner } from "~/components/spinner";
import { messages } from "~/domain/messages";
import { CATEGORY_TAGS, CONTENT_TYPES, PROVIDED_MATERIALS } from "~/domain/options";
import { usePostAddress } from "./use-post-address";

/**
 * The site's settings form. Its state (the description being edited) belongs to one site: the page keys it by the
 * site's id, so switching the active site while here shows the other site's settings, not this one's text to save there.
 */
export function SiteSettingsForm({
  site,
  listing,
  failure,
}: {
  site: { id: string; host: string; description: string; contentTypes: string[]; materials: string[]; tags: string[] };
  listing: { active: boolean; connects: number } | null;
  /** The last save's refusal: its message, the field it is about, and the form as it was sent. */
  failure: {
    error: string;
    /** The field the message is about (shown beside it), or none (shown by the Save button). */
    field: "description" | "connects" | null;
    description: string;
    chosen: Record<string, string[]>;
    listed: boolean;
    connects: string;
  } | null;
}) {
  const navigation = useNavigation();
  const postTo = usePostAddress();
  const [editing, setEditing] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const price = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) field.current?.focus();
  }, [editing]);
  // A refused field takes the focus back from the Save button, each time it is refused.
  useEffect(() => {
    if (failure?.field === "description") field.current?.focus();
    if (failure?.field === "connects") price.current?.focus();
  }, [failure]);
  const refusal = (about: "description" | "connects" | null) =>
    failure && failure.field === about ? (
      <p className="form-error" role="alert" id={`settings-error-${about ?? "form"}`}>
        {failure.error}
      </p>
    ) : null;
  const [description, setDescription] = useState(failure?.description ?? site.description);
  const busy =
    navigation.state === "submitting" && navigation.formAction?.startsWith("/mysite/settings") === true && !navigation.formData?.get("intent");
  return (
    // noValidate: the server checks the price (1 to 99) and answers with its message; the browser's check of the
    // number field would block the whole save, with its own words.
    <Form method="post" action={postTo} className="settings stack-lg" noValidate>
      {/* The site this page shows: saved to it even if another tab switches the active site meanwhile. */}
      <input type="hidden" name="siteId" value={site.id} />
      {/* The listing as this page showed it ("off", else its price): a save that leaves it as shown keeps the listing
          as it is now, so a tab opened before another tab took the site off the market does not put it back. */}
      <input type="hidden" name="shownListing" value={listing?.active ? String(listing.connects) : "off"} />
      <h2>Site Settings</h2>
      <section className="card stack">
        <h3>Description</h3>
        {/* A disclosure, the same with JavaScript and without: the description as text until "Edit" opens the field,
            which is always in the form. Rendered alike on both sides, the page paints its largest text once (it was
            swapped in after hydration, which held Lighthouse's largest paint until the scripts ran). A refusal of the
            description opens it, with what was typed; the field takes the focus whenever it opens. */}
        <details
          className="description-edit"
          open={editing || failure?.field === "description"}
          onToggle={(event) => setEditing(event.currentTarget.open)}
        >
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
            aria-invalid={failure?.field === "description" || undefined}
            aria-describedby={failure?.field === "description" ? "settings-error-description" : undefined}
            className="textarea"
          />
        </details>
        {refusal("description")}
      </section>
      <section className="card stack">
        <ChipGroup
          legend="You are willing to provide"
          name="contentTypes"
          options={CONTENT_TYPES}
          chosen={failure?.chosen.contentTypes ?? site.contentTypes}
        />
        <ChipGroup legend="Provided materials" name="materials" options={PROVIDED_MATERIALS} chosen={failure?.chosen.materials ?? site.materials} />
        <ChipGroup legend="Category" name="tags" options={CATEGORY_TAGS} chosen={failure?.chosen.tags ?? site.tags} />
      </section>
      <section className="card stack">
        <h3>Market listing</h3>
        <label className="check">
          <input type="checkbox" name="listed" defaultChecked={failure ? failure.listed : listing?.active ?? false} />
          Show {site.host} in the market
        </label>
        <label className="field narrow">
          <span>Connects a proposal needs</span>
          <input
            ref={price}
            name="connects"
            type="number"
            min={1}
            max={99}
            placeholder="10"
            defaultValue={failure ? failure.connects : listing?.connects ?? ""}
            aria-invalid={failure?.field === "connects" || undefined}
            aria-describedby={failure?.field === "connects" ? "settings-error-connects" : undefined}
          />
        </label>
        {refusal("connects")}
        <p className="muted small">Only verified sites appear in the market. The listing offers what you chose above.</p>
      </section>
      {refusal(null)}
      <div>
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy ? <Spinner label="Saving" /> : null} Save
        </button>
      </div>
    </Form>
  );
}

/** The account's password and sessions: forms of their own, beside the site's settings. */
export function AccountSecurity({
  failure,
  notificationEmails,
}: {
  failure: { field: "currentPassword" | "newPassword" | null; error: string } | null;
  notificationEmails: boolean;
}) {
  const navigation = useNavigation();
  const location = useLocation();
  const postTo = usePostAddress();
  const changing = navigation.state === "submitting" && navigation.formData?.get("intent") === "change-password";
  // Pressed once is enough: the answer gives this browser its new session.
  const endingOthers = navigation.state === "submitting" && navigation.formData?.get("intent") === "sign-out-others";
  // Changed (the page comes back with its notice), the form starts empty again: with JavaScript it would keep both
  // passwords, with every checklist line green.
  const changed = new URLSearchParams(location.search).get("notice") === "password-changed-here";
  return (
    <section className="card stack" aria-labelledby="account-title">
      <h3 id="account-title">Your account</h3>
      <Form method="post" action={postTo} className="stack narrow-form" key={changed ? location.key : "password"}>
        <input type="hidden" name="intent" value="change-password" />
        <PasswordField
          id="current-password"
          caption="Current password"
          name="currentPassword"
          autoComplete="current-password"
          aria-invalid={failure?.field === "currentPassword"}
        />
        <NewPasswordField name="newPassword" rulesId="new-password-rules" invalid={failure?.field === "newPassword"} />
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
      <Form method="post" action={postTo} className="stack">
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
      <Form method="post" action={postTo} className="stack">
        <p className="muted">Lost a phone or used a shared computer? End every session but this one.</p>
        <div>
          <button
            type="submit"
            name="intent"
            value="sign-out-others"
            className="button button-outline"
            disabled={endingOthers}
            aria-busy={endingOthers}
          >
            Sign out everywhere else
          </button>
        </div>
      </Form>
    </section>
  );
}
