/**
 * The local web sandbox: pages published at /dev/sites answer the safe fetch instead of the network
 * in development, so verification and icons can be tried offline. Only `safeFetchOptionsFor` decides to use it,
 * and never in production. See docs/decisions/0021-local-web-sandbox.md.
 */
import { and, desc, eq, lt } from "drizzle-orm";
import { devSandboxPages, devSandboxRequests } from "#drizzle/schema";
import { SANDBOX_REDIRECT } from "~/domain/web-sandbox";
import type { Database } from "./db.server";
import { newId } from "./ids";

const LOG_KEPT_MS = 24 * 60 * 60_000;

/** Answers from the sandbox: the page when published, 404 for another path of a known host, and for an unknown
 * host what Cloudflare answers when a name does not resolve (530). Every request is logged for /dev/sites. */
export function sandboxTransport(db: Database) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const host = url.hostname.toLowerCase();
    const path = `${url.pathname}${url.search}`;
    const pages = await db
      .select({ path: devSandboxPages.path, contentType: devSandboxPages.contentType, body: devSandboxPages.body })
      .from(devSandboxPages)
      .where(eq(devSandboxPages.host, host))
      .all();
    const page = pages.find((candidate) => candidate.path === path);
    let response: Response;
    if (page?.contentType === SANDBOX_REDIRECT) response = new Response(null, { status: 301, headers: { Location: page.body } });
    else if (page) response = new Response(page.body, { headers: { "Content-Type": page.contentType } });
    else if (pages.length > 0) response = new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } });
    else response = new Response("Name not resolved (not published in the dev web sandbox)", { status: 530 });
    const now = Date.now();
    await db.batch([
      db.insert(devSandboxRequests).values({ id: newId(), method: request.method, url: request.url, status: response.status, at: now }),
      db.delete(devSandboxRequests).where(lt(devSandboxRequests.at, now - LOG_KEPT_MS)),
    ]);
    return response;
  };
}

export interface SandboxPage {
  host: string;
  path: string;
  contentType: string;
  body: string;
}

export async function publishSandboxPage(db: Database, page: SandboxPage, now: number): Promise<void> {
  await db
    .insert(devSandboxPages)
    .values({ ...page, updatedAt: now })
    .onConflictDoUpdate({
      target: [devSandboxPages.host, devSandboxPages.path],
      set: { contentType: page.contentType, body: page.body, updatedAt: now },
    });
}

export async function removeSandboxPage(db: Database, host: string, path: string): Promise<void> {
  await db.delete(devSandboxPages).where(and(eq(devSandboxPages.host, host), eq(devSandboxPages.path, path)));
}

export function listSandboxPages(db: Database) {
  return db.select().from(devSandboxPages).orderBy(desc(devSandboxPages.updatedAt)).limit(200).all();
}

export function listSandboxRequests(db: Database, limit = 50) {
  return db.select().from(devSandboxRequests).orderBy(desc(devSandboxRequests.at)).limit(limit).all();
}
