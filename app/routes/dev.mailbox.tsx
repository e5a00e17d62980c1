import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { requireDevTools } from "~/lib/dev-tools.server";
import { listMailbox } from "~/services/email.server";

export const meta: MetaFunction = () => [{ title: "Dev mailbox - Backlink Market" }, { name: "robots", content: "noindex" }];

/**
 * Development only: the email outbox as a mailbox, so reset links work with no email account. It holds live reset
 * links, so besides a non-production ENVIRONMENT it also needs a local address: a deploy that forgot the
 * variable still does not publish it.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  requireDevTools(request, context.env);
  const emails = await listMailbox(context.db, context.env);
  return {
    emails: emails.map((e) => ({
      id: e.id,
      to: e.toAddress,
      subject: e.subject,
      kind: e.kind,
      text: e.rendered.text,
      html: e.rendered.html,
      headers: e.rendered.headers,
      createdAt: e.createdAt,
      status: e.status,
      attempts: e.attempts,
      lastError: e.lastError,
      transport: e.transport,
    })),
  };
}

function linkify(text: string) {
  return text.split(/(https?:\/\/\S+)/g).map((part, index) =>
    /^https?:\/\//.test(part) ? (
      <a key={index} href={part}>
        {part}
      </a>
    ) : (
      part
    ),
  );
}

export default function DevMailbox() {
  const { emails } = useLoaderData<typeof loader>();
  return (
    <main className="mailbox">
      <h1>Dev mailbox</h1>
      <p className="muted">Every email the product sent, newest first, with both of its parts. This page does not exist in production.</p>
      {emails.length === 0 ? <p>No email yet.</p> : null}
      {emails.map((email) => (
        <article key={email.id} className="mail" data-testid="mail">
          <header>
            <strong>{email.subject}</strong>
            <span className="muted">
              to {email.to} · {new Date(email.createdAt).toISOString().replace("T", " ").slice(0, 19)} UTC · {email.kind}
            </span>
            <span className="mail-status" data-testid="mail-status">
              {email.status}
              {email.transport ? ` via ${email.transport}` : ""} · {email.attempts} {email.attempts === 1 ? "attempt" : "attempts"}
              {email.lastError ? ` · last error: ${email.lastError}` : ""}
            </span>
            {Object.keys(email.headers).length > 0 ? (
              <span className="muted small">
                {Object.entries(email.headers)
                  .map(([name, value]) => `${name}: ${value}`)
                  .join(" · ")}
              </span>
            ) : null}
          </header>
          <h2 className="small">Text part</h2>
          <pre>{linkify(email.text)}</pre>
          <details>
            <summary>HTML part</summary>
            <iframe className="mail-html" title={`HTML part of "${email.subject}"`} sandbox="" srcDoc={email.html} />
          </details>
        </article>
      ))}
    </main>
  );
}
