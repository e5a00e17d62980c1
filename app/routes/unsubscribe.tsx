import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Footer } from "~/components/footer";
import { PublicHeader } from "~/components/public-header";
import { readFormData } from "~/lib/forms.server";
import { accountOfUnsubscribeToken, setNotificationEmailsByToken } from "~/services/email-preferences.server";

export const meta: MetaFunction = () => [{ title: "Email settings - Backlink Market" }, { name: "robots", content: "noindex" }];

/** The page behind an email's unsubscribe link: it asks first (mail scanners open links), then a button decides. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get("token");
  const account = await accountOfUnsubscribeToken(context.db, token);
  if (!account || !token) return data({ account: null, token: null, done: null }, { status: 404 });
  const done = url.searchParams.get("done");
  return { account, token, done: done === "off" || done === "on" ? done : null };
}

/**
 * A button on the page (off, or on again), or a mail provider's one-click unsubscribe (RFC 8058: a POST of
 * `List-Unsubscribe=One-Click` to the link itself, with no cookie and no page).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const token = new URL(request.url).searchParams.get("token") ?? String(form.get("token") ?? "");
  if (form.get("List-Unsubscribe") === "One-Click") {
    const done = await setNotificationEmailsByToken(context.db, token, false);
    return new Response(done ? "Unsubscribed" : "Not found", { status: done ? 200 : 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  const on = form.get("intent") === "resubscribe";
  if (!(await setNotificationEmailsByToken(context.db, token, on))) return data({ error: "This link is not valid." }, { status: 404 });
  throw redirect(`/unsubscribe?token=${encodeURIComponent(token)}&done=${on ? "on" : "off"}`);
}

export default function Unsubscribe() {
  const loaded = useLoaderData<typeof loader>();
  // A refused change (the link is not valid any more) shows as such: with JavaScript the page's data is not loaded
  // again after a refusal.
  const refused = useActionData<{ error?: string }>();
  const { account, done } = loaded;
  const token = refused?.error ? null : loaded.token;
  const busy = useNavigation().state !== "idle";
  return (
    <div className="page">
      <PublicHeader />
      <main className="form-page" id="main">
        <section className="card stack" aria-labelledby="unsubscribe-title">
          <h1 id="unsubscribe-title">Email settings</h1>
          {!account || !token ? (
            <p className="form-error" role="alert">
              This link is not valid. You can change your email settings in <Link to="/mysite/settings">Settings</Link>.
            </p>
          ) : (
            <>
              {done ? (
                <p className="notice-banner success" role="status">
                  {done === "off" ? "Done: you will not get notification emails any more." : "Done: notification emails are on again."}
                </p>
              ) : null}
              <p>
                {account.on ? (
                  <>
                    Stop emails about offers, messages and your site&apos;s verification to <strong>{account.email}</strong>?
                  </>
                ) : (
                  <>
                    Notification emails are off for <strong>{account.email}</strong>.
                  </>
                )}{" "}
                Receipts and security emails (password resets and changes) always come.
              </p>
              <Form method="post" action={`/unsubscribe?token=${token}`}>
                <button
                  type="submit"
                  name="intent"
                  value={account.on ? "unsubscribe" : "resubscribe"}
                  className="button button-primary"
                  disabled={busy}
                >
                  {account.on ? "Turn off notification emails" : "Turn notification emails back on"}
                </button>
              </Form>
            </>
          )}
        </section>
      </main>
      <Footer />
    </div>
  );
}
