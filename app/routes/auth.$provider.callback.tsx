import { redirect, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { messages } from "~/domain/messages";
import { pageAfterSignIn } from "~/domain/redirects";
import { newSessionCookie } from "~/services/auth.server";
import { clearStateCookie, configuredProviders, finishSignIn, isOAuthProvider } from "~/services/oauth.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const provider = params.provider;
  if (!isOAuthProvider(provider) || !configuredProviders(context.env).includes(provider)) {
    throw new Response("Not found", { status: 404 });
  }
  // The database failing while the account is found or made: the login page says the sign-in did not work.
  const result = await finishSignIn(context, provider, request).catch((error: unknown) => {
    console.error("oauth sign-in failed", error);
    return { ok: false as const, message: messages.oauthFailed };
  });
  const headers = new Headers({ "Set-Cookie": clearStateCookie(context.env) });
  if (!result.ok) {
    const notice = result.message === messages.oauthEmailUnverified ? "oauth-unverified" : "oauth-failed";
    throw redirect(`/login?notice=${notice}`, { headers });
  }
  headers.append("Set-Cookie", await newSessionCookie(request, context, result.token, result.expiresAt));
  throw redirect(pageAfterSignIn(result.redirectTo), { headers });
}
