import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageAfterSignIn } from "~/domain/redirects";
import { beginSignIn, configuredProviders, isOAuthProvider } from "~/services/oauth.server";

/** The pages with the "Continue with Google/GitHub" buttons. */
const SIGN_IN_PAGES = new Set(["/login", "/signup"]);

function pageOf(address: string | null): URL | null {
  try {
    return address ? new URL(address) : null;
  } catch {
    return null;
  }
}

/**
 * Starts sign-in with a provider: remembers state in a short cookie and sends the browser there. Only from the
 * product's own pages (or the address typed): another site sending a browser here would sign it in, without asking,
 * to whatever account its Google or GitHub session names; such a start lands on the login page instead.
 */
export function loader({ request, params, context }: LoaderFunctionArgs) {
  const provider = params.provider;
  if (!isOAuthProvider(provider) || !configuredProviders(context.env).includes(provider)) {
    throw new Response("Not found", { status: 404 });
  }
  const fetchSite = request.headers.get("Sec-Fetch-Site");
  if (fetchSite === "cross-site" || fetchSite === "same-site") throw redirect("/login");
  // Only from the two pages whose buttons start it: a link to it planted on another page of the site (a page's "back"
  // address) is refused like another site's (a browser without Fetch Metadata names that site here too). A sign-in
  // never lands here (`pageAfterSignIn`). No referrer at all is the address typed.
  const referrer = pageOf(request.headers.get("Referer"));
  const ownOrigins = new Set([new URL(request.url).origin, new URL(context.env.APP_URL).origin]);
  // As the router reads a page's address: any letter case, a trailing slash or not.
  const page = referrer?.pathname.replace(/\/+$/, "").toLowerCase();
  if (referrer && (!ownOrigins.has(referrer.origin) || !SIGN_IN_PAGES.has(page!))) throw redirect("/login");
  const redirectTo = pageAfterSignIn(new URL(request.url).searchParams.get("redirectTo"));
  const { url, cookie } = beginSignIn(context.env, provider, redirectTo);
  throw redirect(url.toString(), { headers: { "Set-Cookie": cookie } });
}
