/** Development-only pages (/dev/mailbox, /dev/sites): ENVIRONMENT=development and a local address, both. */
import { isDevelopment, type Env } from "./env";

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** They hold live reset links and control what the product fetches, so a deploy that forgot the variable still
 * does not publish them: the request must also come to a local address. */
export function requireDevTools(request: Request, env: Env): void {
  if (!isDevelopment(env) || !isLocalRequest(request)) {
    throw new Response("Not found", { status: 404 });
  }
}

export function isLocalRequest(request: Request): boolean {
  return LOCAL_HOSTS.has(new URL(request.url).hostname);
}
