import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type MouseEvent } from "react";
import { Modal } from "~/components/modal";
import { OAuthButtons } from "~/components/oauth-buttons";
import { SignupAccountStep, SignupFinePrint, SignupSeeYouSoon, SignupWebsiteStep } from "~/components/signup-steps";
import { useFieldChecks, useFormValues } from "~/components/use-field-checks";
import { useHydrated } from "~/components/use-hydrated";
import { signupAccountProblems, websiteProblems } from "~/domain/form-rules";
import type { SignupStep } from "~/domain/signup";
import type { FieldErrors } from "~/domain/validation";
import { requireSignedOut } from "~/services/auth.server";
import { configuredProviders } from "~/services/oauth.server";
import { answerSignup } from "./_landing.signup.server";
import { publicPageMeta } from "~/lib/page-meta";

// Forms with credentials are never cached.
export const headers = () => ({ "Cache-Control": "no-store" });

export const meta: MetaFunction = () =>
  publicPageMeta(
    "Join - Backlink Market",
    "Join Backlink Market: list your site, get an authority score and trade content and backlinks with related sites.",
  );

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

export async function action({ request, context }: ActionFunctionArgs) {
  return answerSignup(request, context);
}

export default function SignupModal() {
  const loaderData = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const initial = actionData?.values ?? { ...loaderData.prefill, password: "" };
  const [step, setStep] = useState<SignupStep>(actionData?.step ?? loaderData.step);
  const [serverErrors, setServerErrors] = useState<FieldErrors>(actionData?.errors ?? {});
  // On a new step the pressed button is gone and the field that had focus hidden: the step's first field takes it.
  const shownStep = useRef(step);
  useEffect(() => {
    if (shownStep.current === step) return;
    shownStep.current = step;
    document.getElementById(step === 1 ? "signup-url" : "signup-email")?.focus();
  }, [step]);
  useEffect(() => {
    if (!actionData) return;
    setStep(actionData.step);
    setServerErrors(actionData.errors);
  }, [actionData]);
  const form = useFormValues(initial);
  const accountProblems = signupAccountProblems(form.values);
  // A password kept on the server (step 0 was posted before the page's scripts ran) need not be typed again.
  if (actionData?.draft && !form.values.password) delete accountProblems.password;
  const checks = useFieldChecks({ ...accountProblems, ...websiteProblems(form.values) }, serverErrors, actionData);
  const accountValid = Object.keys(accountProblems).length === 0;
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "create";

  const goTo = (target: SignupStep, allowed: boolean) => (event: MouseEvent<HTMLButtonElement>) => {
    if (!hydrated) return; // without JavaScript the server moves between steps
    event.preventDefault();
    if (allowed) {
      setServerErrors({});
      setStep(target);
    }
  };
  // The server's message is about what was sent: a field's goes once it is edited (its live check follows).
  const edited = (event: FormEvent<HTMLFormElement>) => {
    form.read();
    const { name } = event.target as HTMLInputElement;
    setServerErrors((errors) => (errors[name] ? { ...errors, [name]: undefined } : errors));
  };
  const ignoreWhileBusy = (event: FormEvent) => {
    if (busy) event.preventDefault();
  };

  if (step === 2) return <SignupSeeYouSoon />;

  return (
    <Modal titleId="signup-title" closeTo="/" className="signup-modal">
      <Form ref={form.form} method="post" className="stack" onSubmit={ignoreWhileBusy} onChange={edited} onBlur={checks.formEvents.onBlur} noValidate>
        {actionData?.draft ? <input type="hidden" name="draft" value={actionData.draft} /> : null}
        <SignupAccountStep
          current={step === 0}
          defaultEmail={initial.email}
          password={form.values.password ?? ""}
          passwordError={serverErrors.password?.[0]}
          passwordKept={Boolean(actionData?.draft)}
          checks={checks}
          missing={Object.keys(accountProblems)}
          formError={actionData?.formError}
          onContinue={goTo(1, accountValid)}
        />
        <SignupWebsiteStep
          current={step === 1}
          defaults={initial}
          checks={checks}
          busy={busy}
          formError={actionData?.formError}
          onBack={goTo(0, true)}
        />
      </Form>
      {step === 0 ? <OAuthButtons providers={loaderData.providers} /> : null}
      <SignupFinePrint />
    </Modal>
  );
}
