import pg from 'pg';
import { type Database, type QueryOptions, type Queryable, type SqlParam, PG_ERROR, isDatabaseUnavailable, parseInt8, pgErrorCode } from './database.ts';
import { plannerStartupOptions } from './planner.ts';

const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => parseInt8(value);
    if (oid === INT8_ARRAY_OID) {
      const parseArray = pg.types.getTypeParser(oid as Parameters<typeof pg.types.getTypeParser>[0], 'text') as (value: string) => string[];
      return (value: string) => parseArray(value).map((item) => (item === null ? null : parseInt8(item)));
    }
    return pg.types.getTypeParser(oid as Parameters<typeof pg.types.getTypeParser>[0], format ?? 'text');
  },
};

/** How often a transaction that lost a deadlock or serialization race is run again. */
const TRANSACTION_ATTEMPTS_MAX = 3;

/**
 * How long a request waits for a new connection before it is answered 503: without a bound, a
 * database that stopped answering (a network partition) would hold every request until the
 * client gave up.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/** How old a reading of whether commits wait for a synchronous standby may be (see PostgresDatabase.queryRelaxed). */
const STANDBY_READING_MAX_AGE_MS = 1_000;

/** The error code of a connection refused because its server is a standby (database.ts counts it as unavailable). */
export const NOT_PRIMARY = 'ENOTPRIMARY';

/**
 * Every client of the pool listens for 'error' from birth. pg-pool's own listener is on a client
 * only while it is idle, and a transaction adds its own only once `await pool.connect()` has
 * resumed: in between, a client released and handed straight to a waiting transaction can parse
 * PostgreSQL's FATAL "terminating connection" from the same network read, with no listener, and
 * node-postgres would end the process (seen under chaos: pg_terminate_backend during load). The
 * error is not lost: the client is no longer queryable, its next statement fails, and the pool
 * drops it on release.
 */
function guardClients(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * A new connection must reach the primary. During a failover a node that is not the primary (yet)
 * can accept connections: Patroni restarts a killed primary's PostgreSQL read-only before it
 * decides, and a proxy's health check lags behind; a read there can be stale (a session created a
 * moment ago is not found) and a write fails. Such a connection is refused, as an unavailable
 * database (503 database_unavailable, Retry-After), and the next one is made afresh.
 */
function verifyPrimary(client: pg.PoolClient, done: (error?: Error) => void): void {
  client.query('SELECT pg_is_in_recovery() AS standby').then(
    (result) => done((result.rows[0] as { standby: boolean } | undefined)?.standby ? Object.assign(new Error('connected to a standby, not the primary'), { code: NOT_PRIMARY }) : undefined),
    (error: Error) => done(error),
  );
}

/**
 * Session settings every connection of ours starts with (db/planner.ts); a DATABASE_URL that names
 * `options` itself replaces them (node-postgres lets the URL win).
 */
const SESSION_OPTIONS = plannerStartupOptions();

/** What every pool of ours connects with; `sessionOptions` adds to SESSION_OPTIONS. */
function poolOptions(connectionString: string, max: number, sessionOptions = ''): pg.PoolConfig {
  return {
    connectionString, max, types: typeParsers, idleTimeoutMillis: 30_000, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, verify: verifyPrimary,
    options: `${SESSION_OPTIONS} ${sessionOptions}`.trim(),
  } as pg.PoolConfig;
}

/** A pool a component holds connections of (see sidePool), and how to end it for good. */
export interface SidePool {
  /** What the component is given: connect and query as on any pg.Pool. */
  readonly pool: pg.Pool;
  /**
   * Ends every connection, the checked-out ones too, and refuses new ones: a holder still holding a
   * client, or halfway through taking one, cannot keep the process from shutting down.
   */
  end(): Promise<void>;
}

/**
 * A pool for a component that holds connections of its own (the sync adapter's LISTEN client).
 * A connection PostgreSQL drops while it is checked out is reported to `onError` instead of
 * crashing the process (node-postgres emits 'error' on the client, and nobody listens to a
 * checked-out client), and is given back to the pool as broken when it ends: a holder that
 * forgets a dead client (the socket.io adapter reconnects with a new one and never releases the
 * old) would otherwise keep its slot forever, and after `max` drops every query would wait for a
 * connection that never comes.
 *
 * Ending it does not wait for the holder: the socket.io adapter's close() releases only the
 * client it already holds, so one it was taking at that moment (reconnecting after a dropped
 * connection) would be held for good and `pool.end()` would never finish (seen under chaos: the
 * server's SIGTERM ran into its 10 s limit). After `end()`, a connect never answers, so the
 * holder neither gets a client nor loops on retries.
 *
 * `holdOne`: the holder needs one connection at a time (the adapter's LISTEN client). The socket.io
 * adapter (0.5) schedules its reconnection twice when a LISTEN fails on a dropped connection (from
 * its catch and from the client's 'end'), and would then hold two listening clients, filling a
 * pool of 2 so that its NOTIFY queries waited for good (seen after a database failover: terminals
 * on one instance stopped hearing changes made through another). With holdOne, taking a client
 * gives back the one still held.
 */
export function sidePool(connectionString: string, max: number, onError: (error: Error) => void, options: { holdOne?: boolean } = {}): SidePool {
  const pool = guardClients(new pg.Pool(poolOptions(connectionString, max)));
  // The clients the holder took (pg-pool's own query() takes and gives back its clients itself:
  // releasing one of those here too would make pg-pool's release throw, uncaught).
  const held = new Set<pg.PoolClient>();
  let ending = false;
  pool.on('release', (_error, client) => held.delete(client as pg.PoolClient));
  const giveBack = (client: pg.PoolClient, why: Error) => {
    if (!held.delete(client)) return;
    try {
      client.release(why);
    } catch (error) {
      // Its holder gave it back in the meantime: nothing is held, nothing to do.
      onError(error as Error);
    }
  };
  pool.on('connect', (client) => {
    client.on('error', onError);
    client.on('end', () => giveBack(client as pg.PoolClient, new Error('connection ended while checked out')));
  });
  const never = () => new Promise<never>(() => undefined);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  // Only the promise form is the holder's; pg-pool's own query() takes a client by callback.
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    if (ending) return never();
    if (options.holdOne) {
      // The holder takes a new client only when it has lost the last: whatever it still holds is
      // dropped first, without telling it (its 'end' would make it reconnect once more).
      for (const old of [...held]) {
        old.removeAllListeners('end');
        old.removeAllListeners('notification');
        giveBack(old, new Error('replaced by a new connection of the same holder'));
      }
    }
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (ending) {
        client.release(true);
        return never();
      }
      held.add(client);
      return client;
    });
  }) as typeof pool.connect;
  return {
    pool,
    async end() {
      ending = true;
      for (const client of [...held]) giveBack(client, new Error('the pool is ending'));
      await pool.end();
    },
  };
}

function statement(sql: string, params: readonly SqlParam[], options: QueryOptions | undefined): pg.QueryConfig {
  return options?.prepareAs ? { name: options.prepareAs, text: sql, values: params as unknown[] } : { text: sql, values: params as unknown[] };
}

export interface PostgresOptions {
  connectionString: string;
  poolSize?: number;
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(private readonly options: PostgresOptions) {
    // An idle client can lose its connection (server restart); the pool replaces it.
    this.pool = guardClients(new pg.Pool(poolOptions(options.connectionString, options.poolSize ?? 10)));
  }

  /** The database this pool connects to (a component that needs its own connections, such as the sync adapter). */
  get connectionString(): string {
    return this.options.connectionString;
  }

  async query<Row>(sql: string, params: readonly SqlParam[] = [], options?: QueryOptions): Promise<Row[]> {
    const result = await this.pool.query(statement(sql, params, options));
    return result.rows as Row[];
  }

  /** A few connections with synchronous_commit off, opened on first use (see Database.queryRelaxed). */
  private relaxedPool: pg.Pool | undefined;

  /**
   * Whether the primary's commits wait for a synchronous standby (synchronous_standby_names set,
   * as Patroni's synchronous mode does), as last read; true until read, and when the reading fails.
   */
  private readonly standby = { synchronous: true, readAt: 0, reading: false };

  async queryRelaxed<Row>(sql: string, params: readonly SqlParam[] = [], options?: QueryOptions): Promise<Row[]> {
    // Where a synchronous standby takes over when the primary is lost, a commit that did not wait
    // for it would be acknowledged and then gone after the failover (a POS session answered 201,
    // then 404 on the promoted standby): the relaxed commit's bet, "lost only in a crash within a
    // fraction of a second", no longer holds, so such a cluster commits every statement in full.
    if (this.commitsWaitForStandby()) return this.query<Row>(sql, params, options);
    if (!this.relaxedPool) {
      this.relaxedPool = guardClients(new pg.Pool(
        poolOptions(this.options.connectionString, Math.max(2, Math.ceil((this.options.poolSize ?? 10) / 2)), '-c synchronous_commit=off'),
      ));
    }
    const result = await this.relaxedPool.query(statement(sql, params, options));
    return result.rows as Row[];
  }

  /**
   * The last reading of `standby.synchronous`, read again in the background when older than
   * STANDBY_READING_MAX_AGE_MS: Patroni turns synchronous replication on and off as standbys come
   * and go, and a request must not wait for the reading.
   */
  private commitsWaitForStandby(): boolean {
    const { standby } = this;
    if (!standby.reading && Date.now() - standby.readAt >= STANDBY_READING_MAX_AGE_MS) {
      standby.reading = true;
      this.pool.query<{ synchronous: boolean }>(`SELECT current_setting('synchronous_standby_names') <> '' AS synchronous`).then(
        (result) => {
          standby.synchronous = result.rows[0]?.synchronous ?? true;
        },
        () => {
          standby.synchronous = true;
        },
      ).finally(() => {
        standby.readAt = Date.now();
        standby.reading = false;
      });
    }
    return standby.synchronous;
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      // When PostgreSQL drops the connection (restart, failover, pg_terminate_backend, a network
      // blip) node-postgres emits 'error' on the client (guardClients keeps that from ending the
      // process); noted here, the client is closed on release rather than reused.
      let lost: Error | undefined;
      const onError = (error: Error) => {
        lost = error;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: async <Row>(sql: string, params: readonly SqlParam[] = [], options?: QueryOptions) =>
            (await client.query(statement(sql, params, options))).rows as Row[],
          exec: async (sql: string) => {
            await client.query(sql);
          },
        };
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (!lost && isDatabaseUnavailable(error)) lost = error as Error;
        if (!lost) await client.query('ROLLBACK').catch(() => undefined);
        const code = pgErrorCode(error);
        const retryable = code === PG_ERROR.deadlockDetected || code === PG_ERROR.serializationFailure;
        if (!retryable || attempt >= TRANSACTION_ATTEMPTS_MAX) throw error;
      } finally {
        client.removeListener('error', onError);
        // A broken connection is closed, not put back for the next transaction.
        client.release(lost);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.relaxedPool?.end()]);
  }
}
