/** Only same-site paths are followed after sign-in; anything else falls back to the market. */
export function safeRedirectPath(value: string | null | undefined, fallback = "/market"): string {
  if (!value || typeof value !== "string") return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char === "\\")) return fallback;
  return value;
}
