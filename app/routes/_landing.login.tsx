import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Modal } from "~/components/modal";
import { OAuthButtons } from "~/components/oauth-buttons";
import { PasswordField } from "~/components/password-input";
import { Spinner } from "~/components/spinner";
import { messages } from "~/domain/messages";
import { noticeNamed, pageAfterSignIn, safeRedirectPath } from "~/domain/redirects";
import { parseForm, readFormData } from "~/lib/forms.server";
import { logIn } from "~/services/accounts.server";
import { newSessionCookie, requireSignedOut } from "~/services/auth.server";
import { deviceTokenOf } from "~/services/known-devices.server";
import { configuredProviders } from "~/services/oauth.server";
import { clientAddress } from "~/services/rate-limit.server";
import { loginSchema } from "~/domain/validation";
import { publicPageMeta } from "~/lib/page-meta";

// Forms with credentials are never cached.
export const headers = () => ({ "Cache-Control": "no-store" });

export const meta: MetaFunction = () =>
  publicPageMeta("Log in - Backlink Market", "Log in to Backlink Market to trade content and backlinks with site owners like you.");

const NOTICES: Record<string, string> = {
  "password-changed": messages.passwordChanged,
  "oauth-failed": messages.oauthFailed,
  "oauth-unverified": messages.oauthEmailUnverified,
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireSignedOut(request, context);
  const params = new URL(request.url).searchParams;
  const back = safeRedirectPath(params.get("redirectTo"), "");
  return {
    email: (params.get("email") ?? "").slice(0, 254),
    redirectTo: back ? pageAfterSignIn(back) : null,
    notice: noticeNamed(NOTICES, params.get("notice")),
    providers: configuredProviders(context.env),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const parsed = parseForm(formData, loginSchema);
  if (!parsed.ok) {
    return data({ error: messages.incorrectCredentials, email: parsed.values.email ?? "" }, { status: 400 });
  }
  const result = await logIn(context, parsed.value, clientAddress(request), deviceTokenOf(request, context.env)).catch((error: unknown) => {
    console.error("login failed", error);
    return { ok: false as const, status: 503, message: messages.loginFailed };
  });
  if (!result.ok) {
    return data({ error: result.message, email: parsed.value.email }, { status: result.status });
  }
  throw redirect(pageAfterSignIn(parsed.value.redirectTo), {
    headers: { "Set-Cookie": await newSessionCookie(request, context, result.token, result.expiresAt) },
  });
}

export default function LoginModal() {
  const { email, redirectTo, notice, providers } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formAction?.startsWith("/login") === true;
  const [showError, setShowError] = useState(true);
  useEffect(() => setShowError(true), [actionData]);
  const hideError = () => setShowError(false);

  return (
    <Modal titleId="login-title" closeTo="/">
      <h2 id="login-title">{messages.growthStartsHere}</h2>
      <p className="modal-sub">
        New here? <Link to="/signup">Create an account</Link>
      </p>
      {notice ? <p className="notice">{notice}</p> : null}
      {/* No checks in the browser: whatever is typed is sent, and the server's message shows. */}
      <Form method="post" className="stack" replace noValidate>
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <label className="field">
          <span>Email</span>
          <input name="email" type="email" autoComplete="email" defaultValue={actionData?.email ?? email} onFocus={hideError} />
        </label>
        <PasswordField id="login-password" caption="Password" name="password" autoComplete="current-password" onFocus={hideError} />
        <Link to="/reset-password" className="text-link small">
          Forgot password?
        </Link>
        {actionData?.error && showError ? (
          <p className="form-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? <Spinner label="Logging in" /> : null} Log in
        </button>
      </Form>
      <OAuthButtons providers={providers} redirectTo={redirectTo} />
    </Modal>
  );
}
