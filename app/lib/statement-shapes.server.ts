/**
 * Statements whose SQL drizzle builds once, not on every request. drizzle builds a statement's SQL from its query
 * builder each time it runs, asking of every piece what kind of object it is: about half a millisecond of CPU for
 * the dashboard's statements alone. A shape is the statements written once with `valueOf(name)` where each value
 * goes; each use only fills the values in.
 */
import { fillPlaceholders, sql, type Placeholder } from "drizzle-orm";
import type { Database } from "./db.server";

/** Where a value goes in a statement shape, filled in from the values each use gives. */
export function valueOf<Name extends string>(name: Name): Placeholder<Name> {
  return sql.placeholder(name);
}

export type Values = Record<string, unknown>;

/** A query builder (`db.select()…`), which drizzle can prepare. */
export interface Preparable {
  prepare(): unknown;
}

/** What drizzle's `batch` asks of a statement (drizzle-orm/d1/session.js): its built query, bound statement and row mapping. */
interface PreparedQuery {
  getQuery(): { sql: string; params: unknown[] };
  stmt: D1PreparedStatement;
  mapResult(result: unknown, isFromBatch?: boolean): unknown;
}

function filled(prepared: PreparedQuery, values: Values) {
  const query = prepared.getQuery();
  const statement: PreparedQuery = {
    getQuery: () => ({ ...query, params: fillPlaceholders(query.params, values) }),
    stmt: prepared.stmt,
    mapResult: (result, isFromBatch) => prepared.mapResult(result, isFromBatch),
  };
  return {
    _prepare: () => statement,
    // Awaited, it would otherwise give itself back as its rows.
    then() {
      throw new Error("A statement shape runs only in db.batch (app/lib/statement-shapes.server.ts)");
    },
  };
}

/**
 * Statements for `db.batch` built once per database binding (an isolate keeps its bindings across requests). They are
 * typed as the query builders `build` returns, so a batch's rows are typed as theirs; they can only be batched: one
 * awaited on its own throws.
 */
export function statementShapes<T extends readonly Preparable[]>(build: (db: Database) => T) {
  const built = new WeakMap<Database, PreparedQuery[]>();
  return (db: Database, values: Values): T => {
    let prepared = built.get(db);
    if (!prepared) built.set(db, (prepared = build(db).map((query) => query.prepare() as PreparedQuery)));
    return prepared.map((query) => filled(query, values)) as unknown as T;
  };
}
