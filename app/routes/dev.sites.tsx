import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Wordmark } from "~/components/brand";
import { SANDBOX_CONTENT_TYPES } from "~/domain/web-sandbox";
import { changeSandbox, loadSandbox } from "./dev.sites.server";

export const meta: MetaFunction = () => [{ title: "Dev web sandbox - Backlink Market" }, { name: "robots", content: "noindex" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadSandbox(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => changeSandbox(request, context);

export default function DevSites() {
  const { on, published, draft, pages, requests } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const values = actionData?.values ?? {};
  return (
    <main className="mailbox stack-lg">
      <Wordmark to="/market" />
      <h1>Dev web sandbox</h1>
      <p className="muted">
        Publish pages of any host here. {on ? "This Worker answers" : "With DEV_WEB_SANDBOX on, the Worker answers"} every fetch of a user&apos;s
        address (verification, icons) from these pages instead of the internet, over http and https alike. Hosts not published here do not resolve.
        This page does not exist in production.
      </p>
      {!on ? (
        <p className="banner-warning" role="note">
          The sandbox is off for this Worker (DEV_WEB_SANDBOX), so pages published here are not used.
        </p>
      ) : null}
      {published ? (
        <p className="banner-success" role="status">
          Published {published}
        </p>
      ) : null}
      <Form method="post" className="card stack sandbox-form">
        <h2>Publish a page</h2>
        <label className="field">
          <span>Host</span>
          <input name="host" defaultValue={values.host ?? draft.host} placeholder="yoursite.com" required />
        </label>
        <label className="field">
          <span>Path</span>
          <input name="path" defaultValue={values.path ?? draft.path} placeholder="/" />
        </label>
        <label className="field">
          <span>Kind</span>
          <select name="contentType" defaultValue={values.contentType ?? SANDBOX_CONTENT_TYPES[0]!.id}>
            {SANDBOX_CONTENT_TYPES.map((type) => (
              <option key={type.id} value={type.id}>
                {type.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Body</span>
          <textarea name="body" rows={12} defaultValue={values.body ?? draft.body} className="textarea" />
        </label>
        {actionData?.error ? (
          <p className="form-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
        <button type="submit" name="intent" value="publish" className="button button-primary">
          Publish
        </button>
      </Form>
      <section className="card stack">
        <h2>Published pages</h2>
        {pages.length === 0 ? <p className="muted">Nothing published yet.</p> : null}
        {pages.length > 0 ? (
          <table className="sandbox-table">
            <thead>
              <tr>
                <th scope="col">Address</th>
                <th scope="col">Kind</th>
                <th scope="col">Size</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pages.map((page) => (
                <tr key={`${page.host}${page.path}`}>
                  <td>
                    {page.host}
                    {page.path}
                  </td>
                  <td>{page.contentType}</td>
                  <td>{page.size} B</td>
                  <td>
                    <Form method="post">
                      <input type="hidden" name="host" value={page.host} />
                      <input type="hidden" name="path" value={page.path} />
                      <button type="submit" name="intent" value="remove" className="button button-ghost button-small">
                        Remove
                      </button>
                    </Form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <section className="card stack">
        <h2>What the product fetched</h2>
        {requests.length === 0 ? <p className="muted">No fetches yet.</p> : null}
        {requests.length > 0 ? (
          <table className="sandbox-table" data-testid="sandbox-requests">
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">Request</th>
                <th scope="col">Answer</th>
              </tr>
            </thead>
            <tbody>
              {requests.map((entry) => (
                <tr key={entry.id}>
                  <td>{entry.at}</td>
                  <td>
                    {entry.method} {entry.url}
                  </td>
                  <td>{entry.status === 530 ? "530 (not published)" : entry.status}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </main>
  );
}
