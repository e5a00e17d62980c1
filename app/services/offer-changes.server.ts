/**
 * What the use cases that change an offer share: their outcome, the email each event sends and how a refused batch
 * is reported. The server decides everything: price, sender and receiver come from the listing and the session, never
 * from the browser. Connects move in database triggers (migrations/0004), atomically with the status change that
 * causes them.
 */
import type { SQL } from "drizzle-orm";
import type { AppContext } from "~/lib/context";
import { DEFAULT_MATERIAL } from "~/domain/options";
import type { UserEmail } from "./email.server";

export type Outcome =
  | { ok: true; offerId: string }
  /** help: the page the message's link leads to ("Get verified" for 'Please verify your website.'). */
  | { ok: false; status: number; message: string; help?: "verify" };

/** A batch's results, or null (logged) when the database refused it: nothing of it was written. */
export async function savedOrNull<T>(batch: Promise<T>): Promise<T | null> {
  try {
    return await batch;
  } catch (error) {
    console.error("offer change failed", error);
    return null;
  }
}

export const withDefaultMaterial = (materials: string[]) => (materials.length > 0 ? materials : [DEFAULT_MATERIAL]);

function offerLink(context: Pick<AppContext, "env">, offerId: string) {
  return new URL(`/mysite/offers?offer=${offerId}`, context.env.APP_URL).toString();
}

/** The email an offer's event sends to one participant, once per offer and event. */
export function offerEmail(
  context: Pick<AppContext, "env">,
  offerId: string,
  event: string,
  userId: string,
  subject: string,
  text: string,
  onlyIf?: SQL,
): UserEmail {
  return {
    userId,
    subject,
    text: `${text}\n\nSee it here: ${offerLink(context, offerId)}`,
    kind: "offer",
    dedupeKey: `offer:${offerId}:${event}`,
    onlyIf,
  };
}
