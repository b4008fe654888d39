import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PostgresDatabase } from '../db/postgres.ts';
import { migrate } from '../db/migrate.ts';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { systemAccount, walletAccount } from './accounts.ts';
import { transfer } from './ledger.ts';

const cli = fileURLToPath(new URL('./check-cli.ts', import.meta.url));

function runCheck(databaseUrl: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', cli], { env: { ...process.env, DATABASE_URL: databaseUrl }, encoding: 'utf8' });
}

const hasPostgres = (await databaseTargets()).some((target) => target.name === 'postgres');

describe('npm run ledger:check', { skip: hasPostgres ? false : 'needs PostgreSQL (a separate process checks the live database)' }, () => {
  it('exits 0 on a sound ledger and 1 with the rule named when a balance drifts', async () => {
    const created = await createPostgresDatabase();
    const db = new PostgresDatabase({ connectionString: created.url });
    try {
      await migrate(db);
      await db.transaction((tx) =>
        transfer(tx, { id: 'seed', mode: 'test', kind: 'wallet_credit', legs: [
          { account: systemAccount('funding', 'ZAR'), amount: -500 },
          { account: walletAccount('wal_z', 'ZAR'), amount: 500 },
        ] }),
      );
      const sound = runCheck(created.url);
      assert.equal(sound.status, 0, sound.stderr);
      assert.match(sound.stdout, /1 transfers, 2 postings, 2 accounts/);
      assert.match(sound.stdout, /ledger:check OK/);

      await db.query(`UPDATE ledger_accounts SET balance = balance + 7 WHERE owner_id = 'wal_z'`);
      const broken = runCheck(created.url);
      assert.equal(broken.status, 1);
      assert.match(broken.stderr, /VIOLATION balance_must_equal_postings/);
    } finally {
      await db.close();
      await created.drop();
    }
  });
});
