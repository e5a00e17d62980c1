/** Only same-site paths are followed after sign-in; anything else falls back to the market. */
export function safeRedirectPath(value: string | null | undefined, fallback = "/market"): string {
  if (!value || typeof value !== "string") return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  if (/[\u0000-\u001f\\]/.test(value)) return fallback;
  return value;
}
