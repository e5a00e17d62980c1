import { data, redirect, type ActionFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useSearchParams } from "@remix-run/react";
import { AddWebsiteDialog } from "~/components/add-website-dialog";
import { useSignedInShell } from "~/components/use-signed-in-shell";
import { pageForAnotherSite, safeRedirectPath } from "~/domain/redirects";
import { addWebsiteSchema } from "~/domain/validation";
import { processingDelay } from "~/lib/delay";
import { parseForm, readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { messages } from "~/domain/messages";
import { allow, RATE_LIMITS } from "~/services/rate-limit.server";
import { auditAfterResponse } from "~/services/audit.server";
import { lookUpIconLater } from "~/services/site-icons.server";
import { addSite, setActiveSite } from "~/services/sites.server";

export const meta: MetaFunction = () => [{ title: "Add a website - Backlink Market" }];

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const parsed = parseForm(formData, addWebsiteSchema);
  if (!parsed.ok) return data({ errors: parsed.errors, values: parsed.values, formError: null }, { status: 400 });
  if (!(await allow(context, RATE_LIMITS.addSitePerUser, auth.user.id))) {
    return data(
      { errors: {}, values: { url: parsed.value.url, description: parsed.value.description }, formError: messages.tooManyAttempts },
      { status: 429 },
    );
  }
  await processingDelay(context.env);
  const result = await addSite(context.db, { userId: auth.user.id, ...parsed.value, category: "blog" }, context.now());
  if (!result.ok) {
    return data({ errors: {}, values: { url: parsed.value.url, description: parsed.value.description }, formError: result.message }, { status: 409 });
  }
  await setActiveSite(context.db, auth.session.id, auth.user.id, result.siteId);
  // The same form sent again: the first post looks up the icon and runs the audit.
  if (!result.again) {
    lookUpIconLater(context, auth.user.id, result.siteId, parsed.value.url);
    auditAfterResponse(context, auth.user.id, result.siteId, parsed.value.url, "added");
  }
  throw redirect(pageForAnotherSite(new URL(request.url).searchParams.get("back")));
}

export default function NewSite() {
  const shell = useSignedInShell();
  const [searchParams] = useSearchParams();
  const closeTo = shell && shell.sites.length > 0 ? safeRedirectPath(searchParams.get("back")) : null;
  const actionData = useActionData<typeof action>();
  return <AddWebsiteDialog closeTo={closeTo} errors={actionData?.errors} values={actionData?.values} formError={actionData?.formError} />;
}
