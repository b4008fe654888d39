// The pool's clients and PostgreSQL dropping them: node-postgres ends the process on an 'error'
// event nobody listens to, so no client may be without a listener at any moment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type pg from 'pg';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { isDatabaseUnavailable } from './database.ts';
import { NOT_PRIMARY, PostgresDatabase, sidePool } from './postgres.ts';

const hasPostgres = (await databaseTargets()).some((target) => target.name === 'postgres');

describe('PostgreSQL pool clients', { skip: hasPostgres ? false : 'needs PostgreSQL (connections to drop)' }, () => {
  it('never leaves a client without an error listener between its release and the waiting transaction resuming', async () => {
    const created = await createPostgresDatabase();
    const db = new PostgresDatabase({ connectionString: created.url, poolSize: 1 });
    try {
      // What each holder's client listens with once pg-pool has taken its idle listener off, before
      // the holder's own code runs (a transaction's `await pool.connect()` resumes a microtask later).
      const listeners: number[] = [];
      db.pool.on('acquire', (client: pg.PoolClient) => queueMicrotask(() => listeners.push(client.listenerCount('error'))));
      const busy = db.query('SELECT pg_sleep(0.1)');
      const waiting = db.transaction((tx) => tx.query<{ one: number }>('SELECT 1 AS one'));
      await busy;
      assert.deepEqual(await waiting, [{ one: 1 }]);
      assert.equal(listeners.length, 2);
      assert.ok(listeners.every((count) => count >= 1), `listeners at hand-over: ${listeners.join(', ')}`);
    } finally {
      await db.close();
      await created.drop();
    }
  });

  it('fails a transaction whose connection PostgreSQL terminates as database-unavailable, survives, and serves the next one', async () => {
    const created = await createPostgresDatabase();
    const db = new PostgresDatabase({ connectionString: created.url, poolSize: 2 });
    const admin = new PostgresDatabase({ connectionString: created.url, poolSize: 1 });
    try {
      const failed = await db.transaction(async (tx) => {
        const [{ pid }] = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // The FATAL arrives while no statement of ours is running: the client hears it as an event.
        // Waited for: the backend has left (it sent its FATAL first), seen over another connection.
        for (const deadline = Date.now() + 60_000; ; ) {
          const [left] = (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1', [pid])) as [{ n: number }];
          if (left.n === 0) break;
          assert.ok(Date.now() < deadline, 'the terminated backend left');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await tx.query('SELECT 1');
      }).then(() => null, (error: unknown) => error);
      assert.ok(failed, 'the transaction failed');
      assert.ok(isDatabaseUnavailable(failed), String(failed));
      assert.deepEqual(await db.query<{ two: number }>('SELECT 2 AS two'), [{ two: 2 }], 'the pool replaced the dropped client');
    } finally {
      await Promise.all([db.close(), admin.close()]);
      await created.drop();
    }
  });

  it('ends a side pool whose holder keeps a client, and one it was taking at that moment, without waiting for them', async () => {
    const created = await createPostgresDatabase();
    const errors: Error[] = [];
    const side = sidePool(created.url, 2, (error) => errors.push(error));
    try {
      // Like the socket.io adapter: one client held for good (LISTEN), another being taken when the end comes.
      const held = await side.pool.connect();
      await held.query('LISTEN tapline_test');
      // A query of its own in flight (pg-pool takes a client by callback for it and gives it back
      // itself): answered, its client given back once.
      const querying = side.pool.query<{ done: boolean }>('SELECT true AS done FROM pg_sleep(0.2)');
      const taking = side.pool.connect();
      let answered = false;
      void taking.then(() => (answered = true), () => (answered = true));
      await side.end();
      assert.deepEqual((await querying).rows, [{ done: true }]);
      assert.equal(side.pool.totalCount, 0, 'no connection is left open');
      // The one being taken is never handed over: its holder would keep it, and nothing ends it now.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(answered, false);
      let later = false;
      void side.pool.connect().then(() => (later = true), () => (later = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(later, false, 'a connect after the end is never answered');
      assert.deepEqual(errors, []);
    } finally {
      await created.drop();
    }
  });

  it('holds one client for a holder that needs one: taking another gives back the one still held, without its end reaching the holder', async () => {
    const created = await createPostgresDatabase();
    const errors: Error[] = [];
    const side = sidePool(created.url, 2, (error) => errors.push(error), { holdOne: true });
    try {
      // Like the socket.io adapter after a dropped LISTEN: it reconnects twice.
      const first = await side.pool.connect();
      let firstEnded = false;
      first.on('end', () => (firstEnded = true));
      await first.query('LISTEN tapline_test');
      const second = await side.pool.connect();
      await second.query('LISTEN tapline_test');
      assert.equal(side.pool.totalCount, 1, 'the first client was given back and closed');
      assert.equal(firstEnded, false, 'the holder is not told: it would reconnect once more');
      // The pool's other slot is free for NOTIFY.
      const heard = new Promise<string | undefined>((resolve) => second.once('notification', (message) => resolve(message.payload)));
      await side.pool.query("SELECT pg_notify('tapline_test', 'hello')");
      assert.equal(await heard, 'hello');
      await side.end();
      assert.equal(side.pool.totalCount, 0);
      assert.deepEqual(errors.map((error) => error.message), []);
    } finally {
      await created.drop();
    }
  });

  it('checks that a new connection reached the primary, and counts a standby\'s refusal as an unavailable database (the failover run, npm run chaos:failover, meets a real standby)', async () => {
    const created = await createPostgresDatabase();
    const db = new PostgresDatabase({ connectionString: created.url, poolSize: 1 });
    try {
      assert.deepEqual(await db.query<{ one: number }>('SELECT 1 AS one'), [{ one: 1 }], 'the primary is accepted');
      // No standby here: the refusal's error is what isDatabaseUnavailable counts as unavailable.
      assert.equal(isDatabaseUnavailable(Object.assign(new Error('connected to a standby, not the primary'), { code: NOT_PRIMARY })), true);
      assert.equal(isDatabaseUnavailable(Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' })), true);
    } finally {
      await db.close();
      await created.drop();
    }
  });
});
