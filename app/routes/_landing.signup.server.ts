/** The sign-up form's post: step 0 alone (kept as a draft without JavaScript), or the whole form. */
import { data, redirect } from "@remix-run/cloudflare";
import { messages } from "~/domain/messages";
import type { SignupAnswer } from "~/domain/signup";
import { signupAccountSchema, signupSchema } from "~/domain/validation";
import { isCommonPassword } from "~/lib/common-passwords.server";
import type { AppContext } from "~/lib/context";
import { parseForm, readFormData, type FieldErrors } from "~/lib/forms.server";
import {
  readSignupDraft,
  retireSignupDraft,
  saveSignupDraft,
  signInWithUsedDraft,
  signUp,
  updateSignupDraftEmail,
  type Refused,
} from "~/services/accounts.server";
import { newSessionCookie } from "~/services/auth.server";
import { deviceTokenOf } from "~/services/known-devices.server";
import { allow, clientAddress, RATE_LIMITS } from "~/services/rate-limit.server";

const ACCOUNT_FIELDS = ["email", "password"];
const COMMON_PASSWORD: FieldErrors = { password: [messages.passwordTooCommon] };

/** What the form sent, each field as text (a file or a missing field is empty). */
const textOf = (formData: FormData) => (name: string) => {
  const value = formData.get(name);
  return typeof value === "string" ? value.slice(0, 10_000) : "";
};

export async function answerSignup(request: Request, context: AppContext) {
  const formData = await readFormData(request);
  try {
    return await answerSignupForm(request, context, formData);
  } catch (error) {
    if (error instanceof Response) throw error;
    // The database or a service failed: the specification's message, on the step that was sent, with what was typed.
    console.error("sign-up failed", error);
    const text = textOf(formData);
    const values = { email: text("email"), password: "", url: text("url"), description: text("description") };
    const step = formData.get("intent") === "continue" ? 0 : 1;
    return data<SignupAnswer>({ step, values, errors: {}, formError: messages.signupFailed, draft: text("draft") || undefined }, { status: 503 });
  }
}

async function answerSignupForm(request: Request, context: AppContext, formData: FormData) {
  const text = textOf(formData);
  // Without JavaScript the steps are separate posts: step 0 is kept on the server as a draft (the password
  // hashed) and step 1 sends its token. With JavaScript the steps are one post with everything.
  const values = { email: text("email"), password: text("password"), url: text("url"), description: text("description") };
  const withoutPassword = { ...values, password: "" };
  const reply = (body: SignupAnswer, status = 200) => data(body, { status });
  const intent = formData.get("intent");
  // A refused sign-up: a taken email goes back to its field on step 0 (a kept draft keeps the password), anything
  // else shows on step 1.
  const refused = (result: Refused, draft?: string) =>
    result.field === "email"
      ? reply({ step: 0, values: withoutPassword, errors: { email: [result.message] }, draft }, result.status)
      : reply({ step: 1, values: withoutPassword, errors: {}, formError: result.message, draft }, result.status >= 500 ? 500 : result.status);

  const draftToken = text("draft");
  // Back to step 0 keeps the draft, so Continue does not ask for the password again.
  if (intent === "back") return reply({ step: 0, values: withoutPassword, errors: {}, draft: draftToken || undefined });
  // Continue over a kept draft, the password field left empty as the page asked: only the email is checked (a
  // refused one keeps the draft, not "At least 8 characters" under a password the page said was kept).
  if (intent === "continue" && draftToken && !values.password) {
    const draft = await readSignupDraft(context, draftToken);
    if (!draft) return reply({ step: 0, values: withoutPassword, errors: {}, formError: messages.signupDraftExpired }, 400);
    const account = parseForm(formData, signupAccountSchema.pick({ email: true }));
    if (!account.ok) return reply({ step: 0, values: withoutPassword, errors: account.errors, draft: draftToken }, 400);
    if (account.value.email !== draft.email) await updateSignupDraftEmail(context, draftToken, account.value.email);
    return reply({ step: 1, values: withoutPassword, errors: {}, draft: draftToken });
  }
  if (intent === "continue") {
    const parsed = parseForm(formData, signupAccountSchema);
    if (!parsed.ok) return reply({ step: 0, values: withoutPassword, errors: parsed.errors }, 400);
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
    // The email as the page has it now: with JavaScript, going back to step 0 and on again stays in the browser, so
    // an email changed there reaches the server only with this post.
    const account = parseForm(formData, signupAccountSchema.pick({ email: true }));
    if (!account.ok) return reply({ step: 0, values: withoutPassword, errors: account.errors, draft: draftToken }, 400);
    const email = account.value.email;
    if (email !== draft.email) await updateSignupDraftEmail(context, draftToken, email);
    const site = parseForm(formData, signupSchema.pick({ url: true, description: true }));
    if (!site.ok) return reply({ step: 1, values: withoutPassword, errors: site.errors, draft: draftToken }, 400);
    const signedUp = await signUp(
      context,
      { email, password: { hash: draft.passwordHash }, ...site.value },
      clientAddress(request),
      deviceTokenOf(request, context.env),
    );
    const result = !signedUp.ok && signedUp.status === 409 ? (await signInWithUsedDraft(context, { ...draft, email })) ?? signedUp : signedUp;
    if (!result.ok) return refused(result, draftToken);
    await retireSignupDraft(context, draftToken);
    throw redirect("/market", { headers: { "Set-Cookie": await newSessionCookie(request, context, result.token, result.expiresAt) } });
  }

  const parsed = parseForm(formData, signupSchema);
  if (!parsed.ok) {
    const accountInvalid = ACCOUNT_FIELDS.some((field) => parsed.errors[field]);
    // Passwords are never sent back: the field keeps what was typed in the page that posted it.
    return reply({ step: accountInvalid ? 0 : 1, values: withoutPassword, errors: parsed.errors }, 400);
  }
  if (isCommonPassword(parsed.value.password)) return reply({ step: 0, values: withoutPassword, errors: COMMON_PASSWORD }, 400);
  const { password, ...rest } = parsed.value;
  const result = await signUp(context, { ...rest, password: { typed: password } }, clientAddress(request), deviceTokenOf(request, context.env));
  if (!result.ok) return refused(result);
  throw redirect("/market", { headers: { "Set-Cookie": await newSessionCookie(request, context, result.token, result.expiresAt) } });
}
