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
