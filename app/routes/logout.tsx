import { redirect, type ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { safeRedirectPath } from "~/domain/redirects";
import { parseForm, readFormData } from "~/lib/forms.server";
import { signOut } from "~/services/auth.server";

// Where to go once signed out: the landing page, or a page of this site the form names (a confirmation link's log-in).
const schema = z.object({ redirectTo: z.string().max(2048).optional().catch(undefined) });

export async function action({ request, context }: ActionFunctionArgs) {
  const parsed = parseForm(await readFormData(request), schema);
  const to = parsed.ok ? safeRedirectPath(parsed.value.redirectTo, "/") : "/";
  throw redirect(to, { headers: await signOut(request, context) });
}

export function loader() {
  throw redirect("/");
}
