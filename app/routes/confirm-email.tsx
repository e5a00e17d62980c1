import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { Wordmark } from "~/components/brand";
import { messages } from "~/domain/messages";
import { parseForm, readFormData } from "~/lib/forms.server";
import { getCurrentAuth, requireAuth } from "~/services/auth.server";
import { confirmationAccount, confirmEmail, isEmailConfirmed, resendConfirmation } from "~/services/email-confirmation.server";
import { SkipLink } from "~/components/skip-link";

export const meta: MetaFunction = () => [{ title: "Confirm your email - Backlink Market" }, { name: "robots", content: "noindex" }];

// The page holds a one-time link; nothing of it is cached.
export const headers = () => ({ "Cache-Control": "no-store" });

/** Where a signed-out browser logs in, to come back to the link. */
const logInFor = (token: string) => `/login?redirectTo=${encodeURIComponent(`/confirm-email?token=${token}`)}`;

/**
 * The emailed link opens this page; confirming is a button (a post), so link scanners that open mail do not, and it
 * confirms only for a browser signed in to the link's account (see `confirmEmail`).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = (new URL(request.url).searchParams.get("token") ?? "").slice(0, 200);
  const [account, auth] = await Promise.all([token ? confirmationAccount(context, token) : null, getCurrentAuth(request, context)]);
  const link = !account ? null : !auth ? "log-in" : auth.user.id === account ? "confirm" : "other-account";
  return { token: account ? token : null, link, signedIn: Boolean(auth), confirmed: auth?.user.emailVerified ?? false };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const parsed = parseForm(
    await readFormData(request),
    z.discriminatedUnion("intent", [
      z.object({ intent: z.literal("confirm"), token: z.string().max(200) }),
      z.object({ intent: z.literal("resend") }),
    ]),
  );
  if (!parsed.ok) return data({ error: messages.confirmationLinkInvalid }, { status: 400 });
  if (parsed.value.intent === "resend") {
    const auth = await requireAuth(request, context);
    const outcome = await resendConfirmation(context, auth);
    throw redirect(`/mysite?notice=${outcome === "sent" ? "confirmation-sent" : outcome === "limited" ? "confirmation-limited" : "email-confirmed"}`);
  }
  const auth = await getCurrentAuth(request, context);
  // Signed out since the page opened: log in, and come back to the link.
  if (!auth) throw redirect(logInFor(parsed.value.token));
  if (!(await confirmEmail(context, parsed.value.token, auth.user.id))) {
    // Confirmed meanwhile (the button pressed twice, the link confirmed in another tab): done, as the first answer said.
    if (await isEmailConfirmed(context.db, auth.user.id)) throw redirect("/mysite?notice=email-confirmed");
    return data({ error: messages.confirmationLinkInvalid }, { status: 400 });
  }
  throw redirect("/mysite?notice=email-confirmed");
}

export default function ConfirmEmail() {
  const loaded = useLoaderData<typeof loader>();
  // A refused confirmation (the link used up or expired since the page opened) shows as an unusable link: with
  // JavaScript the page's data is not loaded again after a refusal, so the answer itself says so.
  const refused = useActionData<typeof action>();
  const { signedIn, confirmed, link } = loaded;
  const token = refused ? null : loaded.token;
  return (
    <div className="page centered-page">
      <SkipLink />
      <header className="public-header">
        <Wordmark />
      </header>
      <main className="thanks stack" id="main">
        <h1>Confirm your email</h1>
        {token && link === "log-in" ? (
          <>
            <p>Log in to the account this address signed up for, then confirm it here.</p>
            <Link to={logInFor(token)} className="button button-primary">
              Log in to confirm
            </Link>
          </>
        ) : token && link === "other-account" ? (
          <>
            <p className="form-error" role="alert">
              This link confirms the email of another account. Log out, then log in to that account to confirm it.
            </p>
            <Form method="post" action="/logout">
              <input type="hidden" name="redirectTo" value={logInFor(token)} />
              <button type="submit" className="button button-primary">
                Log out and log in to that account
              </button>
            </Form>
          </>
        ) : token ? (
          <Form method="post" className="stack">
            <p>One click proves this address is yours.</p>
            <input type="hidden" name="token" value={token} />
            <button type="submit" name="intent" value="confirm" className="button button-primary">
              Confirm my email
            </button>
          </Form>
        ) : confirmed ? (
          <p>Your email address is already confirmed.</p>
        ) : (
          <>
            <p className="form-error" role="alert">
              {messages.confirmationLinkInvalid}
            </p>
            {signedIn ? (
              <Form method="post">
                <button type="submit" name="intent" value="resend" className="button button-primary">
                  Send me a new link
                </button>
              </Form>
            ) : (
              <Link to={`/login?redirectTo=${encodeURIComponent("/confirm-email")}`} className="button button-primary">
                Log in to get a new link
              </Link>
            )}
          </>
        )}
      </main>
    </div>
  );
}
