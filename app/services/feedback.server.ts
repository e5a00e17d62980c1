/** Feedback from signed-in users, stored for the team to read. */
import { feedback } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import { newId } from "~/lib/ids";

/**
 * Stores a message; a failure is logged and reported as false, never thrown: the dialog closes either way (failures are silent),
 * and the log keeps the text so nothing is lost for the team.
 */
export async function saveFeedback(db: Database, userId: string, siteId: string | null, text: string, now: number): Promise<boolean> {
  try {
    await db.insert(feedback).values({ id: newId(), userId, siteId, text, createdAt: now });
    return true;
  } catch (error) {
    console.error("feedback not saved", { userId, siteId, text }, error);
    return false;
  }
}
