import type { OAuthProvider } from "~/domain/oauth";

const LABELS: Record<OAuthProvider, string> = { google: "Continue with Google", github: "Continue with GitHub" };

export function OAuthButtons({ providers, redirectTo }: { providers: OAuthProvider[]; redirectTo?: string | null }) {
  if (providers.length === 0) return null;
  const query = redirectTo ? `?redirectTo=${encodeURIComponent(redirectTo)}` : "";
  return (
    <div className="oauth-buttons">
      <p className="divider">
        <span>or</span>
      </p>
      {providers.map((provider) => (
        // A post, as a document (the route answers with a redirect to the provider): only this site's pages can send
        // it (cross-site posts are refused), which no link of another site, with or without a referrer, can.
        <form key={provider} method="post" action={`/auth/${provider}${query}`}>
          <button type="submit" className={`button button-outline button-block oauth-${provider}`}>
            {LABELS[provider]}
          </button>
        </form>
      ))}
    </div>
  );
}
