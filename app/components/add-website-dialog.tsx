import { Form, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { messages } from "~/domain/messages";
import { descriptionProblem, websiteUrlProblem } from "~/domain/rules";
import type { FieldErrors } from "~/domain/validation";
import { Modal } from "./modal";
import { Spinner } from "./spinner";
import { useHydrated } from "./use-hydrated";

/** The add-website dialog: url and a description of at least 30 characters; the category is always blog. */
export function AddWebsiteDialog({
  closeTo,
  errors = {},
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
  const hydrated = useHydrated();
  const [url, setUrl] = useState(values.url ?? "");
  const [description, setDescription] = useState(values.description ?? "");
  const busy = navigation.state !== "idle" && navigation.formAction?.startsWith("/sites/new") === true;
  const valid = !websiteUrlProblem(url) && !descriptionProblem(description);
  const urlMessage = (url !== "" ? websiteUrlProblem(url) : null) ?? errors.url?.[0];
  const descriptionMessage = (description !== "" ? descriptionProblem(description) : null) ?? errors.description?.[0];
  const action = closeTo ? `/sites/new?back=${encodeURIComponent(closeTo)}` : "/sites/new";

  return (
    <Modal titleId="add-website-title" closeTo={closeTo}>
      <h2 id="add-website-title">{messages.growthStartsHere}</h2>
      <p className="modal-sub">{closeTo ? "Add another website to trade with." : "Add your website to start trading."}</p>
      <Form method="post" action={action} className="stack" noValidate onSubmit={(event) => busy && event.preventDefault()}>
        <input type="hidden" name="category" value="blog" />
        <label className="field">
          <span>Website url</span>
          <input
            name="url"
            type="text"
            inputMode="url"
            placeholder="yourwebsite.com"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            aria-invalid={Boolean(urlMessage)}
          />
          <span className="field-error">{urlMessage}</span>
        </label>
        <label className="field">
          <span>Description</span>
          <textarea
            name="description"
            rows={3}
            placeholder="What is your website about? (30 characters or more)"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            aria-invalid={Boolean(descriptionMessage)}
          />
          <span className="field-error">{descriptionMessage}</span>
        </label>
        {formError ? (
          <p className="form-error" role="alert">
            {formError}
          </p>
        ) : null}
        <button type="submit" className="button button-primary button-block" disabled={hydrated && (!valid || busy)}>
          {busy ? <Spinner label="Adding your website" /> : null} Add website
        </button>
      </Form>
    </Modal>
  );
}
