/** The sign-in providers the product knows (docs/decisions/0006-oauth-google-github.md); each is offered when configured. */
export const OAUTH_PROVIDERS = ["google", "github"] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];
