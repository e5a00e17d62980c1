import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Modal } from "~/components/modal";
import { NewPasswordField } from "~/components/password-checklist";
import { Spinner } from "~/components/spinner";
import { messages } from "~/domain/messages";
import { resetPasswordSchema, resetRequestSchema } from "~/domain/validation";
import { isCommonPassword } from "~/lib/common-passwords.server";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { deviceTokenOf, rememberDevice } from "~/services/known-devices.server";
import { isResetTokenUsable, requestPasswordReset, resetPassword } from "~/services/password-reset.server";
import { clientAddress } from "~/services/rate-limit.server";
import { publicPageMeta } from "~/lib/page-meta";

// Forms with credentials are never cached.
export const headers = () => ({ "Cache-Control": "no-store" });

export const meta: MetaFunction = () =>
  publicPageMeta("Reset your password - Backlink Market", "Forgot your Backlink Market password? Get a link to set a new one by email.");

export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const token = params.get("token");
  if (token === null) return { mode: "request" as const, email: (params.get("email") ?? "").slice(0, 254) };
  const usable = token.length <= 200 && (await isResetTokenUsable(context, token));
  return { mode: usable ? ("choose" as const) : ("invalid" as const), token, email: "" };
}

type ResetActionData =
  | { intent: "request"; sent: true; message: string; email: string }
  | { intent: "request"; sent: false; error: string; email: string }
  | { intent: "reset"; error: string };

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  if (formData.get("intent") === "reset") {
    const parsed = parseForm(formData, resetPasswordSchema);
    if (!parsed.ok) {
      const error = firstError(parsed.errors, "token") ?? firstError(parsed.errors, "password") ?? messages.resetFailed;
      return data<ResetActionData>({ intent: "reset", error }, { status: 400 });
    }
    if (isCommonPassword(parsed.value.password)) {
      return data<ResetActionData>({ intent: "reset", error: messages.passwordTooCommon }, { status: 400 });
    }
    const userId = await resetPassword(context, parsed.value.token, parsed.value.password).catch((error: unknown) => {
      console.error("password reset failed", error);
      return "failed" as const;
    });
    if (userId === "failed") return data<ResetActionData>({ intent: "reset", error: messages.resetSaveFailed }, { status: 503 });
    if (!userId) return data<ResetActionData>({ intent: "reset", error: messages.resetLinkInvalid }, { status: 400 });
    // The reset forgot every browser of the account (a squatter's too); this one has just proved the address, so it
    // stays known: guesses from everywhere holding the account's sign-in ceiling must not keep the owner out now.
    await rememberDevice(context, deviceTokenOf(request, context.env), userId);
    throw redirect("/login?notice=password-changed");
  }

  const parsed = parseForm(formData, resetRequestSchema);
  const email = typeof formData.get("email") === "string" ? String(formData.get("email")).slice(0, 254) : "";
  if (!parsed.ok) {
    return data<ResetActionData>({ intent: "request", sent: false, error: messages.resetFailed, email }, { status: 400 });
  }
  const result = await requestPasswordReset(context, parsed.value.email, clientAddress(request), deviceTokenOf(request, context.env)).catch(
    (error: unknown) => {
      console.error("reset request failed", error);
      return { ok: false as const, status: 503, message: messages.resetFailed };
    },
  );
  if (!result.ok) {
    return data<ResetActionData>({ intent: "request", sent: false, error: result.message, email }, { status: result.status });
  }
  return data<ResetActionData>({ intent: "request", sent: true, message: result.message, email });
}

function RequestForm({ initialEmail }: { initialEmail: string }) {
  const actionData = useActionData<typeof action>() as ResetActionData | undefined;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const [outcomeVisible, setOutcomeVisible] = useState(true);
  useEffect(() => setOutcomeVisible(true), [actionData]);
  const request = actionData?.intent === "request" ? actionData : undefined;

  return (
    // No checks in the browser: whatever is typed is sent, and the server's message shows.
    <Form method="post" className="stack" replace noValidate>
      <input type="hidden" name="intent" value="request" />
      <label className="field">
        <span>Email</span>
        <input
          name="email"
          type="email"
          autoComplete="email"
          defaultValue={request?.email ?? initialEmail}
          onChange={() => setOutcomeVisible(false)}
        />
      </label>
      {/* On the page before it is filled, so a screen reader says the notice when it comes (with JavaScript). */}
      <div className={request?.sent && outcomeVisible ? "notice" : undefined} role="status">
        {request?.sent && outcomeVisible ? (
          <>
            <p>{request.message}</p>
            <p>
              <strong>{messages.checkSpam}</strong>
            </p>
          </>
        ) : null}
      </div>
      {request && !request.sent && outcomeVisible ? (
        <p className="form-error" role="alert">
          {request.error}
        </p>
      ) : null}
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? <Spinner label="Sending" /> : null} Send reset link
      </button>
    </Form>
  );
}

function ChooseForm({ token }: { token: string }) {
  const actionData = useActionData<typeof action>() as ResetActionData | undefined;
  const navigation = useNavigation();
  return (
    <Form method="post" className="stack" noValidate>
      <input type="hidden" name="intent" value="reset" />
      <input type="hidden" name="token" value={token} />
      <NewPasswordField name="password" rulesId="reset-password-rules" />
      {actionData?.intent === "reset" ? (
        <p className="form-error" role="alert">
          {actionData.error}
        </p>
      ) : null}
      <button type="submit" className="button button-primary button-block" disabled={navigation.state === "submitting"}>
        Set new password
      </button>
    </Form>
  );
}

export default function ResetModal() {
  const loaderData = useLoaderData<typeof loader>();
  return (
    <Modal titleId="reset-title" closeTo="/">
      <h2 id="reset-title">{loaderData.mode === "request" ? "Reset your password" : "Choose a new password"}</h2>
      {loaderData.mode === "request" ? <RequestForm initialEmail={loaderData.email} /> : null}
      {loaderData.mode === "choose" && loaderData.token ? <ChooseForm token={loaderData.token} /> : null}
      {loaderData.mode === "invalid" ? (
        <p className="form-error" role="alert">
          {messages.resetLinkInvalid} <Link to="/reset-password">Ask for a new link</Link>
        </p>
      ) : null}
      <p className="modal-sub">
        Remembered it? <Link to="/login">Back to login</Link>
      </p>
    </Modal>
  );
}
