import { Link } from "@remix-run/react";
import type { MouseEvent } from "react";
import { messages } from "~/domain/messages";
import { CheckedField } from "./checked-field";
import { Modal } from "./modal";
import { PasswordChecklist } from "./password-checklist";
import { PasswordInput } from "./password-input";
import { SubmitButton } from "./submit-button";
import type { FieldChecks } from "./use-field-checks";
import { WebsiteFields } from "./website-fields";

function FormError({ message }: { message?: string }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** Step 0: email and password, with the password checklist. Its fields stay in the form on step 1, hidden. */
export function SignupAccountStep({
  current,
  defaultEmail,
  password,
  passwordError,
  passwordKept,
  checks,
  missing,
  formError,
  onContinue,
}: {
  current: boolean;
  defaultEmail: string;
  /** The password as typed, for the checklist. */
  password: string;
  /** The server's message about the password, until it is edited. */
  passwordError?: string;
  /** Without JavaScript, the password of a kept draft need not be typed again. */
  passwordKept: boolean;
  checks: FieldChecks;
  /** The account fields that do not pass yet. */
  missing: readonly string[];
  formError?: string;
  onContinue: (event: MouseEvent<HTMLButtonElement>) => void;
}) {
  return (
    <div hidden={!current} className="stack">
      <h2 id={current ? "signup-title" : undefined}>{messages.growthStartsHere}</h2>
      <p className="modal-sub">
        Already have an account? <Link to="/login">Log in</Link>
      </p>
      <CheckedField id="signup-email" caption="Email" message={checks.messageOf("email")}>
        {(control) => <input {...control} name="email" type="email" autoComplete="email" defaultValue={defaultEmail} />}
      </CheckedField>
      <CheckedField id="signup-password" caption="Password" message={passwordError} describedBy="signup-password-rules">
        {(control) => <PasswordInput {...control} name="password" autoComplete="new-password" />}
      </CheckedField>
      <PasswordChecklist password={password} id="signup-password-rules" />
      {passwordKept && current && !password ? <p className="muted small">Your password is kept. Type a new one to change it.</p> : null}
      {current ? <FormError message={formError} /> : null}
      {current ? (
        <SubmitButton
          name="intent"
          value="continue"
          ready={missing.length === 0}
          missing={missing}
          hintId="signup-account-missing"
          onClick={onContinue}
        >
          Continue
        </SubmitButton>
      ) : null}
    </div>
  );
}

/** Step 1: the website url and description; Create Account spins while the account is made. */
export function SignupWebsiteStep({
  current,
  defaults,
  checks,
  busy,
  formError,
  onBack,
}: {
  current: boolean;
  defaults: { url: string; description: string };
  checks: FieldChecks;
  busy: boolean;
  formError?: string;
  onBack: (event: MouseEvent<HTMLButtonElement>) => void;
}) {
  return (
    <div hidden={!current} className="stack signup-step">
      <div className="step-head">
        <h2 id={current ? "signup-title" : undefined}>Tell us about your website</h2>
      </div>
      <WebsiteFields idPrefix="signup" defaults={defaults} checks={checks} />
      {current ? <FormError message={formError} /> : null}
      {current ? (
        <SubmitButton
          name="intent"
          value="create"
          ready={checks.ready}
          missing={checks.missing}
          hintId="signup-website-missing"
          busy={busy}
          busyLabel="Creating your account"
        >
          Create Account
        </SubmitButton>
      ) : null}
      {/* After Create Account in the form, so Enter in a field creates the account (a form's first submit button is
          the one Enter presses); shown at the top left, beside the heading. */}
      {current ? (
        <button type="submit" name="intent" value="back" className="round-button step-back" aria-label="Back" onClick={onBack}>
          ←
        </button>
      ) : null}
    </div>
  );
}

/** Step 2: the closing screen. */
export function SignupSeeYouSoon() {
  return (
    <Modal titleId="signup-title" closeTo="/">
      <h2 id="signup-title">See You Soon</h2>
      <p className="modal-sub">{messages.launchText}</p>
      <p>{messages.contactWithMatches}.</p>
    </Modal>
  );
}

/** Below the form: what joining means. */
export function SignupFinePrint() {
  return (
    <p className="fine-print">
      By joining you agree to our terms of service and to occasional emails from us. Read our{" "}
      {/* In a tab of its own: what was typed here stays (Back would bring the sign-up back empty). */}
      <a href="/privacy" target="_blank" rel="noopener">
        privacy policy
      </a>
      .
    </p>
  );
}
