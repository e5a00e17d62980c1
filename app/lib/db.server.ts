import { and, eq, is, lt, or, SQL, type Column, type Placeholder } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
const databases = new WeakMap<D1Database, ReturnType<typeof drizzle>>();

/**
 * Drizzle over D1, built once per binding (an isolate keeps its bindings across requests). Without a schema: the
 * app writes its queries with the query builder, and drizzle would work out a schema's relations afresh on every
 * call (about 2.5 ms of CPU per request).
 */
export function database(d1: D1Database) {
  let db = databases.get(d1);
  if (!db) databases.set(d1, (db = drizzle(d1)));
  return db;
}

export type Database = ReturnType<typeof database>;

/**
 * Whether a failed statement's error says `pattern`: D1 reports a failed constraint (or a trigger's RAISE) as an error
 * whose message, or the cause under it, names it.
 */
export function databaseErrorSays(error: unknown, pattern: RegExp): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return pattern.test(text);
}

/** Whether a statement failed on a unique constraint (the row is there already). */
export function isUniqueConstraintError(error: unknown): boolean {
  return databaseErrorSays(error, /UNIQUE constraint failed/i);
}

/** Whether a statement failed on a row it references that is not there (in a batch, the whole batch is undone). */
export function isForeignKeyError(error: unknown): boolean {
  return databaseErrorSays(error, /FOREIGN KEY constraint failed/i);
}

const dialect = new SQLiteAsyncDialect();

/** Raw SQL as D1 takes it: its text with `?` for each value, and the values (or placeholders) in order. */
export function queryOf(statement: SQL): { sql: string; params: unknown[] } {
  return dialect.sqlToQuery(statement);
}

/** A statement for `batchStatements`: a query builder, or raw SQL where a builder cannot say it. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/**
 * One atomic D1 batch of builders and raw SQL together (drizzle's own batch takes builders only): all of it is
 * written, or none of it.
 */
export function batchStatements(d1: D1Database, statements: Statement[]) {
  return d1.batch(
    statements.map((statement) => {
      const query = is(statement, SQL) ? queryOf(statement) : statement.toSQL();
      return d1.prepare(query.sql).bind(...query.params);
    }),
  );
}

/**
 * The rows after a keyset position in a newest-first order by (`at`, `id`): older, or as old with a smaller id. The
 * market's pages and the conversations' pages follow each other by it.
 */
export function olderThan(at: Column, id: Column, position: { at: number | Placeholder; id: string | Placeholder }): SQL {
  return or(lt(at, position.at), and(eq(at, position.at), lt(id, position.id)))!;
}
