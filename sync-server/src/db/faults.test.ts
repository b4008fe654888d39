// Database faults seen from outside: the real server process (`npm run server`) on PostgreSQL,
// reached through a TCP relay the test can cut. Terminated backends (pg_terminate_backend, what
// a PostgreSQL restart, a failover or idle_in_transaction_session_timeout do to a connection)
// under load, then the database gone for seconds and back. A restart of the whole PostgreSQL
// cluster is not possible here (other suites share it); the relay cut is the stand-in for "the
// database is down", terminating backends the stand-in for "it dropped our connections".
// PGlite runs inside the server's process: it has no connection to lose.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, SYNC_NAMESPACE, type StreamMessage, type SyncFailure } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../ledger/check.ts';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { type Relay, startRelay } from '../testing/relay.ts';
import { type StartedServerProcess, startServerProcess } from '../testing/server-process.ts';
import { ADMIN, TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX } from '../testing/server.ts';
import { PostgresDatabase } from './postgres.ts';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const postgres = (await databaseTargets()).find((target) => target.name === 'postgres');

describe('database faults on postgres', { skip: postgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL or 127.0.0.1:5432)' }, () => {
  let database: { url: string; drop(): Promise<void> };
  let relay: Relay;
  let server: StartedServerProcess;
  let probe: PostgresDatabase;
  let exitedOnItsOwn: string | undefined;
  const sockets: Socket[] = [];

  before(async () => {
    database = await createPostgresDatabase();
    relay = await startRelay(database.url);
    const viaRelay = new URL(database.url);
    viaRelay.port = String(relay.port);
    server = await startServerProcess({
      DATABASE_URL: viaRelay.toString(),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SECRETS_KEY: TEST_SECRETS_KEY_HEX,
      LOG_LEVEL: 'warn',
      SANDBOX_STEP_MS: '200',
      SCHEDULER_POLL_MS: '100',
      // The shared rate-limit counters live in the database too: they must not turn the outage into other answers.
      RATE_LIMIT_STORE: 'postgres',
    }, { killAfterTest: false });
    server.child.once('exit', (code, signal) => {
      exitedOnItsOwn = `exit code ${code}, signal ${signal}`;
    });
    // One connection: terminateBackends() spares its own backend only.
    probe = new PostgresDatabase({ connectionString: database.url, poolSize: 1 });
  });

  after(async () => {
    for (const socket of sockets) socket.disconnect();
    server?.child.kill('SIGKILL');
    await probe?.close();
    await relay?.close();
    await database?.drop();
  });

  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> => {
    const response = await fetch(server.url + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as Json };
  };
  const expectStatus = async (status: number, answer: Promise<Answer>): Promise<Json> => {
    const settled = await answer;
    assert.equal(settled.status, status, JSON.stringify(settled.body));
    return settled.body;
  };

  /** Ends every connection of the server to its database, as a PostgreSQL restart would. */
  const terminateBackends = async (): Promise<number> => {
    // In the select list, not the WHERE clause: there the planner may call it before pid <> pg_backend_pid().
    const rows = await probe.query<{ terminated: boolean }>(
      'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.filter((row) => row.terminated).length;
  };

  let shop: { key: Record<string, string>; terminalId: string; terminalToken: string; tags: string[] };

  it('provisions a shop through the server', async () => {
    const merchant = await expectStatus(201, call('POST', '/api/admin/merchants', ADMIN, { name: 'Fault Shop', handle: 'fault_shop', country: 'NG', currency: 'NGN' }));
    await expectStatus(200, call('PATCH', `/api/admin/merchants/${String(merchant.id)}`, ADMIN, { rateLimitMultiplier: 1000 }));
    const key = { 'x-merchant-api-key': String(merchant.testKey) };
    const tags: string[] = [];
    for (let index = 0; index < 8; index++) {
      const handle = `fault_customer_${index}`;
      await expectStatus(201, call('POST', '/api/admin/wallets', ADMIN, { handle, country: 'NG', currency: 'NGN', pin: '1234' }));
      await expectStatus(200, call('POST', `/api/admin/wallets/${handle}/credit`, ADMIN, { amount: 100_000, currency: 'NGN' }));
      tags.push(String((await expectStatus(201, call('POST', '/api/wearables', key, { handle, tagType: 'ring', displayName: handle }))).tagId));
    }
    const terminal = await expectStatus(201, call('POST', '/api/merchant/terminals', key, { name: 'Till' }));
    shop = { key, terminalId: String(terminal.id), terminalToken: String(terminal.token), tags };
  });

  it('keeps serving while its connections are terminated under load: 503 database_unavailable with Retry-After, never a crash or a 500', { timeout: 120_000 }, async () => {
    const answers = new Map<string, number>();
    const count = (label: string) => answers.set(label, (answers.get(label) ?? 0) + 1);
    /** Pays acknowledged (2xx) by key; every key is retried until it is. */
    const acknowledged = new Map<string, string>();
    let running = true;

    const payUntilAcknowledged = async (key: string) => {
      while (exitedOnItsOwn === undefined) {
        const answer = await call('POST', '/api/pay', { ...shop.key, 'idempotency-key': key }, PAYMENT).catch(() => undefined);
        if (!answer) {
          count('network error');
          await sleep(100);
          continue;
        }
        if (answer.status === 201 || answer.status === 200) {
          acknowledged.set(key, String(answer.body.paymentId));
          return;
        }
        count(`${answer.status} ${String(answer.body.code)}`);
        if (answer.status === 503) assert.equal(answer.headers.get('retry-after'), '2');
        await sleep(answer.status === 409 ? 200 : 50);
      }
    };
    const sale = async (worker: number) => {
      const created = await call('POST', '/api/pos/sessions', shop.key, { amount: 1.5, currency: 'NGN', description: 'fault' }).catch(() => undefined);
      if (!created || created.status !== 201) return count(created ? `${created.status} ${String(created.body.code)}` : 'network error');
      const tagId = shop.tags[worker % shop.tags.length]!;
      const tapped = await call('POST', `/api/pos/sessions/${String(created.body.sessionId)}/tap`, shop.key, { tagId }).catch(() => undefined);
      count(tapped ? (tapped.status === 200 ? `tap ${String(tapped.body.status)}` : `${tapped.status} ${String(tapped.body.code)}`) : 'network error');
    };
    const workers = Array.from({ length: 12 }, async (_, worker) => {
      while (running && exitedOnItsOwn === undefined) {
        if (worker % 2 === 0) await payUntilAcknowledged(randomUUID());
        else await sale(worker);
      }
    });

    // Paced by what the traffic did, not by the clock: each termination lands on traffic that got
    // answers since the one before, and the traffic runs until the checks below have something to
    // check (a request caught by a terminated connection, taps completed), with generous ceilings.
    const answered = () => [...answers.values()].reduce((sum, n) => sum + n, 0) + acknowledged.size;
    await until('the traffic to get answers', async () => (answered() >= 5 ? true : undefined), 60_000);
    let terminated = 0;
    for (let round = 0; round < 5 || ((answers.get('503 database_unavailable') ?? 0) === 0 && round < 30); round++) {
      const before = answered();
      terminated += await terminateBackends();
      await until('the traffic to get answers again', async () => (answered() > before ? true : undefined), 60_000);
    }
    await until('taps to complete after the faults', async () => ((answers.get('tap completed') ?? 0) > 10 ? true : undefined), 60_000);
    running = false;
    await Promise.all(workers);

    assert.equal(exitedOnItsOwn, undefined, `the server exited:\n${server.output().slice(-3000)}`);
    assert.ok(terminated >= 5, `only ${terminated} backends terminated`);
    const refusals = [...answers.entries()].filter(([label]) => !/^tap completed$/.test(label));
    for (const [label] of refusals) assert.match(label, /^(503 database_unavailable|409 idempotency_in_progress|network error)$/, `unexpected answer ${label}: ${JSON.stringify([...answers])}`);
    assert.ok((answers.get('503 database_unavailable') ?? 0) > 0, `no request was caught by a terminated connection: ${JSON.stringify([...answers])}`);
    assert.ok((answers.get('tap completed') ?? 0) > 10, JSON.stringify([...answers]));

    // After the faults everything answers again, on connections the pool opened anew.
    await expectStatus(200, call('GET', '/api/health'));
    const key = randomUUID();
    const paid = await expectStatus(201, call('POST', '/api/pay', { ...shop.key, 'idempotency-key': key }, PAYMENT));
    acknowledged.set(key, String(paid.paymentId));

    // Every acknowledged payment was debited exactly once, and the ledger holds.
    const debits = await probe.query<{ id: string; n: number }>(
      'SELECT id, count(*)::int8 AS n FROM ledger_transfers WHERE id = ANY($1::text[]) GROUP BY id',
      [[...acknowledged.values()].map((paymentId) => `${paymentId}:debit`)],
    );
    assert.equal(debits.length, acknowledged.size);
    assert.ok(debits.every((row) => row.n === 1));
    const report = await checkLedger(probe);
    assert.deepEqual(report.violations, []);
    assert.doesNotMatch(server.output(), /unhandled|uncaught/i);
  });

  it('answers 503 while the database is down, keeps terminals connected, and resumes by itself when it is back', { timeout: 120_000 }, async () => {
    // Two connections of one terminal: a verdict pushed through one streams to the other.
    const connect = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = io(`${server.url}${SYNC_NAMESPACE}`, { auth: { token: `term.${shop.terminalToken}` }, transports: ['websocket'], forceNew: true });
        sockets.push(socket);
        socket.once(SYNC_EVENTS.hello, () => resolve(socket));
        socket.once('connect_error', reject);
      });
    const [till, window] = [await connect(), await connect()];
    let disconnects = 0;
    for (const socket of [till, window]) socket.on('disconnect', () => (disconnects += 1));
    const push = (doc: OfflinePaymentDoc) =>
      till.timeout(15_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: [{ assumedMasterState: null, newDocumentState: doc }] }) as Promise<PushResponse | SyncFailure>;
    const tap = (): OfflinePaymentDoc => ({
      id: randomUUID(), terminalId: shop.terminalId, kind: 'tap', tagId: shop.tags[0]!, amountMinor: 250, currency: 'NGN',
      description: 'offline', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
    });

    // A sandbox payment the scheduler has yet to step when the database goes.
    const pending = await expectStatus(201, call('POST', '/api/pay', { ...shop.key, 'idempotency-key': randomUUID() }, { ...PAYMENT, reference: 'fault-pending' }));
    assert.equal(pending.status, 'pending');

    relay.cut();
    const health = await call('GET', '/api/health');
    assert.equal(health.status, 503);
    assert.equal(health.body.ok, false);
    assert.equal(health.body.dbLatency, null);
    // A credential sent along cannot be checked either: still a 503, never a 500.
    const checked = await call('GET', '/api/health', { 'x-merchant-api-key': `mk_test_${'0'.repeat(64)}` });
    assert.equal(checked.status, 503, JSON.stringify(checked.body));
    const key = randomUUID();
    const refused = await call('POST', '/api/pay', { ...shop.key, 'idempotency-key': key }, PAYMENT);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '2');
    assert.deepEqual(refused.body, { error: 'The database is unavailable; retry shortly', code: 'database_unavailable' });
    const listed = await call('GET', '/api/pos/sessions', shop.key);
    assert.equal(listed.status, 503);
    assert.equal(listed.body.code, 'database_unavailable');
    const offline = tap();
    const during = await push(offline);
    assert.ok('code' in during, JSON.stringify(during));
    // Background workers run and fail meanwhile: waited for in the log, not slept for.
    const cutAt = server.output().length;
    await until('the background workers to fail on the missing database', async () => {
      const since = server.output().slice(cutAt);
      return since.includes('payment scheduler failed') && since.includes('event dispatcher run failed') ? true : undefined;
    }, 60_000);
    assert.equal(till.connected && window.connected, true, 'terminals stay connected while the database is down');

    relay.restore();
    await until('health', async () => ((await call('GET', '/api/health')).status === 200 ? true : undefined));
    // The retried request with the same key goes through; the pushed document settles once.
    const retried = await expectStatus(201, call('POST', '/api/pay', { ...shop.key, 'idempotency-key': key }, PAYMENT));
    const streamed = new Promise<StreamMessage>((resolve) => window.once(SYNC_EVENTS.stream, resolve));
    const settled = await push(offline);
    assert.ok('conflicts' in settled, JSON.stringify(settled));
    assert.equal(settled.conflicts[0]?.status, 'accepted');
    assert.equal((await streamed).documents[0]?.id, offline.id);
    assert.equal(disconnects, 0);

    // The scheduler took up the payment it could not step while the database was gone.
    await until('the pending payment to complete', async () => {
      const payment = await call('GET', `/api/payments/${String(pending.paymentId)}`, shop.key);
      return payment.body.status === 'completed' ? true : undefined;
    });

    // Twice more: the sync adapter's own pool must not run out of connections (it drops a
    // broken LISTEN client without giving it back), or streams to other connections would stop.
    // Each fault waited for until the adapter has met it and come back: its LISTEN connection (a
    // backend whose last statement is LISTEN) ends with the fault and a new one replaces it.
    const listener = async () => (await probe.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`,
    ))[0]?.pid;
    const listenerOtherThan = (pid: number | undefined) => until('the sync adapter to LISTEN on a new connection', async () => {
      const now = await listener();
      return now !== undefined && now !== pid ? now : undefined;
    }, 60_000);
    let listening = await listenerOtherThan(undefined);
    for (let round = 0; round < 3; round++) {
      relay.cut();
      await until('the LISTEN connection to end (relay cut)', async () => ((await listener()) === undefined ? true : undefined), 60_000);
      relay.restore();
      listening = await listenerOtherThan(listening);
      await terminateBackends();
      listening = await listenerOtherThan(listening);
    }
    await until('health', async () => ((await call('GET', '/api/health')).status === 200 ? true : undefined), 60_000);
    const again = new Promise<StreamMessage>((resolve) => window.once(SYNC_EVENTS.stream, resolve));
    const next = tap();
    const pushed = await until('a push to settle', async () => {
      const answer = await push(next);
      return 'conflicts' in answer ? answer : undefined;
    });
    assert.equal(pushed.conflicts[0]?.status, 'accepted');
    let ceiling: NodeJS.Timeout | undefined;
    const message = await Promise.race([again, new Promise<undefined>((resolve) => (ceiling = setTimeout(resolve, 60_000, undefined)))]);
    clearTimeout(ceiling);
    assert.equal(message?.documents[0]?.id, next.id, 'the other connection hears the verdict');

    const debits = await probe.query<{ n: number }>('SELECT count(*)::int8 AS n FROM ledger_transfers WHERE id = ANY($1::text[])', [[`${String(retried.paymentId)}:debit`, `offline:${offline.id}`, `offline:${next.id}`]]);
    assert.equal(debits[0]?.n, 3);
    assert.deepEqual((await checkLedger(probe)).violations, []);
    assert.equal(exitedOnItsOwn, undefined, `the server exited:\n${server.output().slice(-3000)}`);
    assert.match(server.output(), /database unavailable/, 'the 503s were logged');
    assert.doesNotMatch(server.output(), /unhandled|uncaught/i);
  });
});
