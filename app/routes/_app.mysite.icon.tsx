import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { safeRedirectPath, withNotice } from "~/domain/redirects";
import { parseForm, readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { loadSiteOfForm } from "~/services/layout.server";
import { updateSiteIcon } from "~/services/site-icons.server";

/** The site header's icon edit control: reads the home page and stores the icon it names. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  const parsed = parseForm(formData, z.object({ redirectTo: z.string().max(2048).optional() }));
  const back = safeRedirectPath(parsed.ok ? parsed.value.redirectTo : null, "/mysite");
  // The site the page showed, even if another tab has switched the active site since.
  const site = await loadSiteOfForm(context, auth, formData);
  if (!site) throw redirect("/sites/new");
  const result = await updateSiteIcon(context, auth.user.id, site);
  throw redirect(withNotice(back, result.ok ? `icon-${result.outcome}` : result.limit === "icon" ? "icon-limited" : "site-fetches-limited"));
}

export function loader() {
  throw redirect("/mysite");
}
