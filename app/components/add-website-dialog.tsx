import { Form, useNavigation } from "@remix-run/react";
import { websiteProblems } from "~/domain/form-rules";
import { messages } from "~/domain/messages";
import type { FieldErrors } from "~/domain/validation";
import { Modal } from "./modal";
import { SubmitButton } from "./submit-button";
import { useFieldChecks, useFormValues } from "./use-field-checks";
import { WebsiteFields } from "./website-fields";

/** The add-website dialog: url and a description of at least 30 characters; the category is always blog. */
export function AddWebsiteDialog({
  closeTo,
  errors,
  values = {},
  formError,
}: {
  /** Where the close control goes; null when the user must add a first site. */
  closeTo: string | null;
  errors?: FieldErrors;
  values?: Record<string, string>;
  formError?: string | null;
}) {
  const navigation = useNavigation();
  const typed = useFormValues(values);
  const checks = useFieldChecks(websiteProblems(typed.values), errors, errors);
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/sites/new") === true;
  const action = closeTo ? `/sites/new?back=${encodeURIComponent(closeTo)}` : "/sites/new";

  return (
    <Modal titleId="add-website-title" closeTo={closeTo}>
      <h2 id="add-website-title">{messages.growthStartsHere}</h2>
      <p className="modal-sub">{closeTo ? "Add another website to trade with." : "Add your website to start trading."}</p>
      <Form
        ref={typed.form}
        method="post"
        action={action}
        className="stack"
        noValidate
        onChange={typed.read}
        onSubmit={(event) => busy && event.preventDefault()}
      >
        <input type="hidden" name="category" value="blog" />
        <WebsiteFields idPrefix="add-website" defaults={values} checks={checks} />
        {formError ? (
          <p className="form-error" role="alert">
            {formError}
          </p>
        ) : null}
        <SubmitButton ready={checks.ready} missing={checks.missing} hintId="add-website-missing" busy={busy} busyLabel="Adding your website">
          Add website
        </SubmitButton>
      </Form>
      {closeTo ? null : (
        // A first website cannot be skipped, and the header behind is out of reach: the way out is here.
        <Form method="post" action="/logout" className="button-row">
          <button type="submit" className="button button-ghost button-small">
            Log out
          </button>
        </Form>
      )}
    </Modal>
  );
}
