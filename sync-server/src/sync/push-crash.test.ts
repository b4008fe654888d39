// A server killed (SIGKILL) in the middle of settling a terminal's large push, and started again:
// after the terminal pushes again, every document is settled exactly once (ledger check clean).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { io, type Socket } from 'socket.io-client';
import { type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, SYNC_NAMESPACE, type SyncCollection, type SyncDocument, type SyncFailure, type TillSaleDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../ledger/check.ts';
import { openDatabase } from '../db/open.ts';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { exitOf, startServerProcess } from '../testing/server-process.ts';
import { TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX } from '../testing/server.ts';

const ADMIN = { authorization: `Bearer admin.${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };
const DOCUMENTS = 1_000;
const PUSH = 100;

async function call<T>(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${url}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as T };
}

function connect(url: string, token: string): Promise<Socket> {
  const socket = io(`${url}${SYNC_NAMESPACE}`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  return new Promise((resolve, reject) => {
    socket.once(SYNC_EVENTS.hello, () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function push<D extends SyncDocument = OfflinePaymentDoc>(socket: Socket, docs: D[], collection: SyncCollection = 'offline_payments'): Promise<PushResponse<D> | SyncFailure> {
  return socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection, rows: docs.map((doc) => ({ assumedMasterState: null, newDocumentState: doc })) });
}

/** A server on its own database (a PGlite directory or a PostgreSQL database made for the test), and how to remove it. */
async function ownDatabase(name: string): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  if (name === 'pglite') {
    const directory = mkdtempSync(join(tmpdir(), 'tapline-push-crash-'));
    env = { DATA_DIR: directory, DATABASE_URL: '' };
    cleanup = async () => rmSync(directory, { recursive: true, force: true });
  } else {
    const created = await createPostgresDatabase();
    env = { DATABASE_URL: created.url };
    cleanup = () => created.drop();
  }
  return { env: { ...env, ADMIN_TOKEN: TEST_ADMIN_TOKEN, SECRETS_KEY: TEST_SECRETS_KEY_HEX, LOG_LEVEL: 'warn', HOST: '127.0.0.1' }, cleanup };
}

for (const target of await databaseTargets()) {
  describe(`a server killed while it settles a push, on ${target.name}`, () => {
    it('settles every document exactly once after the terminal pushes again', async () => {
      const { env, cleanup } = await ownDatabase(target.name);
      try {
        let server = await startServerProcess(env);
        const merchant = await call<{ id: string; testKey: string }>(server.url, 'POST', '/api/admin/merchants', ADMIN, { name: 'Crash Shop', handle: 'crash_shop', country: 'NG', currency: 'NGN' });
        assert.equal(merchant.status, 201);
        assert.equal((await call(server.url, 'PATCH', `/api/admin/merchants/${merchant.body.id}`, ADMIN, { rateLimitMultiplier: 100 })).status, 200);
        const key = { 'x-merchant-api-key': merchant.body.testKey };
        const tags: string[] = [];
        for (let index = 0; index < 5; index++) {
          const handle = `crash_customer_${index}`;
          assert.equal((await call(server.url, 'POST', '/api/admin/wallets', ADMIN, { handle, country: 'NG', currency: 'NGN', pin: '1234' })).status, 201);
          assert.equal((await call(server.url, 'POST', `/api/admin/wallets/${handle}/credit`, ADMIN, { amount: 10_000, currency: 'NGN' })).status, 200);
          const tag = await call<{ tagId: string }>(server.url, 'POST', '/api/wearables', key, { handle, tagType: 'ring', displayName: handle });
          tags.push(tag.body.tagId);
        }
        const terminal = await call<{ id: string; token: string }>(server.url, 'POST', '/api/merchant/terminals', key, { name: 'Till' });
        assert.equal((await call(server.url, 'PATCH', `/api/merchant/terminals/${terminal.body.id}`, key, { offlineLimits: { total: 1_000_000 } })).status, 200);
        const token = `term.${terminal.body.token}`;
        const docs: OfflinePaymentDoc[] = Array.from({ length: DOCUMENTS }, (_, index) => ({
          id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tags[index % tags.length]!, amountMinor: 100 + (index % 7),
          currency: 'NGN', description: `crash ${index}`, capturedAt: new Date(Date.now() - 1000 + index).toISOString(), status: 'queued', serverSeq: 0,
        }));
        const expected = docs.reduce((sum, doc) => sum + doc.amountMinor, 0);

        // The kiosk pushes its queue; the server is killed while the pushes are being settled, twice.
        let acknowledged = 0;
        for (let round = 0; round < 2; round++) {
          const socket = await connect(server.url, token);
          const roundStart = acknowledged;
          const pushing = (async () => {
            for (let start = 0; start < docs.length; start += PUSH) {
              const answer = await push(socket, docs.slice(start, start + PUSH));
              if (!('conflicts' in answer)) throw new Error(JSON.stringify(answer));
              acknowledged += answer.conflicts.length;
            }
          })().catch(() => undefined);
          // Killed while it settles the pushes: once it has answered one of this round's (a
          // condition, not a guessed delay), with a generous ceiling.
          for (const deadline = Date.now() + 60_000; acknowledged === roundStart; ) {
            assert.ok(Date.now() < deadline, 'the server answered a push');
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          const exited = exitOf(server.child);
          server.child.kill('SIGKILL');
          await exited;
          await pushing;
          socket.disconnect();
          server = await startServerProcess(env);
        }
        assert.ok(acknowledged < 2 * DOCUMENTS, 'the server was killed before it had answered every push');

        // Back up: the kiosk pushes everything again; each document settles once.
        const socket = await connect(server.url, token);
        const verdicts: OfflinePaymentDoc[] = [];
        for (let start = 0; start < docs.length; start += PUSH) {
          const answer = await push(socket, docs.slice(start, start + PUSH));
          assert.ok('conflicts' in answer, JSON.stringify(answer));
          verdicts.push(...answer.conflicts);
        }
        socket.disconnect();
        assert.equal(verdicts.length, DOCUMENTS);
        assert.deepEqual([...new Set(verdicts.map((doc) => doc.status))], ['accepted']);
        const exited = exitOf(server.child);
        server.child.kill('SIGTERM');
        await exited;

        const db = await openDatabase(target.name === 'pglite' ? { dataDirectory: env.DATA_DIR! } : { databaseUrl: env.DATABASE_URL!, poolSize: 2 });
        try {
          const [rows] = await db.query<{ rows: number; ids: number; transfers: number; total: number }>(
            'SELECT count(*)::int8 AS rows, count(DISTINCT id)::int8 AS ids, count(DISTINCT transfer_id)::int8 AS transfers, sum(amount)::int8 AS total FROM offline_payments WHERE terminal_id = $1',
            [terminal.body.id],
          );
          assert.deepEqual(rows, { rows: DOCUMENTS, ids: DOCUMENTS, transfers: DOCUMENTS, total: expected });
          const [posted] = await db.query<{ transfers: number }>("SELECT count(*)::int8 AS transfers FROM ledger_transfers WHERE kind = 'offline_tap'");
          assert.equal(posted?.transfers, DOCUMENTS, 'one ledger transfer per document');
          const [customers] = await db.query<{ balance: number }>(
            "SELECT sum(a.balance)::int8 AS balance FROM ledger_accounts a JOIN wallets w ON w.id = a.owner_id WHERE a.owner_type = 'wallet' AND w.handle LIKE 'crash_customer_%' AND a.currency = 'NGN'",
          );
          assert.equal(customers?.balance, 5 * 1_000_000 - expected);
          assert.deepEqual((await checkLedger(db)).violations, []);
        } finally {
          await db.close();
        }
      } finally {
        await cleanup();
      }
    });

    it('records every cash sale once and moves its stock once after the terminal pushes again', async () => {
      const { env, cleanup } = await ownDatabase(target.name);
      const SALES = 300;
      try {
        let server = await startServerProcess(env);
        const merchant = await call<{ id: string; testKey: string }>(server.url, 'POST', '/api/admin/merchants', ADMIN, { name: 'Cash Crash', handle: 'cash_crash', country: 'NG', currency: 'NGN' });
        assert.equal((await call(server.url, 'PATCH', `/api/admin/merchants/${merchant.body.id}`, ADMIN, { rateLimitMultiplier: 100 })).status, 200);
        const key = { 'x-merchant-api-key': merchant.body.testKey };
        const product = await call<{ id: string }>(server.url, 'POST', '/api/merchant/products', key, { name: 'Malt', price: 5, trackStock: true, stock: 10_000 });
        assert.equal(product.status, 201);
        const terminal = await call<{ id: string; token: string }>(server.url, 'POST', '/api/merchant/terminals', key, { name: 'Till' });
        const token = `term.${terminal.body.token}`;
        const docs: TillSaleDoc[] = Array.from({ length: SALES }, (_, index) => ({
          id: randomUUID(), terminalId: terminal.body.id, amountMinor: 500, currency: 'NGN', capturedAt: new Date(Date.now() - 1000 + index).toISOString(), status: 'queued', serverSeq: 0,
          tenders: [{ kind: 'cash', amountMinor: 500, tenderedMinor: 1000, changeMinor: 500 }],
          items: [{ productId: product.body.id, name: 'Malt', quantity: 1, unitPrice: 500, discount: 0, taxRate: 0, taxInclusive: true }], discountMinor: 0,
        }));
        // Killed once it has answered a push of the queue (a condition, not a guessed delay).
        let acknowledged = 0;
        const socket = await connect(server.url, token);
        const pushing = (async () => {
          for (let start = 0; start < docs.length; start += 20) {
            const answer = await push(socket, docs.slice(start, start + 20), 'till_sales');
            if (!('conflicts' in answer)) throw new Error(JSON.stringify(answer));
            acknowledged += answer.conflicts.length;
          }
        })().catch(() => undefined);
        for (const deadline = Date.now() + 60_000; acknowledged === 0; ) {
          assert.ok(Date.now() < deadline, 'the server answered a push');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const killed = exitOf(server.child);
        server.child.kill('SIGKILL');
        await killed;
        await pushing;
        socket.disconnect();
        assert.ok(acknowledged < SALES, 'the server was killed before it had answered every push');
        server = await startServerProcess(env);

        const again = await connect(server.url, token);
        const verdicts: TillSaleDoc[] = [];
        for (let start = 0; start < docs.length; start += 20) {
          const answer = await push(again, docs.slice(start, start + 20), 'till_sales');
          assert.ok('conflicts' in answer, JSON.stringify(answer));
          verdicts.push(...answer.conflicts);
        }
        again.disconnect();
        assert.equal(verdicts.length, SALES);
        assert.deepEqual([...new Set(verdicts.map((doc) => doc.status))], ['accepted']);
        const stock = await call<{ stock: number }>(server.url, 'GET', `/api/merchant/products/${product.body.id}`, key);
        assert.equal(stock.body.stock, 10_000 - SALES, 'each sale moved its unit once');
        const exited = exitOf(server.child);
        server.child.kill('SIGTERM');
        await exited;

        const db = await openDatabase(target.name === 'pglite' ? { dataDirectory: env.DATA_DIR! } : { databaseUrl: env.DATABASE_URL!, poolSize: 2 });
        try {
          const [rows] = await db.query<{ rows: number; cash: number }>('SELECT count(*)::int8 AS rows, sum(cash_amount)::int8 AS cash FROM till_sales WHERE terminal_id = $1', [terminal.body.id]);
          assert.deepEqual(rows, { rows: SALES, cash: SALES * 500 });
          const [events] = await db.query<{ events: number }>("SELECT count(*)::int8 AS events FROM events WHERE type = 'pos.till_sale.recorded'");
          assert.equal(Number(events?.events), SALES, 'one event per sale');
          assert.deepEqual((await checkLedger(db)).violations, []);
        } finally {
          await db.close();
        }
      } finally {
        await cleanup();
      }
    });
  });
}
