/** The dev web sandbox's server work (development only): its pages and the requests the product made, publishing and removing. */
import { data, redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { typedHost } from "~/domain/site-address";
import { SANDBOX_CONTENT_TYPES } from "~/domain/web-sandbox";
import type { AppContext } from "~/lib/context";
import { requireDevTools } from "~/lib/dev-tools.server";
import { firstError, parseForm, readFormData } from "~/lib/forms.server";
import { isWebSandboxOn } from "~/lib/safe-fetch.server";
import { listSandboxPages, listSandboxRequests, publishSandboxPage, removeSandboxPage } from "~/lib/web-sandbox.server";

/** A home page for `host` holding the verification `tag`, ready to publish. */
function homePageTemplate(host: string, tag: string) {
  return `<!doctype html>\n<html lang="en">\n<head>\n  <title>${host}</title>\n  ${tag}\n</head>\n<body>\n  <h1>${host}</h1>\n  <p>A page of the dev web sandbox.</p>\n</body>\n</html>\n`;
}

export async function loadSandbox(request: Request, context: AppContext) {
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

/** Publishes a page at a host and path, or removes one. */
export async function changeSandbox(request: Request, context: AppContext) {
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
