import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { CopyButton } from "~/components/copy-button";
import { Spinner } from "~/components/spinner";
import { usePostAddress } from "~/components/use-post-address";
import { useTimeZone } from "~/components/use-time-zone";
import { formatShortDate } from "~/domain/dates";
import { messages } from "~/domain/messages";
import { checkOrRenewTag, loadVerifyPage } from "./_app.mysite.verify.server";

export const meta: MetaFunction = () => [{ title: "Verify your website - Backlink Market" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadVerifyPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => checkOrRenewTag(request, context);

export default function VerifySite() {
  const timeZone = useTimeZone();
  const page = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const postTo = usePostAddress();
  const checking = navigation.state !== "idle" && navigation.formData?.get("intent") === "check";
  // After a failure the button reads 'Check again', a verified site's failed re-check included.
  const failed = page.lastError !== null;
  return (
    <div className="verify stack-lg">
      <section className="card stack">
        <h2>Verify your website</h2>
        {page.verified ? (
          <p className="banner-success" role="note">
            <strong>Verified</strong>
            <span>
              {page.host} is verified{page.verifiedAt ? ` since ${formatShortDate(page.verifiedAt, page.now, timeZone)}` : ""}. Keep the tag on your
              home page: we check it about once a month.
            </span>
          </p>
        ) : (
          <p>Prove that {page.host} is yours: place this tag on its home page, then check. Verified sites can trade and appear in the market.</p>
        )}
        <ol className="steps">
          <li>
            <label htmlFor="verification-tag">Copy your tag</label>
            <div className="copy-row">
              <input id="verification-tag" className="tag-field" readOnly value={page.tag} onFocus={(event) => event.currentTarget.select()} />
              <CopyButton text={page.tag} />
            </div>
          </li>
          <li>
            Paste it inside <code>&lt;head&gt;</code> of your home page, <a href={page.homePage}>{page.homePage}</a>, before{" "}
            <code>&lt;/head&gt;</code>. A tag in the page's body does not count.
          </li>
          <li>
            <Form method="post" action={postTo} className="check-row">
              <input type="hidden" name="siteId" value={page.siteId} />
              <button type="submit" name="intent" value="check" className="button button-primary" disabled={checking} aria-busy={checking}>
                {checking ? <Spinner label="Checking" /> : null} {failed ? messages.checkAgain : page.verified ? "Check now" : "Check"}
              </button>
              {checking ? <span className="muted">Reading {page.homePage}…</span> : null}
            </Form>
          </li>
        </ol>
        {/* Each message is an alert of its own (inside a live region too, it was read twice). */}
        <div>
          {actionData?.error ? (
            <p className="form-error" role="alert">
              {actionData.error}
            </p>
          ) : page.lastError && !checking ? (
            <div className="check-result" role="alert">
              <strong>{page.lastError}</strong>
              {page.lastError === messages.tagNotFound ? (
                <span>We read {page.homePage} but its head does not hold the tag above. Save the page, clear any cache, then check again.</span>
              ) : null}
              {page.checkedAt ? <span className="muted small">Checked {formatShortDate(page.checkedAt, page.now, timeZone)}</span> : null}
            </div>
          ) : null}
        </div>
        {page.verified && !page.listed ? (
          <p className="muted">
            {page.host} is not in the market yet. <Link to="/mysite/settings">Choose a price in Settings</Link> to list it.
          </p>
        ) : null}
      </section>
      <section className="card stack">
        <h3>New tag</h3>
        <p className="muted">
          Your tag stays the same until you ask for a new one. A new tag replaces it: the old one stops counting, so update your home page too.
        </p>
        <Form method="post" action={postTo}>
          <input type="hidden" name="siteId" value={page.siteId} />
          <button type="submit" name="intent" value="new-tag" className="button button-outline">
            New tag
          </button>
        </Form>
      </section>
      {page.sandbox ? (
        <section className="card stack dev-note">
          <h3>Trying it offline</h3>
          <p className="muted">
            This is a development Worker: it reads websites from the local web sandbox instead of the internet.{" "}
            <a href={`/dev/sites?host=${encodeURIComponent(page.host)}&tag=${encodeURIComponent(page.tag)}`}>
              Publish a home page for {page.host} with your tag
            </a>
            , then check.
          </p>
        </section>
      ) : null}
    </div>
  );
}
