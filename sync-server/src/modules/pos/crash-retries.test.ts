import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createPostgresDatabase, databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { exitOf, startServerProcess } from '../../testing/server-process.ts';
import { ADMIN, TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { OWNER_SILENT_AFTER_SECONDS } from '../../http/claim-owner.ts';
import { sessionTransferId } from './service.ts';

type Session = { sessionId: string; status: string; amount: number; payerHandle?: string; walletRef?: string };

/** A merchant, a funded customer with a ring, through the API of `request`. */
async function shop(request: TestServer['request']) {
  const merchant = await request<{ id: string; testKey: string }>('POST', '/api/admin/merchants', {
    headers: ADMIN,
    body: { name: 'Crash Shop', handle: uniqueHandle('crash'), country: 'NG', currency: 'NGN' },
  });
  assert.equal(merchant.status, 201);
  const key = { 'x-merchant-api-key': merchant.body.testKey };
  const payer = uniqueHandle('payer');
  assert.equal((await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle: payer, pin: '1234', country: 'NG', currency: 'NGN' } })).status, 201);
  assert.equal((await request('POST', `/api/admin/wallets/${payer}/credit`, { headers: ADMIN, body: { amount: 100, currency: 'NGN' } })).status, 200);
  const tag = await request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring' } });
  assert.equal(tag.status, 201);
  return { merchantId: merchant.body.id, key, payer, tagId: tag.body.tagId };
}

for (const target of await databaseTargets()) {
  describe(`retries after a crash answer what happened on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    it('POST /api/pos/sessions honours Idempotency-Key: the session id derives from the key, a replay answers the same session', async () => {
      const s = server();
      const { merchantId, key } = await shop(s.request);
      const headers = { ...key, 'idempotency-key': 'sale-0001' };
      const body = { amount: 12.5, currency: 'NGN', description: 'Jollof' };
      const created = await s.request<Session>('POST', '/api/pos/sessions', { headers, body });
      assert.equal(created.status, 201);
      assert.match(created.body.sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a version 8 (derived) UUID');
      const replay = await s.request<Session>('POST', '/api/pos/sessions', { headers, body });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, created.body);
      const reused = await s.request('POST', '/api/pos/sessions', { headers, body: { ...body, amount: 13 } });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      const another = await s.request<Session>('POST', '/api/pos/sessions', { headers: { ...key, 'idempotency-key': 'sale-0002' }, body });
      assert.notEqual(another.body.sessionId, created.body.sessionId);

      // The process died after the insert and before its answer was recorded: the claim is still
      // in progress and its owner beats no more. The retry runs again and finds the same session.
      await s.db.query(
        `UPDATE idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL, completed_at = NULL, owner = 'srv_gone'
         WHERE key = 'sale-0001'`,
      );
      const afterCrash = await s.request<Session>('POST', '/api/pos/sessions', { headers, body });
      assert.equal(afterCrash.status, 201);
      assert.equal(afterCrash.headers.get('idempotent-replayed'), null, 'a re-run, not a replay');
      assert.equal(afterCrash.body.sessionId, created.body.sessionId);
      const [count] = await s.db.query<{ sessions: number }>('SELECT count(*)::int8 AS sessions FROM pos_sessions WHERE merchant_id = $1', [merchantId]);
      assert.equal(count?.sessions, 2, 'one session per key, never a second for a retry');
    });

    it('a claim whose process still beats is 409 idempotency_in_progress; once it has been silent for the owner timeout it is taken over', async () => {
      const s = server();
      const { key, tagId, payer } = await shop(s.request);
      const session = await s.request<Session>('POST', '/api/pos/sessions', { headers: key, body: { amount: 4, currency: 'NGN' } });
      const headers = { ...key, 'idempotency-key': `tap-${session.body.sessionId}` };
      // A tap another process claimed and has not answered yet.
      await s.db.query(`INSERT INTO server_instances (id, pid, hostname) VALUES ('srv_other', 1, 'elsewhere')`);
      const first = await s.request<Session>('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers, body: { tagId } });
      assert.equal(first.body.status, 'completed');
      await s.db.query(`UPDATE idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL, owner = 'srv_other' WHERE key = $1`, [headers['idempotency-key']]);
      const busy = await s.request('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers, body: { tagId } });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.code, 'idempotency_in_progress');
      await s.db.query(`UPDATE server_instances SET heartbeat_at = now() - make_interval(secs => $1) WHERE id = 'srv_other'`, [OWNER_SILENT_AFTER_SECONDS + 1]);
      const retried = await s.request<Session>('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers, body: { tagId } });
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      assert.equal(retried.body.status, 'completed', 'the re-run meets the completed session and answers it');
      assert.equal(retried.body.walletRef, first.body.walletRef);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 9_600, 'charged once');
      // This server's own heartbeat is there and fresh.
      const [own] = await s.db.query<{ fresh: boolean }>(`SELECT bool_or(heartbeat_at > now() - interval '5 seconds') AS fresh FROM server_instances WHERE id LIKE 'srv_%' AND id <> 'srv_other'`);
      assert.equal(own?.fresh, true);
    });
  });
}

const postgres = (await databaseTargets()).find((target) => target.name === 'postgres');

describe('a server process killed mid-request (PostgreSQL)', { skip: postgres ? false : 'PostgreSQL is not reachable' }, () => {
  it('its in-flight Idempotency-Key claim is released once its process stops beating (not after the 120 s abandonment): the retry on another process completes the tap once', async (t) => {
    const database = await createPostgresDatabase();
    const env = { DATABASE_URL: database.url, ADMIN_TOKEN: TEST_ADMIN_TOKEN, SECRETS_KEY: TEST_SECRETS_KEY_HEX, LOG_LEVEL: 'warn', POS_SWEEP_INTERVAL_MS: '0' };
    const locker = new pg.Client({ connectionString: database.url });
    locker.on('error', () => undefined);
    try {
      const doomed = await startServerProcess({ ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'tapline-kill-a-')) });
      const survivor = await startServerProcess({ ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'tapline-kill-b-')), METRICS_PORT: '0' });
      const requestTo = (baseUrl: string): TestServer['request'] => async (method, path, options = {}) => {
        const headers: Record<string, string> = { ...options.headers, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) };
        const response = await fetch(baseUrl + path, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
        const text = await response.text();
        return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as never };
      };
      const onDoomed = requestTo(doomed.url);
      const onSurvivor = requestTo(survivor.url);
      const { key, payer, tagId } = await shop(onDoomed);
      const session = await onDoomed<Session>('POST', '/api/pos/sessions', { headers: key, body: { amount: 7, currency: 'NGN', description: 'kill -9' } });
      assert.equal(session.status, 201);
      const sessionId = session.body.sessionId;
      const headers = { ...key, 'idempotency-key': `kill-${sessionId}` };

      // Hold the session's row so the doomed process's tap waits inside pos_tap, claim taken. Its
      // statement outlives it: PostgreSQL runs it to the end when the lock goes, and only then
      // finds the client gone. The retry then answers the session that tap completed.
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM pos_sessions WHERE id = $1 FOR UPDATE', [sessionId]);
      const inFlight = onDoomed('POST', `/api/pos/sessions/${sessionId}/tap`, { headers, body: { tagId } }).catch((error: unknown) => error);
      for (const deadline = Date.now() + 60_000; ;) {
        const claims = await locker.query(`SELECT 1 FROM idempotency_keys WHERE key = $1 AND state = 'in_progress'`, [headers['idempotency-key']]);
        if (claims.rowCount === 1) break;
        assert.ok(Date.now() < deadline, 'the doomed process claimed the key');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      doomed.child.kill('SIGKILL');
      const killedAt = Date.now();
      await exitOf(doomed.child);
      assert.ok((await inFlight) instanceof Error, 'the client lost its answer');
      await locker.query('ROLLBACK');

      const first = await onSurvivor('POST', `/api/pos/sessions/${sessionId}/tap`, { headers, body: { tagId } });
      assert.equal(first.status, 409, 'at first the claim still looks alive');
      assert.equal(first.body.code, 'idempotency_in_progress');
      // Retried until it answers. The ceiling stays under the 120 s after which any claim counts as
      // abandoned, so an answer proves the claim went with its silent process (OWNER_SILENT_AFTER_SECONDS).
      let answer = first;
      while (answer.status === 409 && Date.now() - killedAt < 90_000) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        answer = await onSurvivor<Session>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers, body: { tagId } });
      }
      const releasedAfterMs = Date.now() - killedAt;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal((answer.body as Session).status, 'completed');
      // Figure for the log only (about OWNER_SILENT_AFTER_SECONDS on an idle machine).
      t.diagnostic(`claim released ${releasedAfterMs} ms after the kill`);
      const replay = await onSurvivor<Session>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers, body: { tagId } });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');

      const transfers = await locker.query<{ count: string }>('SELECT count(*) FROM ledger_transfers WHERE id = $1', [sessionTransferId(sessionId)]);
      assert.equal(Number(transfers.rows[0]?.count), 1);
      const balance = await locker.query<{ balance: string }>(
        `SELECT a.balance FROM ledger_accounts a JOIN wallets w ON w.id = a.owner_id WHERE a.owner_type = 'wallet' AND w.handle = $1 AND a.currency = 'NGN'`,
        [payer],
      );
      assert.equal(Number(balance.rows[0]?.balance), 9_300, 'charged exactly once');
      // The survivor also serves its metrics on the METRICS_PORT listener it printed.
      const metricsUrl = /Prometheus metrics \(no credential\): (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(survivor.output())?.[1];
      assert.ok(metricsUrl, survivor.output());
      const metrics = await (await fetch(metricsUrl)).text();
      assert.match(metrics, /^tapline_http_request_duration_seconds_count\{method="POST",route="\/api\/pos\/sessions\/:sessionId\/tap",status_code="200"\} [1-9]/m);
      survivor.child.kill('SIGTERM');
      assert.equal(await exitOf(survivor.child), 0, 'the survivor never exited on its own');
    } finally {
      await locker.end().catch(() => undefined);
      await database.drop();
    }
  });
});
