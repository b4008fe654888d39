// Our connections plan with PLANNER_SETTINGS (db/planner.ts) on both databases: a lookup of many
// keys in a small table, planned once and kept (a prepared statement, a PL/pgSQL statement),
// probes the key instead of reading the table, so it stays cheap as the table grows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { PLANNER_SETTINGS } from './planner.ts';

for (const target of await databaseTargets()) {
  describe(`planner settings on ${target.name}`, () => {
    const database = useDatabase(target);

    it('starts every connection with random_page_cost 1.1', async () => {
      assert.deepEqual(PLANNER_SETTINGS, { random_page_cost: '1.1' });
      const rows = await database().query<{ cost: string }>("SELECT current_setting('random_page_cost') AS cost");
      assert.deepEqual(rows, [{ cost: '1.1' }]);
      // Every connection of the pool, not only the first.
      const seen = await Promise.all(Array.from({ length: 4 }, () => database().transaction((tx) => tx.query<{ cost: string }>("SELECT current_setting('random_page_cost') AS cost"))));
      assert.deepEqual(seen.flat(), Array.from({ length: 4 }, () => ({ cost: '1.1' })));
    });

    it('plans a kept lookup of many keys in a small table as an index probe, where the default cost reads the table', async () => {
      const db = database();
      await db.query('CREATE TABLE planner_probe (id text PRIMARY KEY, pad text NOT NULL)');
      await db.query("INSERT INTO planner_probe SELECT 'k' || g, repeat('x', 60) FROM generate_series(1, 300) AS g");
      await db.query('ANALYZE planner_probe');
      const plans = await db.transaction(async (tx) => {
        // The plan a connection keeps after a statement's first executions: the generic one.
        await tx.query('SET LOCAL plan_cache_mode = force_generic_plan');
        await tx.query('PREPARE probe_ours (text[]) AS SELECT id FROM planner_probe WHERE id = ANY ($1)');
        const ours = await tx.query<{ 'QUERY PLAN': string }>("EXPLAIN EXECUTE probe_ours (ARRAY['k1', 'k2'])");
        await tx.query('SET LOCAL random_page_cost = 4');
        await tx.query('PREPARE probe_default (text[]) AS SELECT id FROM planner_probe WHERE id = ANY ($1)');
        const fallback = await tx.query<{ 'QUERY PLAN': string }>("EXPLAIN EXECUTE probe_default (ARRAY['k1', 'k2'])");
        await tx.query('DEALLOCATE probe_ours');
        await tx.query('DEALLOCATE probe_default');
        return { ours: ours.map((row) => row['QUERY PLAN']).join('\n'), fallback: fallback.map((row) => row['QUERY PLAN']).join('\n') };
      });
      assert.match(plans.ours, /Index/, plans.ours);
      assert.doesNotMatch(plans.ours, /Seq Scan/, plans.ours);
      // PostgreSQL 15 with the default cost reads the whole table, the plan offline pushes kept on
      // a new database; the newer PostgreSQL inside PGlite probes at this size either way.
      if (target.name === 'postgres') assert.match(plans.fallback, /Seq Scan on planner_probe/, plans.fallback);
      else assert.match(plans.fallback, /planner_probe/, plans.fallback);
    });
  });
}
