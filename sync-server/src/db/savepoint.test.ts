import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { inSavepoint } from './savepoint.ts';

for (const target of await databaseTargets()) {
  describe(`inSavepoint on ${target.name}`, () => {
    const database = useDatabase(target);

    it('keeps the work that succeeded and the caller\'s statements around a failure that it rolled back', async () => {
      const db = database();
      await db.query('CREATE TABLE savepoint_probe (id int PRIMARY KEY)');
      const outcomes = await db.transaction(async (tx) => {
        await tx.query('INSERT INTO savepoint_probe VALUES (1)');
        const kept = await inSavepoint(tx, 'probe_ok', async () => {
          await tx.query('INSERT INTO savepoint_probe VALUES (2)');
          return 'two';
        });
        const failed = await inSavepoint(tx, 'probe_fail', async () => {
          await tx.query('INSERT INTO savepoint_probe VALUES (3)');
          await tx.query('INSERT INTO savepoint_probe VALUES (1)'); // duplicate key: the statement fails
        });
        // The transaction is still usable after the rolled-back savepoint.
        await tx.query('INSERT INTO savepoint_probe VALUES (4)');
        return { kept, failed };
      });
      assert.deepEqual(outcomes.kept, { ok: true, value: 'two' });
      assert.equal(outcomes.failed.ok, false);
      assert.match(String((outcomes.failed as { error: unknown }).error), /duplicate key/);
      const rows = await db.query<{ id: number }>('SELECT id FROM savepoint_probe ORDER BY id');
      assert.deepEqual(rows.map((row) => row.id), [1, 2, 4]);
    });

    it('refuses a name that is not a plain identifier (it is spliced into SQL)', async () => {
      const db = database();
      await assert.rejects(
        db.transaction((tx) => inSavepoint(tx, 'x; DROP TABLE savepoint_probe', async () => 1)),
        /bad savepoint name/,
      );
      const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'savepoint_probe'");
      assert.equal(row?.n, 1);
    });
  });
}
