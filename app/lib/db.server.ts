import { drizzle } from "drizzle-orm/d1";
import * as schema from "#drizzle/schema";

/** Drizzle over D1, built once per request. */
export function database(d1: D1Database) {
  return drizzle(d1, { schema });
}

export type Database = ReturnType<typeof database>;

/** D1 reports constraint failures as errors whose message names the constraint. */
export function isUniqueConstraintError(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return /UNIQUE constraint failed/i.test(text);
}
