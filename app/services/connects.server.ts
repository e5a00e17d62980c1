/** The connects ledger: lots that expire, and one ledger entry for every change of a balance. */
import { connectLedger, connectLots } from "#drizzle/schema";
import type { Database } from "~/lib/db.server";
import type { Env } from "~/lib/env";
import { numberVar } from "~/lib/env";
import { newId } from "~/lib/ids";
import { oneYearAfter } from "~/domain/connects";

export function starterConnects(env: Env): number {
  return Math.max(0, Math.floor(numberVar(env.STARTER_CONNECTS, 20)));
}

/**
 * Statements that record the starter grant of a new account (its lot and ledger entry); the account row is
 * inserted with the same amount as its balance, in the same batch.
 */
export function starterGrantStatements(db: Database, userId: string, amount: number, now: number) {
  const lotId = newId();
  return [
    db.insert(connectLots).values({
      id: lotId,
      userId,
      source: "starter",
      amount,
      remaining: amount,
      expiresAt: oneYearAfter(now),
      createdAt: now,
    }),
    db.insert(connectLedger).values({ id: newId(), userId, kind: "grant", amount, lotId, createdAt: now }),
  ] as const;
}
