import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type MouseEvent } from "react";
import { Modal } from "~/components/modal";
import { OAuthButtons } from "~/components/oauth-buttons";
import { PasswordChecklist } from "~/components/password-checklist";
import { PasswordInput } from "~/components/password-input";
import { Spinner } from "~/components/spinner";
import { useHydrated } from "~/components/use-hydrated";
import { messages } from "~/domain/messages";
import { descriptionProblem, emailProblem, isStrongPassword, websiteUrlProblem } from "~/domain/rules";
import { signupAccountSchema, signupSchema } from "~/domain/validation";
import { isCommonPassword } from "~/lib/common-passwords.server";
import { parseForm, readFormData, type FieldErrors } from "~/lib/forms.server";
import { deleteSignupDraft, readSignupDraft, saveSignupDraft, signUp, updateSignupDraftEmail } from "~/services/accounts.server";
import { requireSignedOut, sessionCookieHeaders } from "~/services/auth.server";
import { configuredProviders } from "~/services/oauth.server";
import { allow, clientAddress, RATE_LIMITS } from "~/services/rate-limit.server";

// Forms with credentials are never cached.
export const headers = () => ({ "Cache-Control": "no-store" });

export const meta: MetaFunction = () => [{ title: "Join - Backlink Market" }];

type Step = 0 | 1 | 2;

interface SignupActionData {
  step: Step;
  values: { email: string; password: string; url: string; description: string };
  errors: FieldErrors;
  formError?: string;
  /** Without JavaScript, step 1 carries this token of the server-side draft of step 0, never the password. */
  draft?: string;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireSignedOut(request, context);
  const params = new URL(request.url).searchParams;
  return {
    prefill: {
      email: (params.get("email") ?? "").slice(0, 254),
      url: (params.get("site") ?? "").slice(0, 2048),
      description: (params.get("des") ?? "").slice(0, 500),
    },
    step: params.get("step") === "2" ? (2 as const) : (0 as const),
    providers: configuredProviders(context.env),
  };
}

const ACCOUNT_FIELDS = ["email", "password"];
const COMMON_PASSWORD: FieldErrors = { password: [messages.passwordTooCommon] };

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const text = (name: string) => {
    const value = formData.get(name);
    return typeof value === "string" ? value.slice(0, 10_000) : "";
  };
  // Without JavaScript the steps are separate posts: step 0 is kept on the server as a draft (the password
  // hashed) and step 1 sends its token. With JavaScript the steps are one post with everything.
  const values = { email: text("email"), password: text("password"), url: text("url"), description: text("description") };
  const withoutPassword = { ...values, password: "" };
  const reply = (body: SignupActionData, status = 200) => data(body, { status });
  const intent = formData.get("intent");

  const draftToken = text("draft");
  // Back to step 0 keeps the draft, so Continue does not ask for the password again.
  if (intent === "back") return reply({ step: 0, values: withoutPassword, errors: {}, draft: draftToken || undefined });
  if (intent === "continue" && draftToken && !values.password) {
    const draft = await readSignupDraft(context, draftToken);
    const account = parseForm(formData, signupAccountSchema.pick({ email: true }));
    if (draft && account.ok) {
      if (account.value.email !== draft.email) await updateSignupDraftEmail(context, draftToken, account.value.email);
      return reply({ step: 1, values: withoutPassword, errors: {}, draft: draftToken });
    }
  }
  if (intent === "continue") {
    const parsed = parseForm(formData, signupAccountSchema);
    if (!parsed.ok) return reply({ step: 0, values: { ...values, password: "" }, errors: parsed.errors }, 400);
    if (isCommonPassword(parsed.value.password)) return reply({ step: 0, values: withoutPassword, errors: COMMON_PASSWORD }, 400);
    if (!(await allow(context, RATE_LIMITS.signupDraftsPerAddress, clientAddress(request)))) {
      return reply({ step: 0, values: withoutPassword, errors: {}, formError: messages.tooManyAttempts }, 429);
    }
    const draft = await saveSignupDraft(context, parsed.value.email, parsed.value.password);
    return reply({ step: 1, values: withoutPassword, errors: {}, draft });
  }

  if (draftToken && !values.password) {
    const draft = await readSignupDraft(context, draftToken);
    if (!draft) return reply({ step: 0, values: withoutPassword, errors: {}, formError: messages.signupDraftExpired }, 400);
    const site = parseForm(formData, signupSchema.pick({ url: true, description: true }));
    if (!site.ok) return reply({ step: 1, values: withoutPassword, errors: site.errors, draft: draftToken }, 400);
    const result = await signUp(context, { email: draft.email, password: { hash: draft.passwordHash }, ...site.value }, clientAddress(request));
    if (!result.ok) {
      return reply({ step: 1, values: withoutPassword, errors: {}, formError: result.message, draft: draftToken }, result.status >= 500 ? 500 : result.status);
    }
    await deleteSignupDraft(context, draftToken);
    throw redirect("/market", { headers: sessionCookieHeaders(context, result.token, result.expiresAt) });
  }

  const parsed = parseForm(formData, signupSchema);
  if (!parsed.ok) {
    const accountInvalid = ACCOUNT_FIELDS.some((field) => parsed.errors[field]);
    return reply(
      { step: accountInvalid ? 0 : 1, values: { ...values, password: accountInvalid ? "" : values.password }, errors: parsed.errors },
      400,
    );
  }
  if (isCommonPassword(parsed.value.password)) return reply({ step: 0, values: withoutPassword, errors: COMMON_PASSWORD }, 400);
  const { password, ...rest } = parsed.value;
  const result = await signUp(context, { ...rest, password: { typed: password } }, clientAddress(request));
  if (!result.ok) {
    return reply({ step: 1, values: withoutPassword, errors: {}, formError: result.message }, result.status >= 500 ? 500 : result.status);
  }
  throw redirect("/market", { headers: sessionCookieHeaders(context, result.token, result.expiresAt) });
}

export default function SignupModal() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const initial = actionData?.values ?? { ...loaderData.prefill, password: "" };
  const [step, setStep] = useState<Step>(actionData?.step ?? loaderData.step);
  const [email, setEmail] = useState(initial.email);
  const [password, setPassword] = useState(initial.password);
  const [url, setUrl] = useState(initial.url);
  const [description, setDescription] = useState(initial.description);
  const [serverErrors, setServerErrors] = useState<FieldErrors>(actionData?.errors ?? {});
  useEffect(() => {
    if (!actionData) return;
    setStep(actionData.step);
    setServerErrors(actionData.errors);
  }, [actionData]);

  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "create";
  const accountValid = !emailProblem(email) && isStrongPassword(password);
  const siteValid = !websiteUrlProblem(url) && !descriptionProblem(description);
  const emailMessage = (email !== "" ? emailProblem(email) : null) ?? serverErrors.email?.[0];
  const urlMessage = (url !== "" ? websiteUrlProblem(url) : null) ?? serverErrors.url?.[0];
  const descriptionMessage = (description !== "" ? descriptionProblem(description) : null) ?? serverErrors.description?.[0];

  const goTo = (target: Step, allowed: boolean) => (event: MouseEvent<HTMLButtonElement>) => {
    if (!hydrated) return; // without JavaScript the server moves between steps
    event.preventDefault();
    if (allowed) {
      setServerErrors({});
      setStep(target);
    }
  };
  const ignoreWhileBusy = (event: FormEvent) => {
    if (busy) event.preventDefault();
  };

  if (step === 2) {
    return (
      <Modal titleId="signup-title" closeTo="/">
        <h2 id="signup-title">See You Soon</h2>
        <p className="modal-sub">{messages.launchText}</p>
        <p>{messages.contactWithMatches}.</p>
      </Modal>
    );
  }

  return (
    <Modal titleId="signup-title" closeTo="/" className="signup-modal">
      <Form method="post" className="stack" onSubmit={ignoreWhileBusy} noValidate>
        {actionData?.draft ? <input type="hidden" name="draft" value={actionData.draft} /> : null}
        <div hidden={step !== 0} className="stack">
          <h2 id={step === 0 ? "signup-title" : undefined}>{messages.growthStartsHere}</h2>
          <p className="modal-sub">
            Already have an account? <Link to="/login">Log in</Link>
          </p>
          <label className="field">
            <span>Email</span>
            <input
              name="email"
              type="email"
              autoComplete="email"
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              aria-invalid={Boolean(emailMessage)}
              aria-describedby="signup-email-error"
            />
            <span className="field-error" id="signup-email-error">
              {emailMessage}
            </span>
          </label>
          <label className="field">
            <span>Password</span>
            <PasswordInput
              name="password"
              autoComplete="new-password"
              value={password}
              onChange={(event) => {
                setPassword(event.target.value);
                setServerErrors((errors) => ({ ...errors, password: undefined }));
              }}
              aria-describedby="signup-password-error signup-password-rules"
              aria-invalid={Boolean(serverErrors.password?.[0])}
              maxLength={128}
            />
            <span className="field-error" id="signup-password-error">
              {serverErrors.password?.[0]}
            </span>
          </label>
          <PasswordChecklist password={password} id="signup-password-rules" />
          {actionData?.draft && step === 0 && !password ? <p className="muted small">Your password is kept. Type a new one to change it.</p> : null}
          {actionData?.formError && step === 0 ? (
            <p className="form-error" role="alert">
              {actionData.formError}
            </p>
          ) : null}
          {step === 0 ? (
            <button
              type="submit"
              name="intent"
              value="continue"
              className="button button-primary button-block"
              disabled={hydrated && !accountValid}
              onClick={goTo(1, accountValid)}
            >
              Continue
            </button>
          ) : null}
        </div>

        <div hidden={step !== 1} className="stack">
          <div className="step-head">
            {step === 1 ? (
              <button type="submit" name="intent" value="back" className="round-button" aria-label="Back" onClick={goTo(0, true)}>
                ←
              </button>
            ) : null}
            <h2 id={step === 1 ? "signup-title" : undefined}>Tell us about your website</h2>
          </div>
          <label className="field">
            <span>Website url</span>
            <input
              name="url"
              type="text"
              inputMode="url"
              autoComplete="url"
              placeholder="yourwebsite.com"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              aria-invalid={Boolean(urlMessage)}
            />
            <span className="field-error">{urlMessage}</span>
          </label>
          <label className="field">
            <span>Description</span>
            <textarea
              name="description"
              rows={3}
              placeholder="What is your website about?"
              value={description}
              onChange={(event) => setDescription(event.target.value)}
              aria-invalid={Boolean(descriptionMessage)}
            />
            <span className="field-error">{descriptionMessage}</span>
          </label>
          {actionData?.formError && step === 1 ? (
            <p className="form-error" role="alert">
              {actionData.formError}
            </p>
          ) : null}
          {step === 1 ? (
            <button
              type="submit"
              name="intent"
              value="create"
              className="button button-primary button-block"
              disabled={hydrated && (!siteValid || !accountValid || busy)}
              aria-busy={busy}
            >
              {busy ? <Spinner label="Creating your account" /> : null} Create Account
            </button>
          ) : null}
        </div>
      </Form>
      {step === 0 ? <OAuthButtons providers={loaderData.providers} /> : null}
      <p className="fine-print">
        By joining you agree to our terms of service and to occasional emails from us. Read our{" "}
        <Link to="/privacy">privacy policy</Link>.
      </p>
    </Modal>
  );
}
