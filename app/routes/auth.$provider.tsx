import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { pageAfterSignIn, safeRedirectPath } from "~/domain/redirects";
import type { Env } from "~/lib/env";
import { beginSignIn, configuredProviders, isOAuthProvider } from "~/services/oauth.server";

function configuredProvider(provider: string | undefined, env: Env) {
  if (!isOAuthProvider(provider) || !configuredProviders(env).includes(provider)) throw new Response("Not found", { status: 404 });
  return provider;
}

/**
 * Starts sign-in with a provider: remembers state in a short cookie and sends the browser there. A post from the login
 * and sign-up pages' buttons: another site cannot send it (cross-site posts are refused before any route), so no other
 * site can start a sign-in that the provider might approve without a word, signing the browser in to whatever account
 * the provider's session names (docs/decisions/0006-oauth-google-github.md).
 */
export function action({ request, params, context }: ActionFunctionArgs) {
  const provider = configuredProvider(params.provider, context.env);
  const redirectTo = pageAfterSignIn(new URL(request.url).searchParams.get("redirectTo"));
  const { url, cookie } = beginSignIn(context.env, provider, redirectTo);
  throw redirect(url.toString(), { headers: { "Set-Cookie": cookie } });
}

/** The address opened (a link, typed, a bookmark): the login page, whose buttons start it, with the way back kept. */
export function loader({ request, params, context }: LoaderFunctionArgs) {
  configuredProvider(params.provider, context.env);
  const back = safeRedirectPath(new URL(request.url).searchParams.get("redirectTo"), "");
  throw redirect(back ? `/login?redirectTo=${encodeURIComponent(back)}` : "/login");
}
