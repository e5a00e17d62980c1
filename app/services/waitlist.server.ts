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

/** Each email is stored once: the first entry stands (nobody can rewrite another person's entry by their email). */
export async function joinWaitlist(db: Database, entry: WaitlistEntry, now: number): Promise<void> {
  const email = entry.email?.trim().toLowerCase() || null;
  const details = {
    url: entry.url,
    host: normaliseHost(entry.url) ?? entry.url,
    category: entry.category,
    description: entry.description,
    source: entry.source,
  };
  await db
    .insert(betaSignups)
    .values({ id: newId(), email, ...details, createdAt: now })
    .onConflictDoNothing({ target: betaSignups.email });
}
