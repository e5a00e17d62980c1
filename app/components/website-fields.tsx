import type { FieldChecks } from "./use-field-checks";

/** What the user reads as the names of these fields, for "Still to fill in". */

/**
 * The website url and description with their messages, for sign-up step 1 and the add-website dialog. The form
 * around them reads what they hold (`useFormValues`) and checks it with `websiteProblems` (`useFieldChecks`).
 */
export function WebsiteFields({
  idPrefix,
  defaults,
  checks,
}: {
  /** Makes the ids of the messages unique on the page. */
  idPrefix: string;
  /** What the fields hold when the page is rendered: a prefill, or what was typed before the server answered. */
  defaults: { url?: string; description?: string };
  checks: FieldChecks;
}) {
  const urlError = `${idPrefix}-url-error`;
  const descriptionError = `${idPrefix}-description-error`;
  return (
    <>
      <label className="field">
        <span id={`${idPrefix}-url-name`}>Website url</span>
        <input
          name="url"
          type="text"
          inputMode="url"
          autoComplete="url"
          placeholder="yourwebsite.com"
          defaultValue={defaults.url ?? ""}
          onBlur={() => checks.leave("url")}
          {...checks.describe("url", urlError)}
          aria-labelledby={`${idPrefix}-url-name`}
        />
        <span className="field-error" id={urlError}>
          {checks.messageOf("url")}
        </span>
      </label>
      <label className="field">
        <span id={`${idPrefix}-description-name`}>Description</span>
        <textarea
          name="description"
          rows={3}
          placeholder="What is your website about? (30 characters or more)"
          defaultValue={defaults.description ?? ""}
          onBlur={() => checks.leave("description")}
          {...checks.describe("description", descriptionError)}
          aria-labelledby={`${idPrefix}-description-name`}
        />
        <span className="field-error" id={descriptionError}>
          {checks.messageOf("description")}
        </span>
      </label>
    </>
  );
}
