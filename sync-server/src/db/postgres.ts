import pg from 'pg';
import { type Database, type QueryOptions, type Queryable, type SqlParam, PG_ERROR, parseInt8, pgErrorCode } from './database.ts';

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
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      types: typeParsers,
      idleTimeoutMillis: 30_000,
    });
    // An idle client can lose its connection (server restart); the pool replaces it.
    this.pool.on('error', () => undefined);
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

  async queryRelaxed<Row>(sql: string, params: readonly SqlParam[] = [], options?: QueryOptions): Promise<Row[]> {
    if (!this.relaxedPool) {
      this.relaxedPool = new pg.Pool({
        connectionString: this.options.connectionString,
        max: Math.max(2, Math.ceil((this.options.poolSize ?? 10) / 2)),
        types: typeParsers,
        idleTimeoutMillis: 30_000,
        options: '-c synchronous_commit=off',
      });
      this.relaxedPool.on('error', () => undefined);
    }
    const result = await this.relaxedPool.query(statement(sql, params, options));
    return result.rows as Row[];
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
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
        await client.query('ROLLBACK').catch(() => undefined);
        const code = pgErrorCode(error);
        const retryable = code === PG_ERROR.deadlockDetected || code === PG_ERROR.serializationFailure;
        if (!retryable || attempt >= TRANSACTION_ATTEMPTS_MAX) throw error;
      } finally {
        client.release();
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.relaxedPool?.end()]);
  }
}
