import type { Env } from "./env";
import { numberVar } from "./env";

/** The configured pause before sign-up and add-website processing (docs/decisions/0007-configured-signup-delay.md). */
export function processingDelay(env: Env): Promise<void> {
  const ms = numberVar(env.SIGNUP_DELAY_MS, 2000);
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
