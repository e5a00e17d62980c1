/** Feedback from signed-in users, stored for the team to read. */
import { feedback } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { newId } from "~/lib/ids";

export async function saveFeedback(db: Database, userId: string, siteId: string | null, text: string, now: number) {
  await db.insert(feedback).values({ id: newId(), userId, siteId, text, createdAt: now });
}
