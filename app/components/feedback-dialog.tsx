import { useFetcher } from "@remix-run/react";
import { feedbackProblems } from "~/domain/form-rules";
import { FEEDBACK_MAX_LENGTH } from "~/domain/rules";
import { CheckedField } from "./checked-field";
import { Modal } from "./modal";
import { SubmitButton } from "./submit-button";
import { useFieldChecks, useFormValues } from "./use-field-checks";

/**
 * The feedback dialog. It posts to /feedback, which answers with a redirect back (and a thank-you toast) or with
 * 'Feedback is empty.'; with JavaScript the button stays grey until there is something to send.
 */
export function FeedbackDialog({ closeTo, error, text = "" }: { closeTo: string; error?: string | null; text?: string }) {
  const fetcher = useFetcher<{ error?: string }>();
  const typed = useFormValues({ feedback: text });
  const checks = useFieldChecks(feedbackProblems(typed.values));
  const shown = fetcher.data?.error ?? error;
  const busy = fetcher.state !== "idle";
  return (
    <Modal titleId="feedback-title" closeTo={closeTo}>
      <h2 id="feedback-title">Send us feedback</h2>
      <p className="modal-sub">Something not right, or an idea? Tell us; we read everything.</p>
      <fetcher.Form
        ref={typed.form}
        method="post"
        action={`/feedback?back=${encodeURIComponent(closeTo)}`}
        className="stack"
        onChange={typed.read}
        onSubmit={(event) => busy && event.preventDefault()}
      >
        <CheckedField id="feedback" caption="Your feedback" message={checks.messageOf("feedback")}>
          {(control) => (
            <textarea
              {...control}
              name="feedback"
              rows={5}
              maxLength={FEEDBACK_MAX_LENGTH}
              defaultValue={text}
              onBlur={() => checks.leave("feedback")}
            />
          )}
        </CheckedField>
        {shown ? (
          <p className="form-error" role="alert">
            {shown}
          </p>
        ) : null}
        <SubmitButton ready={checks.ready} missing={checks.missing} hintId="feedback-missing" busy={busy} busyLabel="Sending">
          Send feedback
        </SubmitButton>
      </fetcher.Form>
    </Modal>
  );
}
