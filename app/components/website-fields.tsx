import { CheckedField } from "./checked-field";
import type { FieldChecks } from "./use-field-checks";

/**
 * The website url and description with their messages, for sign-up step 1 and the add-website dialog. The form
 * around them reads what they hold (`useFormValues`) and checks it with `websiteProblems` (`useFieldChecks`).
 */
export function WebsiteFields({
  idPrefix,
  defaults,
  checks,
}: {
  /** Makes the ids of the fields and their messages unique on the page. */
  idPrefix: string;
  /** What the fields hold when the page is rendered: a prefill, or what was typed before the server answered. */
  defaults: { url?: string; description?: string };
  checks: FieldChecks;
}) {
  return (
    <>
      <CheckedField id={`${idPrefix}-url`} caption="Website url" message={checks.messageOf("url")}>
        {(control) => (
          <input
            {...control}
            name="url"
            type="text"
            inputMode="url"
            autoComplete="url"
            placeholder="yourwebsite.com"
            defaultValue={defaults.url ?? ""}
            onBlur={() => checks.leave("url")}
          />
        )}
      </CheckedField>
      <CheckedField id={`${idPrefix}-description`} caption="Description" message={checks.messageOf("description")}>
        {(control) => (
          <textarea
            {...control}
            name="description"
            rows={3}
            placeholder="What is your website about? (30 characters or more)"
            defaultValue={defaults.description ?? ""}
            onBlur={() => checks.leave("description")}
          />
        )}
      </CheckedField>
    </>
  );
}
