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
        // A plain link: the route answers with a redirect to the provider.
        <a key={provider} href={`/auth/${provider}${query}`} className={`button button-outline oauth-${provider}`}>
          {LABELS[provider]}
        </a>
      ))}
    </div>
  );
}
