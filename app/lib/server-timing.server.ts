import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Where a request's time goes, in development: a `Server-Timing` header (browsers show it in the network panel, the
 * bench reads it) with the session lookup, the database (round trips and the time any was in flight), the loaders
 * and actions, and the render. Production sends none of it.
 *
 * Workers advance the clock only across I/O, so on a deployed Worker the CPU-only parts (the render) read 0; under
 * `wrangler dev` the clock runs.
 */
export class RequestTiming {
  readonly started = Date.now();
  queries = 0;
  private databaseMs = 0;
  private inFlight = 0;
  private inFlightSince = 0;
  private sessionMs: number | null = null;
  private renderStarted: number | null = null;

  /** Times one database round trip (a statement or a batch). */
  async query<T>(run: () => Promise<T>): Promise<T> {
    this.queries += 1;
    if (this.inFlight++ === 0) this.inFlightSince = Date.now();
    try {
      return await run();
    } finally {
      if (--this.inFlight === 0) this.databaseMs += Date.now() - this.inFlightSince;
    }
  }

  async session<T>(lookup: Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await lookup;
    } finally {
      this.sessionMs = Date.now() - started;
    }
  }

  /** The loaders are done and the page starts rendering. */
  renderStarts() {
    this.renderStarted = Date.now();
  }

  header(): string {
    const ended = Date.now();
    const loadersEnded = this.renderStarted ?? ended;
    const parts = [
      `db;dur=${this.databaseMs};desc="${this.queries} queries"`,
      `loaders;dur=${loadersEnded - this.started};desc="loaders and actions"`,
      `total;dur=${ended - this.started}`,
    ];
    if (this.sessionMs !== null) parts.unshift(`session;dur=${this.sessionMs}`);
    if (this.renderStarted !== null) parts.splice(-1, 0, `render;dur=${ended - this.renderStarted}`);
    return parts.join(", ");
  }
}

/** The timing of the request being handled, where the database binding (shared by requests) finds it. */
const currentTiming = new AsyncLocalStorage<RequestTiming>();

export function withTiming<T>(timing: RequestTiming, run: () => T): T {
  return currentTiming.run(timing, run);
}

const timedBindings = new WeakMap<D1Database, D1Database>();

/**
 * The D1 binding, with every round trip counted and timed for the request under way (`withTiming`). One wrapper per
 * binding, so drizzle over it is built once too.
 */
export function timedDatabase(d1: D1Database): D1Database {
  let timed = timedBindings.get(d1);
  if (!timed) timedBindings.set(d1, (timed = timedBinding(d1)));
  return timed;
}

function timedBinding(d1: D1Database): D1Database {
  const timing = { query: <T>(run: () => Promise<T>) => currentTiming.getStore()?.query(run) ?? run() };
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement =>
    ({
      real: statement,
      bind: (...values: unknown[]) => wrap(statement.bind(...values)),
      first: (column?: string) => timing.query(() => (column === undefined ? statement.first() : statement.first(column))),
      all: () => timing.query(() => statement.all()),
      run: () => timing.query(() => statement.run()),
      raw: (options?: { columnNames?: boolean }) => timing.query(() => statement.raw(options as { columnNames: true })),
    } as unknown as D1PreparedStatement);
  const unwrap = (statement: D1PreparedStatement) => (statement as unknown as { real?: D1PreparedStatement }).real ?? statement;
  return {
    prepare: (query: string) => wrap(d1.prepare(query)),
    batch: (statements: D1PreparedStatement[]) => timing.query(() => d1.batch(statements.map(unwrap))),
    exec: (query: string) => timing.query(() => d1.exec(query)),
    dump: () => d1.dump(),
    withSession: (constraint?: string) => d1.withSession(constraint),
  } as unknown as D1Database;
}
