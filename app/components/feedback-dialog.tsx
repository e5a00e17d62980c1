import { useFetcher } from "@remix-run/react";
import { useState } from "react";
import { feedbackProblem } from "~/domain/rules";
import { Modal } from "./modal";
import { Spinner } from "./spinner";

/**
 * The feedback dialog. It posts to /feedback, which answers with a redirect back (and a thank-you toast) or with
 * 'Feedback is empty.'; with JavaScript blank feedback is caught before sending.
 */
export function FeedbackDialog({ closeTo, error, text = "" }: { closeTo: string; error?: string | null; text?: string }) {
  const fetcher = useFetcher<{ error?: string }>();
  const [feedback, setFeedback] = useState(text);
  const [localError, setLocalError] = useState<string | null>(null);
  const shown = localError ?? fetcher.data?.error ?? error;
  const busy = fetcher.state !== "idle";
  return (
    <Modal titleId="feedback-title" closeTo={closeTo}>
      <h2 id="feedback-title">Send us feedback</h2>
      <p className="modal-sub">Something not right, or an idea? Tell us; we read everything.</p>
      <fetcher.Form
        method="post"
        action={`/feedback?back=${encodeURIComponent(closeTo)}`}
        className="stack"
        onSubmit={(event) => {
          const problem = feedbackProblem(feedback);
          if (problem) {
            event.preventDefault();
            setLocalError(problem);
          }
        }}
      >
        <label className="field">
          <span>Your feedback</span>
          <textarea
            name="feedback"
            rows={5}
            maxLength={5000}
            value={feedback}
            onChange={(event) => {
              setFeedback(event.target.value);
              setLocalError(null);
            }}
          />
        </label>
        {shown ? (
          <p className="form-error" role="alert">
            {shown}
          </p>
        ) : null}
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? <Spinner label="Sending" /> : null} Send feedback
        </button>
      </fetcher.Form>
    </Modal>
  );
}
