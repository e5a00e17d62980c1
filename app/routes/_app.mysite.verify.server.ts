/** The verification page's server work: the active site's tag and last check, checking the home page, a new tag. */
import { data, redirect } from "@remix-run/cloudflare";
import { z } from "zod";
import { homePageUrl, typedHost } from "~/domain/site-address";
import { verificationTag } from "~/domain/verification";
import type { AppContext } from "~/lib/context";
import { parseForm, readFormData } from "~/lib/forms.server";
import { isWebSandboxOn } from "~/lib/safe-fetch.server";
import { requireAuth } from "~/services/auth.server";
import { activateSiteOnHost, loadActiveSite, loadSiteOfForm } from "~/services/layout.server";
import { getListingOf } from "~/services/sites.server";
import { allow, RATE_LIMITS } from "~/services/rate-limit.server";
import { messages } from "~/domain/messages";
import { checkSiteVerification, renewVerificationToken } from "~/services/verification.server";

export async function loadVerifyPage(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  // A link from an email about one of the user's sites (`?site={host}`) opens that site's page, made the active site;
  // the page's own address follows, so the header and the page read the same site. A host the user has no site on
  // (removed since the email) changes nothing, and the page says so.
  const host = new URL(request.url).searchParams.get("site");
  if (host !== null) {
    throw redirect((await activateSiteOnHost(context, auth, host)) ? "/mysite/verify" : "/mysite/verify?notice=site-not-yours");
  }
  const site = await loadActiveSite(context, auth);
  if (!site) throw redirect("/sites/new");
  const listing = await getListingOf(context.db, site.id);
  return {
    now: context.now(),
    siteId: site.id,
    host: site.host,
    homePage: homePageUrl(typedHost(site.url) ?? site.host),
    tag: verificationTag(site.verificationToken),
    verified: site.verified,
    verifiedAt: site.verifiedAt,
    checkedAt: site.verificationCheckedAt,
    lastError: site.verificationError,
    listed: listing?.active ?? false,
    sandbox: isWebSandboxOn(context.env),
  };
}

/** "Check" reads the home page for the tag; "New tag" replaces the tag (the old one stops counting). */
export async function checkOrRenewTag(request: Request, context: AppContext) {
  const auth = await requireAuth(request, context);
  const formData = await readFormData(request);
  // The site the page showed, even if another tab has switched the active site since.
  const site = await loadSiteOfForm(context, auth, formData);
  if (!site) throw redirect("/sites/new");
  const parsed = parseForm(formData, z.object({ intent: z.enum(["check", "new-tag"]) }));
  if (!parsed.ok) return data({ error: "Choose Check or New tag." }, { status: 400 });
  if (parsed.value.intent === "new-tag") {
    if (!(await allow(context, RATE_LIMITS.newTagsPerSite, site.id))) return data({ error: messages.tooManyNewTags }, { status: 429 });
    await renewVerificationToken(context, auth.user.id, site.id);
    throw redirect("/mysite/verify?notice=new-tag");
  }
  const result = await checkSiteVerification(context, site);
  if (!result.ok) return data({ error: result.message }, { status: result.status });
  // Post/redirect/get: the result is stored on the site and shown by the loader (a toast on success).
  throw redirect(result.verified && !site.verified ? "/mysite/verify?notice=verified" : "/mysite/verify");
}
