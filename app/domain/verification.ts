/** Site verification by a meta tag in the home page's head (docs/decisions/0009-site-verification-meta-tag.md). */
export const VERIFICATION_META_NAME = "backlink-verification";

/** The tag the owner places inside `<head>` of their home page. Tokens are base32, so nothing needs escaping. */
export function verificationTag(token: string): string {
  return `<meta name="${VERIFICATION_META_NAME}" content="${token}">`;
}

/** A verified site is re-checked about monthly. */
export const RECHECK_INTERVAL_DAYS = 30;
/** Re-checks that fail in a row before the verification is removed; after a failure the next is a day later. */
export const RECHECK_FAILURES_ALLOWED = 3;
