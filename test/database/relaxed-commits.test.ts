// test-tier: e2e
// A statement the server commits without waiting for the WAL flush (Database.queryRelaxed: pending
// POS sessions, Idempotency-Key records) is committed in full on a primary whose commits wait for
// a synchronous standby: a failover to that standby must not lose what was answered (docs/deploy.md,
// section 10). Read through `SHOW synchronous_commit` on the connection each statement ran on.
// The standby case needs a cluster of its own (never the shared server on 5432): initdb on a free
// port with synchronous_standby_names set.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PostgresDatabase } from '@tapline/sync-server/db/postgres';
import { clusterTempDir, clusterUser, postgresBinDir, run, sleep, waitFor } from '../backup/cluster.ts';
import { freePort } from '@tapline/sync-server/testing';

const sharedUrl = process.env.TEST_DATABASE_URL;
const bin = postgresBinDir();

/** What `synchronous_commit` the statements of queryRelaxed ran with, `times` readings 200 ms apart. */
async function relaxedSettings(db: PostgresDatabase, times: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < times; i++) {
    const [row] = await db.queryRelaxed<{ synchronous_commit: string }>('SHOW synchronous_commit');
    seen.push(row!.synchronous_commit);
    await sleep(200);
  }
  return seen;
}

describe('relaxed commits and a synchronous standby', () => {
  test('without a synchronous standby (the shared server), relaxed statements commit with synchronous_commit off once the primary has been read', { skip: sharedUrl ? false : 'TEST_DATABASE_URL is not set' }, async () => {
    const db = new PostgresDatabase({ connectionString: sharedUrl!, poolSize: 2 });
    try {
      const [standbys] = await db.query<{ names: string }>(`SELECT current_setting('synchronous_standby_names') AS names`);
      assert.equal(standbys!.names, '', 'the shared test server has no synchronous standby');
      // Until the first reading answers, the safe way (a full commit) is taken.
      await waitFor('a relaxed statement on a synchronous_commit=off connection', async () => (await relaxedSettings(db, 1))[0] === 'off', 10_000);
      assert.deepEqual(await relaxedSettings(db, 3), ['off', 'off', 'off']);
      const [normal] = await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      assert.equal(normal!.synchronous_commit, 'on', 'every other statement commits in full');
    } finally {
      await db.close();
    }
  });

  describe('on a primary with synchronous_standby_names set', { skip: bin ? false : 'no PostgreSQL server binaries under /usr/lib/postgresql' }, () => {
    const user = clusterUser();
    let dir = '';
    let dataDir = '';
    let port = 0;
    before(async () => {
      dir = await clusterTempDir('tapline-relaxed-', user);
      dataDir = join(dir, 'data');
      port = await freePort();
      await run(user, join(bin!, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
      // A standby name that no standby answers to: a full commit would wait for it, a relaxed one does not.
      await run(user, join(bin!, 'pg_ctl'), ['-D', dataDir, '-l', join(dir, 'postgresql.log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c synchronous_standby_names=standby_a`, 'start']);
    });
    after(async () => {
      if (dataDir) await run(user, join(bin!, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], { allowFailure: true });
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('relaxed statements commit in full, before and after the primary has been read', async () => {
      const db = new PostgresDatabase({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, poolSize: 2 });
      try {
        const [standbys] = await db.query<{ names: string }>(`SELECT current_setting('synchronous_standby_names') AS names`);
        assert.equal(standbys!.names, 'standby_a');
        // Five readings over a second and a half: the primary is read again every second.
        assert.deepEqual(await relaxedSettings(db, 8), ['on', 'on', 'on', 'on', 'on', 'on', 'on', 'on']);
      } finally {
        await db.close();
      }
    });
  });
});
