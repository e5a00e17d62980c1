import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { messages } from "~/domain/messages";
import { safeRedirectPath } from "~/domain/redirects";
import { newSessionCookie } from "~/services/auth.server";
import { clearStateCookie, configuredProviders, finishSignIn, isOAuthProvider } from "~/services/oauth.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const provider = params.provider;
  if (!isOAuthProvider(provider) || !configuredProviders(context.env).includes(provider)) {
    throw new Response("Not found", { status: 404 });
  }
  const result = await finishSignIn(context, provider, request);
  const headers = new Headers({ "Set-Cookie": clearStateCookie(context.env) });
  if (!result.ok) {
    const notice = result.message === messages.oauthEmailUnverified ? "oauth-unverified" : "oauth-failed";
    throw redirect(`/login?notice=${notice}`, { headers });
  }
  headers.append("Set-Cookie", await newSessionCookie(request, context, result.token, result.expiresAt));
  throw redirect(safeRedirectPath(result.redirectTo), { headers });
}
