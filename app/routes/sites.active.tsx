import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { pageForAnotherSite } from "~/domain/redirects";
import { parseForm, readFormData } from "~/lib/forms.server";
import { requireAuth } from "~/services/auth.server";
import { setActiveSite } from "~/services/sites.server";

// A way back that is too long (a shared link's address) or sent twice goes to the market; the switch still happens.
const schema = z.object({ siteId: z.string().max(100), redirectTo: z.string().max(2048).optional().catch(undefined) });

/** Switches the active site of the session; only to a site the user owns. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAuth(request, context);
  const parsed = parseForm(await readFormData(request), schema);
  if (!parsed.ok) throw new Response("Choose one of your websites.", { status: 400 });
  if (!(await setActiveSite(context.db, auth.session.id, auth.user.id, parsed.value.siteId))) {
    throw new Response("That website is not one of yours.", { status: 403 });
  }
  throw redirect(pageForAnotherSite(parsed.value.redirectTo));
}

export function loader() {
  throw redirect("/market");
}
