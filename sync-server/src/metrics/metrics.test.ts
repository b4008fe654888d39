import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../testing/server.ts';
import { connectTerminal } from '../testing/offline.ts';
import { startMetricsListener } from './listener.ts';
import { databaseErrorCode, recordSyncPush, recordSyncVerdict } from './registry.ts';

/** The value of one sample line of the exposition text, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

for (const target of await databaseTargets()) {
  describe(`Prometheus metrics and readiness on ${target.name}`, () => {
    let offsetMs = 0;
    const server = useTestServer(target, { rateLimitScale: 20, now: () => new Date(Date.now() + offsetMs) });
    const scrape = async () => {
      const answer = await fetch(`${server().baseUrl}/metrics`, { headers: ADMIN });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return answer.text();
    };

    it('GET /metrics needs the admin token: 401 without one, 401 for a wrong one, no merchant key either', async () => {
      const s = server();
      const none = await s.request('GET', '/metrics');
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'authentication_required');
      const wrong = await s.request('GET', '/metrics', { headers: { authorization: 'Bearer admin.not-the-token-at-all-0000000000' } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'invalid_admin_token');
      const merchant = await s.createMerchant();
      assert.equal((await s.request('GET', '/metrics', { headers: { authorization: `Bearer ${merchant.testKey}` } })).status, 401);
      const text = await scrape();
      assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'Node\'s own metrics are there');
    });

    it('counts requests by route pattern (not the raw URL) with latencies, and ledger transfers by kind', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, fund: 100 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring' } });
      const before = await scrape();
      const tapsBefore = sample(before, 'tapline_ledger_transfers_total', { kind: 'pos_payment' }) ?? 0;
      const readsBefore = sample(before, 'tapline_http_request_duration_seconds_count', { method: 'GET', route: '/api/pos/sessions/:sessionId', status_code: '200' }) ?? 0;
      const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount: 3, currency: 'NGN' } });
      await s.request('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: key, body: { tagId: tag.body.tagId } });
      for (let index = 0; index < 3; index++) await s.request('GET', `/api/pos/sessions/${session.body.sessionId}`, { headers: key });
      await s.request('GET', '/api/nothing/here');
      const after = await scrape();
      assert.equal(sample(after, 'tapline_ledger_transfers_total', { kind: 'pos_payment' }), tapsBefore + 1);
      assert.equal(sample(after, 'tapline_http_request_duration_seconds_count', { method: 'GET', route: '/api/pos/sessions/:sessionId', status_code: '200' }), readsBefore + 3);
      const bucket = sample(after, 'tapline_http_request_duration_seconds_bucket', { method: 'GET', route: '/api/pos/sessions/:sessionId', status_code: '200', le: '+Inf' });
      assert.equal(bucket, readsBefore + 3);
      assert.ok((sample(after, 'tapline_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status_code: '404' }) ?? 0) >= 1);
      assert.doesNotMatch(after, new RegExp(session.body.sessionId), 'no raw URL, no id, in any label');
      assert.doesNotMatch(after, /mk_test_/);
      assert.ok((sample(after, 'tapline_ledger_transfers_total', { kind: 'wallet_credit' }) ?? 0) >= 1, 'the faucet credit of the payer');
      assert.ok((sample(after, 'tapline_ledger_transfers_total', { kind: 'sandbox_float' }) ?? 0) >= 1, 'the merchant\'s sandbox float');
    });

    it('gauges read at scrape time: the outbox backlog and its oldest due delivery, and connected terminals', async () => {
      const s = server();
      const merchant = await s.createMerchant({ webhookUrl: 'http://127.0.0.1:9/hook' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, fund: 100 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring' } });
      const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount: 3, currency: 'NGN', callbackUrl: 'http://127.0.0.1:9/callback' } });
      await s.request('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: key, body: { tagId: tag.body.tagId } });
      const [expected] = await s.db.query<{ pending: number }>(`SELECT count(*)::int8 AS pending FROM event_deliveries WHERE state IN ('pending', 'delivering')`);
      assert.ok((expected?.pending ?? 0) >= 1, 'the callback waits in the outbox (the dispatcher does not run in tests)');
      await s.db.query(`UPDATE event_deliveries SET next_attempt_at = now() - interval '90 seconds' WHERE url = 'http://127.0.0.1:9/callback'`);
      offsetMs += 1_100; // past the one-second reuse of an outbox read, on the app's clock
      let text = await scrape();
      assert.equal(sample(text, 'tapline_outbox_deliveries_pending'), expected?.pending);
      const age = sample(text, 'tapline_outbox_oldest_due_delivery_age_seconds') ?? 0;
      assert.ok(age >= 90 && age < 200, `oldest due ${age} s`);

      assert.equal(sample(text, 'tapline_sync_terminals_connected'), 0);
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      text = await scrape();
      assert.equal(sample(text, 'tapline_sync_terminals_connected'), 1);
      socket.disconnect();
      for (const deadline = Date.now() + 60_000; sample(await scrape(), 'tapline_sync_terminals_connected') !== 0;) {
        assert.ok(Date.now() < deadline, 'the terminal left');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    it('sync pushes and verdicts by code, database pool use (PostgreSQL) and the error classification', async () => {
      recordSyncPush('offline_payments', 3);
      recordSyncVerdict('offline_payments', 'accepted', null);
      recordSyncVerdict('offline_payments', 'declined', 'pin_required');
      recordSyncVerdict('offline_payments', 'declined', 'pin_required');
      const text = await scrape();
      assert.ok((sample(text, 'tapline_sync_pushed_documents_total', { collection: 'offline_payments' }) ?? 0) >= 3);
      assert.ok((sample(text, 'tapline_sync_verdicts_total', { collection: 'offline_payments', status: 'accepted', code: 'ok' }) ?? 0) >= 1);
      assert.ok((sample(text, 'tapline_sync_verdicts_total', { collection: 'offline_payments', status: 'declined', code: 'pin_required' }) ?? 0) >= 2);
      const total = sample(text, 'tapline_database_pool_clients', { state: 'total' });
      if (target.name === 'postgres') {
        assert.ok(total !== undefined && total >= 1, 'the pool holds connections');
        assert.ok((sample(text, 'tapline_database_pool_clients', { state: 'waiting' }) ?? -1) >= 0);
      } else {
        assert.equal(total, undefined, 'PGlite has no pool');
      }
      assert.equal(databaseErrorCode(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), '57P01');
      assert.equal(databaseErrorCode(new Error('Connection terminated unexpectedly')), 'connection');
      assert.equal(databaseErrorCode(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), 'connection');
      assert.equal(databaseErrorCode(Object.assign(new Error('Wrong PIN'), { code: 'wrong_pin' })), undefined);
    });

    it('METRICS_PORT: a separate listener serves /metrics without a credential, and nothing else', async () => {
      const s = server();
      const listener = await startMetricsListener(s.app, '127.0.0.1', 0);
      try {
        assert.match(listener.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
        const answer = await fetch(listener.url);
        assert.equal(answer.status, 200);
        assert.ok(sample(await answer.text(), 'tapline_outbox_deliveries_pending') !== undefined);
        const other = await fetch(listener.url.replace('/metrics', '/api/health'));
        assert.equal(other.status, 404);
        assert.equal(((await other.json()) as { code: string }).code, 'route_not_found');
      } finally {
        await listener.close();
      }
    });

    it('readiness is separate from liveness: 503 while a migration this server ships is missing', async () => {
      const s = server();
      type Readiness = { ready: boolean; database: boolean; writable: boolean; migrations: { applied: number; expected: number; missing: number[] }; shuttingDown: boolean };
      const ready = await s.request<Readiness>('GET', '/api/health/ready');
      assert.equal(ready.status, 200);
      assert.equal(ready.body.ready, true);
      assert.equal(ready.body.database, true);
      assert.equal(ready.body.writable, true);
      assert.equal(ready.body.migrations.applied, ready.body.migrations.expected);
      assert.deepEqual(ready.body.migrations.missing, []);
      assert.ok(ready.body.migrations.expected >= 18);
      assert.equal(ready.body.shuttingDown, false);
      const [latest] = await s.db.query<{ version: number; name: string; applied_at: Date }>('SELECT version, name, applied_at FROM schema_migrations ORDER BY version DESC LIMIT 1');
      await s.db.query('DELETE FROM schema_migrations WHERE version = $1', [latest!.version]);
      try {
        const behind = await s.request<Readiness>('GET', '/api/health/ready');
        assert.equal(behind.status, 503);
        assert.equal(behind.body.ready, false);
        assert.equal(behind.body.database, true);
        assert.ok(behind.body.migrations.applied < latest!.version);
        assert.deepEqual(behind.body.migrations.missing, [latest!.version]);
        assert.equal((await s.request('GET', '/api/health')).status, 200, 'alive all the same');
      } finally {
        await s.db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [latest!.version, latest!.name, latest!.applied_at]);
      }
      assert.equal((await s.request('GET', '/api/health/ready')).status, 200);
    });

    if (target.name === 'postgres') {
      it('readiness is 503 while the database is read-only (a standby not yet promoted), and 200 again once it takes writes', async () => {
        const s = server();
        const admin = new pg.Client({ connectionString: target.connectionString });
        admin.on('error', () => undefined);
        await admin.connect();
        const name = (await admin.query<{ name: string }>('SELECT current_database() AS name')).rows[0]!.name;
        // New sessions start read-only, as on a hot standby; the server's pool reconnects into them.
        const endSessions = () => admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
        try {
          await admin.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
          await endSessions();
          let readOnly: { status: number; body: { ready: boolean; database: boolean; writable: boolean } } | undefined;
          for (const deadline = Date.now() + 60_000; !readOnly || readOnly.status !== 503 || readOnly.body.database !== true;) {
            assert.ok(Date.now() < deadline, `not ready while read-only: ${JSON.stringify(readOnly?.body)}`);
            readOnly = await s.request<{ ready: boolean; database: boolean; writable: boolean }>('GET', '/api/health/ready');
            if (readOnly.status !== 503 || readOnly.body.database !== true) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.deepEqual([readOnly.body.ready, readOnly.body.writable], [false, false]);
          assert.equal((await s.request('GET', '/api/health')).status, 200, 'alive all the same');
        } finally {
          await admin.query(`ALTER DATABASE "${name}" RESET default_transaction_read_only`);
          await endSessions();
          await admin.end();
        }
        for (const deadline = Date.now() + 60_000; (await s.request('GET', '/api/health/ready')).status !== 200;) {
          assert.ok(Date.now() < deadline, 'ready again once the database takes writes');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });

      it('readiness is 503 when the database does not answer within its deadline (a table lock holds the check)', async () => {
        const s = server();
        const locker = new pg.Client({ connectionString: target.connectionString });
        locker.on('error', () => undefined);
        await locker.connect();
        try {
          await locker.query('BEGIN');
          await locker.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
          // Answered while the lock is still held (it goes only after): at the check's deadline, not
          // when the lock went. A check that waited for the lock would never answer: a generous ceiling.
          let ceiling: NodeJS.Timeout | undefined;
          const stuck = await Promise.race([
            s.request<{ ready: boolean; database: boolean }>('GET', '/api/health/ready'),
            new Promise<never>((_, reject) => (ceiling = setTimeout(() => reject(new Error('readiness waited for the lock')), 60_000))),
          ]).finally(() => clearTimeout(ceiling));
          assert.equal(stuck.status, 503);
          assert.equal(stuck.body.database, false);
          await locker.query('ROLLBACK');
        } finally {
          await locker.end();
        }
        for (const deadline = Date.now() + 60_000; (await s.request('GET', '/api/health/ready')).status !== 200;) {
          assert.ok(Date.now() < deadline, 'ready again once the database answers');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
    }
  });
}
