import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { z } from "zod";
import { Wordmark } from "~/components/brand";
import { typedHost } from "~/domain/site-address";
import { requireDevTools } from "~/lib/dev-tools.server";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { isWebSandboxOn } from "~/lib/safe-fetch.server";
import { listSandboxPages, listSandboxRequests, publishSandboxPage, removeSandboxPage } from "~/lib/web-sandbox.server";
import { SANDBOX_CONTENT_TYPES } from "~/domain/web-sandbox";

export const meta: MetaFunction = () => [{ title: "Dev web sandbox - Backlink Market" }, { name: "robots", content: "noindex" }];

function homePageTemplate(host: string, tag: string) {
  return `<!doctype html>\n<html lang="en">\n<head>\n  <title>${host}</title>\n  ${tag}\n</head>\n<body>\n  <h1>${host}</h1>\n  <p>A page of the dev web sandbox.</p>\n</body>\n</html>\n`;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireDevTools(request, context.env);
  const url = new URL(request.url);
  const host = typedHost(url.searchParams.get("host") ?? "") ?? "";
  const tag = (url.searchParams.get("tag") ?? "").slice(0, 300);
  const [pages, requests] = await Promise.all([listSandboxPages(context.db), listSandboxRequests(context.db)]);
  return {
    on: isWebSandboxOn(context.env),
    published: url.searchParams.get("published"),
    draft: { host, path: "/", body: host && tag ? homePageTemplate(host, tag) : "" },
    pages: pages.map((page) => ({ host: page.host, path: page.path, contentType: page.contentType, size: page.body.length })),
    requests: requests.map((entry) => ({
      id: entry.id,
      method: entry.method,
      url: entry.url,
      status: entry.status,
      at: new Date(entry.at).toISOString().slice(11, 19),
    })),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireDevTools(request, context.env);
  const formData = await readFormData(request);
  const schema = z.discriminatedUnion("intent", [
    z.object({
      intent: z.literal("publish"),
      host: z
        .string({ required_error: "Enter a host, like yoursite.com." })
        .max(253)
        .transform((value, ctx) => {
          const host = typedHost(value);
          if (!host) ctx.addIssue({ code: "custom", message: "Enter a host, like yoursite.com." });
          return host ?? "";
        }),
      path: z
        .string()
        .max(2000)
        .default("/")
        .refine((value) => value.startsWith("/"), "A path starts with /."),
      contentType: z.enum(SANDBOX_CONTENT_TYPES.map((type) => type.id) as [string, ...string[]]),
      body: z.string().max(500_000, "A sandbox page holds at most 500 KB.").default(""),
    }),
    z.object({ intent: z.literal("remove"), host: z.string().max(253), path: z.string().max(2000) }),
  ]);
  const parsed = parseForm(formData, schema);
  if (!parsed.ok) {
    const error = firstError(parsed.errors, "host") ?? firstError(parsed.errors, "path") ?? firstError(parsed.errors, "body") ?? "Check the form.";
    return data({ error, values: parsed.values }, { status: 400 });
  }
  if (parsed.value.intent === "remove") {
    await removeSandboxPage(context.db, parsed.value.host, parsed.value.path);
    throw redirect("/dev/sites");
  }
  const { host, path, contentType, body } = parsed.value;
  await publishSandboxPage(context.db, { host, path, contentType, body }, context.now());
  // The host stays in the form, so the next page of the same site is one field away.
  throw redirect(`/dev/sites?published=${encodeURIComponent(`${host}${path}`)}&host=${encodeURIComponent(host)}`);
}

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
