/** The site-add form's server work: a new site with its listing for a signed-in owner, or the waitlist from the landing page. */
import { data, redirect } from "@remix-run/cloudflare";
import { messages } from "~/domain/messages";
import { siteAddSource } from "~/domain/site-add";
import { siteAddSchema } from "~/domain/validation";
import type { AppContext } from "~/lib/context";
import { parseForm, readFormData, typedValues } from "~/lib/forms.server";
import { auditAfterResponse } from "~/services/audit.server";
import { requireAuth } from "~/services/auth.server";
import { addSiteWithListing } from "~/services/listings.server";
import { allow, clientAddress, RATE_LIMITS } from "~/services/rate-limit.server";
import { lookUpIconLater } from "~/services/site-icons.server";
import { setActiveSite } from "~/services/sites.server";
import { joinWaitlist } from "~/services/waitlist.server";

function sourceOf(request: Request) {
  return siteAddSource(new URL(request.url).searchParams.get("source"));
}

export async function loadSiteAdd(request: Request, context: AppContext) {
  const source = sourceOf(request);
  if (source === "market") await requireAuth(request, context);
  const url = (new URL(request.url).searchParams.get("url") ?? "").slice(0, 2048);
  return { source, url };
}

/** Adds the site: from the market, to the signed-in account with its listing; from the landing page, to the waitlist. */
export async function addSite(request: Request, context: AppContext) {
  const source = sourceOf(request);
  const formData = await readFormData(request);
  const parsed = parseForm(formData, siteAddSchema(source));
  if (!parsed.ok) return data({ errors: parsed.errors, values: parsed.values, formError: null }, { status: 400 });
  const value = parsed.value as { url: string; category: string; description: string; email?: string; connects?: number };
  const now = context.now();

  if (source === "market") {
    const auth = await requireAuth(request, context);
    if (!(await allow(context, RATE_LIMITS.addSitePerUser, auth.user.id))) {
      return data({ errors: {}, values: typedValues(formData), formError: messages.tooManyAttempts }, { status: 429 });
    }
    const result = await addSiteWithListing(
      context.db,
      { userId: auth.user.id, url: value.url, category: value.category, description: value.description },
      value.connects ?? 10,
      now,
    );
    if (!result.ok) return data({ errors: {}, values: typedValues(formData), formError: result.message }, { status: 409 });
    await setActiveSite(context.db, auth.session.id, auth.user.id, result.siteId);
    lookUpIconLater(context, auth.user.id, result.siteId, value.url);
    auditAfterResponse(context, auth.user.id, result.siteId, value.url, "added");
    throw redirect("/market");
  }

  if (!(await allow(context, RATE_LIMITS.waitlistPerAddress, clientAddress(request)))) {
    return data({ errors: {}, values: typedValues(formData), formError: messages.tooManyAttempts }, { status: 429 });
  }
  await joinWaitlist(context.db, { url: value.url, email: value.email, category: value.category, description: value.description, source }, now);
  throw redirect("/newbeta");
}
