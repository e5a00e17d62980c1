/** The beta waitlist of the landing page's site-add form. */
import { betaSignups } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { normaliseHost } from "~/domain/site-address";
import { newId } from "~/lib/ids";

export interface WaitlistEntry {
  url: string;
  email?: string;
  category: string;
  description: string;
  source: "hero" | "other";
}

export async function joinWaitlist(db: Database, entry: WaitlistEntry, now: number): Promise<void> {
  await db.insert(betaSignups).values({
    id: newId(),
    url: entry.url,
    host: normaliseHost(entry.url) ?? entry.url,
    email: entry.email ?? null,
    category: entry.category,
    description: entry.description,
    source: entry.source,
    createdAt: now,
  });
}
