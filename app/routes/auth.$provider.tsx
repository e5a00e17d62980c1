import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { safeRedirectPath } from "~/domain/redirects";
import { beginSignIn, configuredProviders, isOAuthProvider } from "~/services/oauth.server";

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
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"));
  const { url, cookie } = beginSignIn(context.env, provider, redirectTo);
  throw redirect(url.toString(), { headers: { "Set-Cookie": cookie } });
}
