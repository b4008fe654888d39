import type { Queryable } from '../../db/database.ts';

/** The cheapest round trip: the liveness answer times it. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}

/** The migrations the database has applied (readiness compares them with the ones this server ships). */
export async function appliedMigrations(db: Queryable): Promise<number[]> {
  const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  return rows.map((row) => row.version);
}

/**
 * Whether this server's connections can write: false on a standby in recovery (a replica Patroni
 * has not promoted) or when the database makes transactions read-only by default. A server that
 * cannot write takes no money, so readiness sends no traffic to it.
 */
export async function databaseWritable(db: Queryable): Promise<boolean> {
  const [row] = await db.query<{ writable: boolean }>("SELECT NOT (pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on') AS writable");
  return row?.writable === true;
}
