/** The site-add form's server work: a new site with its listing for a signed-in owner, or the waitlist from the landing page. */
import { data, redirect } from "@remix-run/cloudflare";
import { messages } from "~/domain/messages";
import { siteAddSource, type SiteAddSource } from "~/domain/site-add";
import { siteAddSchema } from "~/domain/validation";
import type { AppContext } from "~/lib/context";
import { parseForm, readFormData, typedValues } from "~/lib/forms.server";
import { auditAfterResponse } from "~/services/audit.server";
import { getCurrentAuth, requireAuth } from "~/services/auth.server";
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
  const url = (new URL(request.url).searchParams.get("url") ?? "").slice(0, 2048);
  if (source === "market") await requireAuth(request, context);
  // A signed-in owner who typed a site on the landing page adds it to their account, not to the waitlist (which told
  // them the product was not open yet): the market's form, with the address typed.
  else if (await getCurrentAuth(request, context)) throw redirect(`/add-site?${new URLSearchParams({ source: "market", ...(url ? { url } : {}) })}`);
  return { source, url };
}

/** Adds the site: from the market, to the signed-in account with its listing; from the landing page, to the waitlist. */
export async function addSite(request: Request, context: AppContext) {
  const source = sourceOf(request);
  const formData = await readFormData(request);
  return source === "market" ? addToAccount(request, context, formData) : addToWaitlist(request, context, formData, source);
}

async function addToAccount(request: Request, context: AppContext, formData: FormData) {
  const parsed = parseForm(formData, siteAddSchema("market"));
  if (!parsed.ok) return data({ errors: parsed.errors, values: parsed.values, formError: null }, { status: 400 });
  const { url, category, description, connects } = parsed.value;
  const auth = await requireAuth(request, context);
  if (!(await allow(context, RATE_LIMITS.addSitePerUser, auth.user.id))) {
    return data({ errors: {}, values: typedValues(formData), formError: messages.tooManyAttempts }, { status: 429 });
  }
  const result = await addSiteWithListing(context.db, { userId: auth.user.id, url, category, description }, connects, context.now());
  if (!result.ok) return data({ errors: {}, values: typedValues(formData), formError: result.message }, { status: 409 });
  await setActiveSite(context.db, auth.session.id, auth.user.id, result.siteId);
  if (!result.existing) {
    lookUpIconLater(context, auth.user.id, result.siteId, url);
    auditAfterResponse(context, auth.user.id, result.siteId, url, "added");
  }
  throw redirect(`/market?notice=${result.verified ? "site-listed" : "site-listed-unverified"}`);
}

async function addToWaitlist(request: Request, context: AppContext, formData: FormData, source: Exclude<SiteAddSource, "market">) {
  const parsed = parseForm(formData, siteAddSchema(source));
  if (!parsed.ok) return data({ errors: parsed.errors, values: parsed.values, formError: null }, { status: 400 });
  if (!(await allow(context, RATE_LIMITS.waitlistPerAddress, clientAddress(request)))) {
    return data({ errors: {}, values: typedValues(formData), formError: messages.tooManyAttempts }, { status: 429 });
  }
  const { url, category, description } = parsed.value;
  const email = "email" in parsed.value ? parsed.value.email : undefined;
  await joinWaitlist(context.db, { url, email, category, description, source }, context.now());
  throw redirect("/newbeta");
}
