// The sale on screen kept in the replica (RxDB, in memory here) against a stand-in for the
// server's POS API: stored before the session opens, every answer applied, the cashier's cancel
// kept while the server is unreachable and sent when it is back, and the offline payment taken
// instead held until the sale is resolved: voided if the customer paid by QR meanwhile.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createRxDatabase, type RxDatabase } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { type Api, ApiError, type PosSession } from './api.ts';
import { PAID_BY_QR_CODE, PosSales, offlinePaymentGate } from './pos-sales.ts';
import { TENDER_WITHDRAWN_CODE, withdrawnTap } from './offline-payments.ts';
import { KEEP_AS_IS, POS_SALE_SCHEMA, type PosSaleCollection } from './replica.ts';

const databases: RxDatabase[] = [];
after(() => Promise.all(databases.map((db) => db.close())));

async function collection(): Promise<PosSaleCollection> {
  const db = await createRxDatabase({ name: `pos_sales_test_${databases.length}_${Date.now()}`, storage: getRxStorageMemory(), multiInstance: false });
  databases.push(db);
  return (await db.addCollections({ pos_sales: { schema: POS_SALE_SCHEMA, migrationStrategies: KEEP_AS_IS } })).pos_sales as PosSaleCollection;
}

const UNREACHABLE = () => new ApiError('The terminal cannot reach the server', 'network_error', 0);

/** A server with one session whose status the test sets; `down` makes every call fail on the network. */
function server() {
  const state = { down: false, status: 'pending' as PosSession['status'], calls: [] as string[], keys: [] as string[], bodies: [] as unknown[] };
  const session = (): PosSession => ({
    sessionId: 'ses_1',
    status: state.status,
    amount: 12.5,
    currency: 'NGN',
    description: 'Suya',
    tapUrl: 'http://x/tap/ses_1',
    qrPayload: 'http://x/tap/ses_1',
    ttlSeconds: 90,
    createdAt: '2026-11-24T12:00:00.000Z',
    expiresAt: '2026-11-24T12:01:30.000Z',
    merchantId: 'mer_1',
    mode: 'test',
    ...(state.status === 'completed' ? { payerHandle: '@ada', walletRef: 'wtx_pos_1', completedAt: '2026-11-24T12:00:30.000Z' } : {}),
  });
  const call = async (name: string) => {
    state.calls.push(name);
    if (state.down) throw UNREACHABLE();
  };
  const api = {
    context: async () => ({}) as never,
    createSession: async (body: unknown, key: string) => {
      await call('create');
      state.keys.push(key);
      state.bodies.push(body);
      return session();
    },
    session: async () => {
      await call('get');
      return session();
    },
    cancel: async () => {
      await call('cancel');
      if (state.status !== 'pending') throw new ApiError('Session is not pending', 'session_not_pending', 409);
      state.status = 'cancelled';
      return session();
    },
    tap: async () => session(),
    sale: () => Promise.reject(new Error('not used here')),
    refund: () => Promise.reject(new Error('not used here')),
    currentReport: () => Promise.reject(new Error('not used here')),
    closeDay: () => Promise.reject(new Error('not used here')),
    managerPinCheck: () => Promise.reject(new Error('not used here')),
    returnTender: () => Promise.reject(new Error('not used here')),
    createCollection: () => Promise.reject(new Error('not used here')),
    collection: () => Promise.reject(new Error('not used here')),
    cancelCollection: () => Promise.reject(new Error('not used here')),
    returnCollection: () => Promise.reject(new Error('not used here')),
    verifyGiftCard: () => Promise.reject(new Error('not used here')),
    redeemGiftCard: () => Promise.reject(new Error('not used here')),
    returnGiftCard: () => Promise.reject(new Error('not used here')),
  } satisfies Api;
  return { api, state };
}

const SALE = { amountMinor: 1250, currency: 'NGN', description: 'Suya' };
const NOW = new Date('2026-11-24T12:00:00Z');

describe('sales kept in the replica', () => {
  it('stores the sale before the session opens, with its id as the Idempotency-Key, and the countdown on this clock', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const started = Date.now();
    const sale = await sales.charge(SALE, NOW);
    assert.deepEqual(state.keys, [sale.id]);
    assert.equal(sale.status, 'pending');
    assert.equal(sale.sessionId, 'ses_1');
    const deadline = Date.parse(sale.deadlineAt!);
    assert.ok(deadline >= started + 90_000 && deadline <= Date.now() + 90_000, 'the session lifetime counted from now');
    assert.deepEqual((await sales.open())?.id, sale.id, 'the open sale is found again (a reload)');
    await sales.close(sale.id, NOW);
    assert.equal(await sales.open(), null);
  });

  it('sends a cart sale as the session\'s items and discount in major units, and keeps its lines for the receipt', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const cart = { lines: [{ productId: 'prod_j', name: 'Jollof', quantity: 2, unitPrice: 62_500, discount: 500, taxRate: 750, taxInclusive: true }], discount: 0 };
    const sale = await sales.charge({ amountMinor: 124_500, currency: 'NGN', description: '', cart }, NOW);
    assert.deepEqual(state.bodies, [{ amount: 1245, currency: 'NGN', items: [{ productId: 'prod_j', name: 'Jollof', quantity: 2, unitPrice: 625, discount: 5, taxRate: 7.5, taxInclusive: true }] }]);
    assert.deepEqual([sale.items, sale.discountMinor], [cart.lines, 0]);
    assert.deepEqual((await sales.get(sale.id))?.items, cart.lines);
  });

  it('removes a sale whose session could not be opened: nothing can have been paid', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    state.down = true;
    await assert.rejects(sales.charge(SALE, NOW), (error: unknown) => error instanceof ApiError && error.code === 'network_error');
    assert.equal((await sales.collection.find().exec()).length, 0);
  });

  it('cancels at once while the server is unreachable, sends the cancel when it is back, and takes its answer', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const sale = await sales.charge(SALE, NOW);
    state.down = true;
    const cancelled = await sales.cancel(sale.id);
    assert.deepEqual([cancelled.status, cancelled.localEnd], ['pending', 'cancelled']);
    await assert.rejects(sales.resolve(sale.id));
    state.down = false;
    const resolved = await sales.resolve(sale.id);
    assert.deepEqual([resolved.status, state.status], ['cancelled', 'cancelled']);
    assert.deepEqual(await sales.unresolved(), []);
  });

  it('shows a sale cancelled here but paid by QR meanwhile as paid: the server answer wins', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const sale = await sales.charge(SALE, NOW);
    state.down = true;
    await sales.cancel(sale.id);
    state.status = 'completed';
    state.down = false;
    const resolved = await sales.resolve(sale.id);
    assert.deepEqual([resolved.status, resolved.payerHandle, resolved.localEnd], ['completed', '@ada', 'cancelled']);
    // A late pending answer never replaces a final one.
    assert.equal((await sales.apply(sale.id, { ...(await api.session()), status: 'pending' })).status, 'completed');
  });

  it('reads a session the server has no record of as expired', async () => {
    const { api } = server();
    const sales = new PosSales(await collection(), { ...api, session: async () => Promise.reject(new ApiError('No session', 'session_not_found', 404)) }, 'trm_1');
    const sale = await sales.charge(SALE, NOW);
    assert.equal((await sales.resolve(sale.id)).status, 'expired');
  });

  it('holds an offline payment taken instead of a sale until the sale is resolved, and voids it if the customer paid by QR', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const gate = offlinePaymentGate(sales, () => NOW);
    const payment: OfflinePaymentDoc = { id: 'pay_1', terminalId: 'trm_1', kind: 'tap', tagId: 'TG00000001', amountMinor: 1250, currency: 'NGN', description: 'Suya', capturedAt: NOW.toISOString(), status: 'queued', serverSeq: 0 };
    const unrelated: OfflinePaymentDoc = { ...payment, id: 'pay_2' };
    const sale = await sales.charge(SALE, NOW);
    state.down = true;
    await sales.endLocally(sale.id, 'cancelled');
    await sales.link(sale.id, payment.id);
    // The server is still away: the push waits (RxDB retries it).
    await assert.rejects(gate('offline_payments', [payment, unrelated]));
    // Back, and the customer had paid by QR: the payment is never sent, it stays here declined.
    state.down = false;
    state.status = 'completed';
    const kept = await gate('offline_payments', [payment, unrelated]);
    assert.deepEqual([...kept.keys()], ['pay_1']);
    assert.deepEqual([kept.get('pay_1')?.status, kept.get('pay_1')?.declineCode], ['declined', PAID_BY_QR_CODE]);
    assert.equal((await gate('gift_card_sales', [])).size, 0);
  });

  it('sends the offline payment when the sale it replaced was cancelled on the server', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const sale = await sales.charge(SALE, NOW);
    await sales.endLocally(sale.id, 'cancelled');
    await sales.link(sale.id, 'pay_1');
    const kept = await offlinePaymentGate(sales)('offline_payments', [{ id: 'pay_1', terminalId: 'trm_1', kind: 'tap', amountMinor: 1250, currency: 'NGN', description: '', capturedAt: NOW.toISOString(), status: 'queued', serverSeq: 0 }]);
    assert.equal(kept.size, 0);
    assert.equal(state.status, 'cancelled', 'the cancel was sent first');
    assert.deepEqual(state.calls, ['create', 'get', 'cancel']);
  });

  it('never sends a split sale\'s offline tap withdrawn when its sale was cancelled offline, and sends the others', async () => {
    const { api, state } = server();
    const sales = new PosSales(await collection(), api, 'trm_1');
    const queued = { id: 'pay_2', terminalId: 'trm_1', kind: 'tap' as const, tagId: 'TG0A1B2C3D', amountMinor: 400, currency: 'NGN', description: '', capturedAt: NOW.toISOString(), status: 'queued' as const, serverSeq: 0, tenderOf: 'sale_1' };
    const withdrawn = { ...queued, id: 'pay_3', ...withdrawnTap(queued, NOW)! };
    const kept = await offlinePaymentGate(sales)('offline_payments', [queued, withdrawn]);
    assert.deepEqual([...kept.keys()], ['pay_3']);
    assert.deepEqual([kept.get('pay_3')?.status, kept.get('pay_3')?.declineCode], ['declined', TENDER_WITHDRAWN_CODE]);
    assert.deepEqual(state.calls, [], 'nothing asked of the server');
    assert.equal(withdrawnTap({ ...queued, status: 'accepted' }, NOW), null, 'a tap the server has is given back through it, not withdrawn');
  });
});
