import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { listMigrations, migrate } from './migrate.ts';
import { PostgresDatabase } from './postgres.ts';

const hasPostgres = (await databaseTargets()).some((target) => target.name === 'postgres');

describe('migrations on one PostgreSQL shared by several instances', { skip: hasPostgres ? false : 'needs PostgreSQL (several pools on one database)' }, () => {
  it('applies each migration once when three instances start together, and leaves no lock held', async () => {
    const created = await createPostgresDatabase();
    const instances = Array.from({ length: 3 }, () => new PostgresDatabase({ connectionString: created.url, poolSize: 3 }));
    try {
      const applied = await Promise.all(instances.map((db) => migrate(db)));
      const all = applied.flat().sort((a, b) => a - b);
      assert.deepEqual(all, listMigrations().map((migration) => migration.version), 'every migration applied, none twice');
      const [db] = instances;
      const recorded = await db!.query<{ count: number }>('SELECT count(*)::int AS count FROM schema_migrations');
      assert.equal(recorded[0]!.count, listMigrations().length);
      // A session lock taken through a pool could stay held by an idle connection and stall the
      // next instance's start; the transaction-scoped lock ends with its transaction.
      const locks = await db!.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      assert.equal(locks[0]!.count, 0);
      assert.deepEqual(await migrate(db!), [], 'a restart applies nothing');
      const functions = await db!.query<{ name: string }>("SELECT proname AS name FROM pg_proc WHERE proname IN ('pos_tap', 'ledger_post_transfer') ORDER BY proname");
      assert.deepEqual(functions.map((row) => row.name), ['ledger_post_transfer', 'pos_tap'], 'the functions are defined');
    } finally {
      await Promise.all(instances.map((db) => db.close()));
      await created.drop();
    }
  });
});
