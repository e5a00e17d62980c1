import { is, SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
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

const dialect = new SQLiteAsyncDialect();

/** A statement for `batchStatements`: a query builder, or raw SQL where a builder cannot say it. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/**
 * One atomic D1 batch of builders and raw SQL together (drizzle's own batch takes builders only): all of it is
 * written, or none of it.
 */
export function batchStatements(d1: D1Database, statements: Statement[]) {
  return d1.batch(
    statements.map((statement) => {
      const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : statement.toSQL();
      return d1.prepare(query.sql).bind(...query.params);
    })
  );
}
