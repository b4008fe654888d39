/**
 * One small interface over a `pg` Pool and embedded PGlite. Both return int8 as a JS number
 * (every amount we store is a safe integer of minor units) and numeric as a decimal string.
 */
export type SqlParam = string | number | boolean | null | Date | readonly unknown[] | Record<string, unknown>;

export interface QueryOptions {
  /** Names a hot statement so PostgreSQL parses and plans it once per connection. */
  prepareAs?: string;
}

export interface Queryable {
  /** Runs one parameterised statement and returns its rows. */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[], options?: QueryOptions): Promise<Row[]>;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs one statement in its own transaction whose commit does not wait for the WAL flush
   * (synchronous_commit off). Only for rows that are either needed solely together with a later
   * synchronous commit of the same request (WAL is flushed in order, so that commit makes them
   * durable too) or are safe to lose in a crash. Idempotency-Key records and pending POS
   * sessions use it. Databases without the distinction run it as query(), and so does a
   * PostgreSQL primary with a synchronous standby (a failover must lose nothing acknowledged).
   */
  queryRelaxed?<Row = Record<string, unknown>>(sql: string, params?: readonly SqlParam[], options?: QueryOptions): Promise<Row[]>;
  /**
   * Runs `work` in one database transaction (READ COMMITTED). Never await network calls inside:
   * PGlite has one connection, so an open transaction holds up every other request.
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A view of `db` whose query() commits without waiting for the WAL flush where the database
 * makes the distinction (see Database.queryRelaxed), and is plain query() where it does not.
 */
export function relaxedCommits(db: Database): Pick<Queryable, 'query'> {
  return {
    query: <Row>(sql: string, params?: readonly SqlParam[], options?: QueryOptions) =>
      db.queryRelaxed ? db.queryRelaxed<Row>(sql, params, options) : db.query<Row>(sql, params, options),
  };
}

/** Postgres error codes we react to, by name. */
export const PG_ERROR = {
  uniqueViolation: '23505',
  checkViolation: '23514',
  foreignKeyViolation: '23503',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  raiseException: 'P0001',
} as const;

/**
 * Whether `error` says the database could not be reached or dropped the connection, rather than
 * refusing a statement: the request may be retried once it is back (503 database_unavailable).
 * SQLSTATE class 08 (connection exception), 57P01..57P03 (the server is shutting down, crashed
 * or starting up, pg_terminate_backend), 53300 (too many connections), socket errors, and what
 * node-postgres says when a connection ends under a query or cannot be made in time. An error's
 * `cause` is looked at too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = pgErrorCode(current);
    if (code && (code.startsWith('08') || UNAVAILABLE_CODES.has(code))) return true;
    const message = current instanceof Error ? current.message : '';
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set([
  '57P01', '57P02', '57P03', '53300',
  // A standby: refused when a connection is made (postgres.ts verifyPrimary), or a write on a
  // connection whose server has become read-only (25006 read_only_sql_transaction).
  'ENOTPRIMARY', '25006',
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND',
]);

const UNAVAILABLE_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /is not queryable$/];

export function pgErrorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof (error as { code: unknown }).code === 'string') {
    return (error as { code: string }).code;
  }
  return undefined;
}

/** int8 values arrive as strings (pg) or bigint (PGlite); both become numbers, refusing silent precision loss. */
export function parseInt8(value: string | bigint | number): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`int8 value ${String(value)} is outside the safe integer range`);
  return parsed;
}
