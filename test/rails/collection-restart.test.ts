// test-lane: waiting (scripts/run-tests.mjs: mostly waits on restarts, held requests and expiries)
// Exactly once across a SIGKILL for the till's mobile money (docs/till.md, "Mobile money at the
// till"), with the real server as a child process on both databases, per provider that collects
// (M-Pesa Express STK push, MTN MoMo request-to-pay; Paystack and Flutterwave charges in the last blocks), as
// restart.test.ts does for payouts:
//
// 1. The server dies while the provider holds the collection request (the customer's phone is
//    already prompted). After the restart the customer is never asked again (one push / one
//    request-to-pay at the fake, the till's retry with its Idempotency-Key answers the same
//    collection), the collection ends once and the merchant is credited at most once:
//    - MoMo: the restarted server asks the request-to-pay's status (its reference id derives from
//      the collection id), so the payment is found even when every callback is lost;
//    - M-Pesa: the push's CheckoutRequestID died with the process, and Daraja can be asked about
//      a push only by that id: the callback (which carries it) completes the collection; if the
//      callback is lost too, the collection expires saying why, and nothing can credit it (the
//      documented limit of M-Pesa Express, docs/till.md).
// 2. COLLECTION_POLL_MS at its smallest timed value with every callback dropped: the status query
//    alone finishes a collection.
// 3. The server dies while the provider holds the payout that pays a refunded mobile-money till
//    sale back to the phone: one payout at the fake, one refund, its retry answers the same refund;
//    and while it holds the payout that gives a cancelled split sale's collection back (the
//    collection's return): one payout at the fake, the retry answers the same return.
// 4. A split-tender return (POST /api/pos/sessions/{id}/return, one database transaction) cut by a
//    SIGKILL: its retry after the restart answers one refund, and the money moves once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE, type PushResponse, type SyncFailure, type TillSaleDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, balanceMinor, databaseTargets, uniqueHandle, until } from '@tapline/sync-server/testing';
import { type ServerProcess, serverProcess } from '../e2e/server-process.ts';
import { COLLECTION_SCENARIOS, SCENARIOS as MPESA_PAYOUTS, startMpesaFake } from '../fakes/mpesa/index.ts';
import { SCENARIOS as MOMO_SCENARIOS, startMomoFake } from '../fakes/momo/index.ts';
import { CHARGE_SCENARIOS as PAYSTACK_CHARGES, type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';
import { CHARGE_SCENARIOS as FLUTTERWAVE_CHARGES, type FlutterwaveFake, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { chargeKeyOf as flutterwaveTxRef } from '@tapline/sync-server/rails/flutterwave/index.ts';

/** Fakes' delays × this: MoMo's held request and both providers' held payouts wait 30 s × 0.2 = 6 s. */
const DELAY_SCALE = 0.2;

type Collection = { id: string; status: string; amountMinor: number; provider: string; failureCode?: string; failureReason?: string; providerReference?: string; code?: string };

/** A provider fake as these tests drive it. */
interface CollectingFake {
  env: Record<string, string>;
  /** Requests to prompt a phone (STK pushes, request-to-pay POSTs) the fake received, answered or not. */
  collectionRequests(): number;
  /** How many times the fake took the customer's money for a phone (exactly once means 1). */
  charged(phone: string): number;
  /** Payout requests received, answered or not. */
  transferRequests(): number;
  /** How many times money went out under each payout key. */
  paidTimes(): Map<string, number>;
  /** Answers the held collection requests now (a fake that holds them for a fixed time: nothing to do). */
  releaseHeld(): void;
  dropCallbacks(drop: boolean): void;
  stop(): Promise<void>;
}

interface Collector {
  name: 'mpesa' | 'momo';
  country: string;
  currency: string;
  amountMinor: number;
  phones: {
    /** The fake holds the collection request (the phone is prompted at once), then the customer pays. */
    held: string;
    /** An ordinary customer who pays. */
    pays: string;
    /** Pays (collection), and the payout back to it is held by the fake. */
    paybackHeld: string;
  };
  /** `holdUntilReleased`: held requests wait for releaseHeld() (else their fixed hold, 30 s × DELAY_SCALE). */
  start(publicBaseUrl: string, holdUntilReleased: boolean): Promise<CollectingFake>;
}

const COLLECTORS: readonly Collector[] = [
  {
    name: 'mpesa',
    country: 'KE',
    currency: 'KES',
    // M-Pesa collects whole shillings: KES 100.
    amountMinor: 10_000,
    // +254700000005 is the payout no_answer number; as a payer it is an ordinary success.
    phones: { held: COLLECTION_SCENARIOS.push_held.phone, pays: COLLECTION_SCENARIOS.success.phone, paybackHeld: MPESA_PAYOUTS.no_answer.phone },
    async start(publicBaseUrl, holdUntilReleased) {
      // The push is held until the test releases it, after the restart: the customer then pays
      // and Daraja posts its one callback, to the restarted server.
      const fake = await startMpesaFake({ callbackBase: publicBaseUrl, delayScale: DELAY_SCALE, ...(holdUntilReleased ? { holdMs: 600_000 } : {}) });
      const posts = (path: string) => fake.requests().filter((request) => request.method === 'POST' && request.path === path).length;
      return {
        env: fake.env,
        collectionRequests: () => posts('/mpesa/stkpush/v1/processrequest'),
        charged: (phone) => fake.collections().filter((record) => record.phone === phone.replace(/^\+/, '') && record.state === 'completed').length,
        transferRequests: () => posts('/mpesa/b2c/v3/paymentrequest'),
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.times])),
        releaseHeld: () => void fake.releaseHeld(),
        dropCallbacks: (drop) => fake.dropCallbacks(drop),
        stop: () => fake.stop(),
      };
    },
  },
  {
    name: 'momo',
    country: 'UG',
    currency: 'UGX',
    amountMinor: 5000,
    // 3123462 (no_answer): the request-to-pay (and the transfer) is created PENDING at once, its
    // answer held 6 s, then it is paid and called back.
    phones: { held: MOMO_SCENARIOS.no_answer.receiver.phone, pays: MOMO_SCENARIOS.success.receiver.phone, paybackHeld: MOMO_SCENARIOS.no_answer.receiver.phone },
    async start(publicBaseUrl) {
      const fake = await startMomoFake({ callbackBase: publicBaseUrl, delayScale: DELAY_SCALE, targetEnvironment: 'mtnuganda' });
      const posts = (path: string) => fake.requests().filter((request) => request.method === 'POST' && request.path === path).length;
      return {
        env: fake.env,
        collectionRequests: () => posts('/collection/v1_0/requesttopay'),
        charged: (phone) => fake.collections().filter((record) => record.payer === phone.replace(/^\+/, '')).reduce((sum, record) => sum + record.times, 0),
        transferRequests: () => posts('/disbursement/v1_0/transfer'),
        paidTimes: () => new Map(fake.payouts().map((payout) => [payout.key, payout.times])),
        releaseHeld: () => undefined,
        dropCallbacks: (drop) => fake.dropCallbacks(drop),
        stop: () => fake.stop(),
      };
    },
  },
];

/** Probes every `everyMs` (reads of the API at most once a second, as the kiosk does: the real rate limits hold). */
/** Restarts under load are slow: a 240 s ceiling. */
const waitFor = <T>(what: string, probe: () => Promise<T | undefined>, everyMs = 100) => until(what, probe, 240_000, everyMs);

/** A merchant with a terminal in `mode`: its key, the terminal's Authorization header, token and id. */
async function shopWithTill(server: ServerProcess, mode: 'test' | 'live', fields: Record<string, string> = {}) {
  const merchant = await server.createMerchant({ webhookUrl: 'https://example.com/hooks', ...fields });
  const key = { 'x-merchant-api-key': mode === 'live' ? merchant.liveKey : merchant.testKey };
  const created = await server.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { merchant, key, term: { authorization: `Bearer term.${created.body.token}` }, token: `term.${created.body.token}`, terminalId: created.body.id };
}

/** Pushes one till sale over the terminal's sync connection, as the kiosk does; answers the server's verdict. */
async function pushTillSale(baseUrl: string, token: string, sale: TillSaleDoc): Promise<TillSaleDoc> {
  const socket = io(`${baseUrl}${SYNC_NAMESPACE}`, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once(SYNC_EVENTS.hello, () => resolve());
      socket.once('connect_error', reject);
    });
    const answer = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'till_sales', rows: [{ assumedMasterState: null, newDocumentState: sale }] })) as PushResponse<TillSaleDoc> | SyncFailure;
    assert.ok('conflicts' in answer, JSON.stringify(answer));
    const [verdict] = answer.conflicts;
    assert.ok(verdict, 'a verdict for the sale');
    return verdict;
  } finally {
    socket.disconnect();
  }
}

/**
 * Sends a request again until it is answered: right after a restart, a key the dead process had
 * claimed answers 409 idempotency_in_progress until its owner is known to be gone (~10 s).
 */
async function retried<T>(server: ServerProcess, method: string, path: string, options: { headers: Record<string, string>; body?: unknown }, status: number) {
  return waitFor(`${method} ${path} to answer ${status} after the restart`, async () => {
    const answer = await server.request<T & { code?: string }>(method, path, options);
    if (answer.status === status) return answer;
    assert.deepEqual([answer.status, answer.body?.code], [409, 'idempotency_in_progress'], JSON.stringify(answer.body));
    return undefined;
  }, 1000);
}

/** The collection's ledger credits and events, read with the server stopped (one process at a time on an embedded database). */
async function afterTheFact(server: ServerProcess, merchant: { id: string; handle: string }, currency: string, collectionId: string) {
  assert.equal(await server.stop('SIGTERM'), 0);
  const db = await server.openDatabase();
  try {
    const events = await db.query<{ type: string; body: string }>('SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchant.id]);
    return {
      balance: await balanceMinor({ db }, merchant.handle, currency, 'live'),
      events: events.filter((event) => (JSON.parse(event.body) as { collectionId?: string }).collectionId === collectionId).map((event) => event.type),
      violations: (await checkLedger(db)).violations,
    };
  } finally {
    await db.close();
  }
}

for (const target of await databaseTargets()) {
  for (const provider of COLLECTORS) {
    describe(`a crash while ${provider.name} holds a till's collection request, on ${target.name}`, () => {
      let server: ServerProcess;
      let fake: CollectingFake | undefined;
      before(async () => {
        server = await serverProcess(target, (baseUrl) => ({
          ...fake?.env,
          PUBLIC_BASE_URL: baseUrl,
          RAIL_ROUTES: `mobile_money:${provider.country}=${provider.name}`,
          // The default request timeout (20 s): the server is still waiting for the held request when it is killed.
          RAIL_TIMEOUT_MS: '20000',
          // The smallest value that keeps the job's timer (0 turns it off): the provider is asked every second.
          COLLECTION_POLL_MS: '1',
          COLLECTION_TIMEOUT_SECONDS: '90',
        }));
        fake = await provider.start(server.baseUrl, true);
        await server.start();
      });
      after(async () => {
        await server?.dispose();
        await fake?.stop();
      });

      /** Asks for a collection, kills the server once the fake holds the request, starts it again; answers the retry's collection. */
      async function collectThroughACrash(shop: Awaited<ReturnType<typeof shopWithTill>>, phone: string) {
        const asked = fake!.collectionRequests();
        const key = randomUUID();
        const ask = { headers: { ...shop.term, 'idempotency-key': key }, body: { amountMinor: provider.amountMinor, currency: provider.currency, phone, description: 'Groceries' } };
        const first = server.request<Collection>('POST', '/api/pos/collections', ask).then(
          (response) => response,
          () => undefined,
        );
        await waitFor('the provider to hold the collection request', async () => (fake!.collectionRequests() > asked ? true : undefined));
        await server.stop('SIGKILL');
        assert.equal(await first, undefined, 'the till got no answer: the server died while the provider held the request');
        await server.start();
        // The kiosk keeps the pending request and repeats it with the same key after the restart.
        const again = await retried<Collection>(server, 'POST', '/api/pos/collections', ask, 201);
        assert.equal(again.body.provider, provider.name);
        assert.equal(again.body.amountMinor, provider.amountMinor);
        return again.body;
      }

      const read = async (id: string, term: Record<string, string>) => {
        const answer = await server.request<Collection>('GET', `/api/pos/collections/${id}`, { headers: term });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
      const ended = (id: string, term: Record<string, string>) =>
        waitFor(`collection ${id} to end`, async () => {
          const now = await read(id, term);
          return now.status === 'pending' ? undefined : now;
        }, 1000);

      it('asks the customer once, completes once when the provider confirms, credits the merchant once', async () => {
        const shop = await shopWithTill(server, 'live', { country: provider.country, currency: provider.currency });
        const asked = fake!.collectionRequests();
        const charged = fake!.charged(provider.phones.held);
        const collection = await collectThroughACrash(shop, provider.phones.held);
        // After the restart: M-Pesa's held push is answered now, the customer pays, Daraja calls back.
        fake!.releaseHeld();
        const done = await ended(collection.id, shop.term);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.equal(fake!.collectionRequests() - asked, 1, 'the phone was prompted once: nothing pushed again after the restart');
        assert.equal(fake!.charged(provider.phones.held) - charged, 1, 'charged once');
        // Read again later, without a fixed wait: once a second collection of the same till has
        // gone through the whole round (pushed, confirmed, credited) after it, it stays completed.
        const later = await server.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: provider.amountMinor, currency: provider.currency, phone: provider.phones.pays } });
        assert.equal(later.status, 201, JSON.stringify(later.body));
        assert.equal((await ended(later.body.id, shop.term)).status, 'completed');
        assert.equal((await read(collection.id, shop.term)).status, 'completed');
        assert.equal(fake!.collectionRequests() - asked, 2, 'one push for each: nothing pushed again for the first');
        assert.equal(fake!.charged(provider.phones.held) - charged, 1, 'still charged once');
        const { balance, events, violations } = await afterTheFact(server, shop.merchant, provider.currency, collection.id);
        assert.equal(balance, 2 * provider.amountMinor, 'each credited once');
        assert.equal(events.filter((type) => type === 'pos.collection.completed').length, 1, JSON.stringify(events));
        assert.deepEqual(violations, []);
        await server.start();
      });

      it(
        provider.name === 'momo'
          ? 'with every callback lost too: the restarted server finds the payment by the request-to-pay\'s status and credits it once'
          : 'with every callback lost too: the push\'s CheckoutRequestID is gone, so the collection expires saying so (charged once, never twice; nothing can credit it)',
        async () => {
          const shop = await shopWithTill(server, 'live', { country: provider.country, currency: provider.currency });
          const asked = fake!.collectionRequests();
          const charged = fake!.charged(provider.phones.held);
          fake!.dropCallbacks(true);
          try {
            const collection = await collectThroughACrash(shop, provider.phones.held);
            fake!.releaseHeld();
            await waitFor('the customer to pay at the provider', async () => (fake!.charged(provider.phones.held) > charged ? true : undefined));
            const done = await ended(collection.id, shop.term);
            assert.equal(fake!.collectionRequests() - asked, 1, 'the phone was prompted once');
            assert.equal(fake!.charged(provider.phones.held) - charged, 1, 'charged once');
            const { balance, events, violations } = await afterTheFact(server, shop.merchant, provider.currency, collection.id);
            if (provider.name === 'momo') {
              assert.equal(done.status, 'completed', JSON.stringify(done));
              assert.equal(balance, provider.amountMinor, 'credited once, from the status query');
              assert.deepEqual(events, ['pos.collection.completed']);
            } else {
              // Daraja answers an STK query only by the CheckoutRequestID that the killed process
              // never received, and the callback that carries it was lost: the limit of M-Pesa
              // Express. The till is told why, rather than "no answer" alone (docs/till.md).
              assert.deepEqual([done.status, done.failureCode], ['expired', 'no_answer'], JSON.stringify(done));
              assert.match(done.failureReason ?? '', /CheckoutRequestID is unknown/);
              assert.equal(balance, 0, 'nothing credited');
              assert.deepEqual(events, ['pos.collection.expired']);
            }
            assert.deepEqual(violations, []);
          } finally {
            fake!.dropCallbacks(false);
            if (!server.running()) await server.start();
          }
        },
      );

      it('COLLECTION_POLL_MS at its smallest, callbacks dropped, no crash: the status query alone completes the collection, once', async () => {
        const shop = await shopWithTill(server, 'live', { country: provider.country, currency: provider.currency });
        fake!.dropCallbacks(true);
        try {
          const created = await server.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: provider.amountMinor, currency: provider.currency, phone: provider.phones.pays } });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          const done = await ended(created.body.id, shop.term);
          assert.equal(done.status, 'completed', JSON.stringify(done));
          const { balance, events, violations } = await afterTheFact(server, shop.merchant, provider.currency, created.body.id);
          assert.equal(balance, provider.amountMinor);
          assert.deepEqual(events, ['pos.collection.completed']);
          assert.deepEqual(violations, []);
        } finally {
          fake!.dropCallbacks(false);
          if (!server.running()) await server.start();
        }
      });
    });

    describe(`a crash while ${provider.name} holds the payback of a refunded mobile-money till sale, on ${target.name}`, () => {
      let server: ServerProcess;
      let fake: CollectingFake | undefined;
      before(async () => {
        server = await serverProcess(target, (baseUrl) => ({
          ...fake?.env,
          PUBLIC_BASE_URL: baseUrl,
          RAIL_ROUTES: `mobile_money:${provider.country}=${provider.name}`,
          // As restart.test.ts: a 1 s request timeout makes a payout claim's lease 10 s, so the restarted scheduler takes over soon.
          RAIL_TIMEOUT_MS: '1000',
          RAIL_POLL_MS: '1000',
          SCHEDULER_POLL_MS: '200',
          COLLECTION_POLL_MS: '1000',
        }));
        // Nothing here is held until released: the held payout is answered after its 6 s, as in restart.test.ts.
        fake = await provider.start(server.baseUrl, false);
        await server.start();
      });
      after(async () => {
        await server?.dispose();
        await fake?.stop();
      });

      it('pays the phone back exactly once and records the refund once', async () => {
        const shop = await shopWithTill(server, 'live', { country: provider.country, currency: provider.currency });
        // The rail's fee comes on top of the payback, from the merchant's wallet.
        const credited = await server.request('POST', `/api/admin/wallets/${shop.merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: provider.currency, mode: 'live' } });
        assert.equal(credited.status, 200, JSON.stringify(credited.body));
        const created = await server.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: provider.amountMinor, currency: provider.currency, phone: provider.phones.paybackHeld } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const collection = await waitFor('the collection to complete', async () => {
          const now = (await server.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body;
          assert.ok(now.status === 'pending' || now.status === 'completed', JSON.stringify(now));
          return now.status === 'completed' ? now : undefined;
        }, 1000);
        const sale: TillSaleDoc = {
          id: randomUUID(),
          terminalId: shop.terminalId,
          amountMinor: provider.amountMinor,
          currency: provider.currency,
          capturedAt: new Date().toISOString(),
          status: 'queued',
          serverSeq: 0,
          tenders: [{ kind: 'mobile_money', amountMinor: provider.amountMinor, reference: collection.id }],
        };
        const verdict = await pushTillSale(server.baseUrl, shop.token, sale);
        assert.equal(verdict.status, 'accepted', JSON.stringify(verdict));

        const refundKey = randomUUID();
        const refund = { headers: { ...shop.key, 'idempotency-key': refundKey }, body: { saleId: sale.id, reason: 'Wrong item' } };
        const first = server.request<{ id: string }>('POST', '/api/pos/refunds', refund).then(
          (response) => response,
          () => undefined,
        );
        // Killed while the provider holds the payout request.
        await waitFor('the provider to receive the payout', async () => (fake!.transferRequests() > 0 ? true : undefined));
        await server.stop('SIGKILL');
        const firstAnswer = await first;
        await server.start();
        const again = await retried<{ id: string; tenders: { kind: string; amount: number }[] }>(server, 'POST', '/api/pos/refunds', refund, 201);
        if (firstAnswer) assert.equal(again.body.id, firstAnswer.body.id, 'the retry answers the same refund');
        assert.deepEqual(again.body.tenders.map((tender) => tender.kind), ['mobile_money']);
        const payments = await waitFor('the payback to be final', async () => {
          const list = await server.request<{ data: { paymentId: string; status: string }[] }>('GET', '/api/payments', { headers: shop.key });
          assert.ok(list.body.data.every((row) => !['failed', 'returned', 'cancelled'].includes(row.status)), JSON.stringify(list.body.data));
          return list.body.data.length > 0 && list.body.data.every((row) => row.status === 'completed') ? list.body.data : undefined;
        }, 1000);
        assert.equal(payments.length, 1, 'one payout to the phone');
        assert.deepEqual([...fake!.paidTimes().values()], [1], 'one payout at the provider, paid once');
        assert.equal(fake!.transferRequests(), 1, 'never sent again after the restart');
        const read = await server.request<{ refunds: { id: string }[]; refundable: number }>('GET', `/api/pos/sales/${sale.id}`, { headers: shop.key });
        assert.deepEqual(read.body.refunds.map((row) => row.id), [again.body.id], 'one refund');
        assert.equal(read.body.refundable, 0);

        assert.equal(await server.stop('SIGTERM'), 0);
        const db = await server.openDatabase();
        try {
          const stored = await db.query<{ tenders: unknown }>('SELECT tenders FROM sale_refunds WHERE sale_id = $1', [sale.id]);
          assert.equal(stored.length, 1);
          assert.match(JSON.stringify(stored[0]!.tenders), new RegExp(payments[0]!.paymentId), 'the refund names its one payout');
          assert.deepEqual((await checkLedger(db)).violations, []);
        } finally {
          await db.close();
        }
      });

      it('gives a cancelled split sale\'s collection back to the phone exactly once (POST /api/pos/collections/{id}/return)', async () => {
        // The case above ends with the server stopped, to read its database.
        if (!server.running()) await server.start();
        const shop = await shopWithTill(server, 'live', { country: provider.country, currency: provider.currency });
        const credited = await server.request('POST', `/api/admin/wallets/${shop.merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: provider.currency, mode: 'live' } });
        assert.equal(credited.status, 200, JSON.stringify(credited.body));
        const created = await server.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: provider.amountMinor, currency: provider.currency, phone: provider.phones.paybackHeld } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        await waitFor('the collection to complete', async () => {
          const now = (await server.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body;
          assert.ok(now.status === 'pending' || now.status === 'completed', JSON.stringify(now));
          return now.status === 'completed' ? now : undefined;
        }, 1000);
        const sentBefore = fake!.transferRequests();
        const keysBefore = new Set(fake!.paidTimes().keys());

        // The cashier cancels the split sale: the till gives the collection back. The return and its
        // debit commit before the scheduler sends the payout; killed while the provider holds it.
        const path = `/api/pos/collections/${created.body.id}/return`;
        const first = server.request<{ returnPaymentId: string | null }>('POST', path, { headers: shop.term, body: {} }).then(
          (response) => response,
          () => undefined,
        );
        await waitFor('the provider to receive the return payout', async () => (fake!.transferRequests() > sentBefore ? true : undefined));
        await server.stop('SIGKILL');
        const firstAnswer = await first;
        await server.start();
        const again = await server.request<{ returnPaymentId: string | null; returnAttempts: number; status: string }>('POST', path, { headers: shop.term, body: {} });
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.deepEqual([again.body.status, again.body.returnAttempts], ['completed', 1]);
        if (firstAnswer) assert.equal(again.body.returnPaymentId, firstAnswer.body.returnPaymentId, 'the retry answers the same return');
        const paymentId = again.body.returnPaymentId!;
        const payout = await waitFor('the return payout to be final', async () => {
          const answer = await server.request<{ status: string }>('GET', `/api/payments/${paymentId}`, { headers: shop.key });
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          assert.ok(!['failed', 'reversed'].includes(answer.body.status), JSON.stringify(answer.body));
          return answer.body.status === 'completed' ? answer.body : undefined;
        }, 1000);
        assert.equal(payout.status, 'completed');
        const newKeys = [...fake!.paidTimes()].filter(([key]) => !keysBefore.has(key));
        assert.deepEqual(newKeys.map(([, times]) => times), [1], 'one payout at the provider, paid once');
        assert.equal(fake!.transferRequests(), sentBefore + 1, 'never sent again after the restart');
        const third = await server.request<{ returnPaymentId: string | null }>('POST', path, { headers: shop.key, body: {} });
        assert.deepEqual([third.status, third.body.returnPaymentId], [200, paymentId], 'asked again: the same return');

        assert.equal(await server.stop('SIGTERM'), 0);
        const db = await server.openDatabase();
        try {
          const payments = await db.query<{ id: string; status: string }>('SELECT id, status FROM payments WHERE merchant_id = $1', [shop.merchant.id]);
          assert.deepEqual(payments, [{ id: paymentId, status: 'completed' }], 'one payout to the phone');
          assert.deepEqual((await checkLedger(db)).violations, []);
        } finally {
          await db.close();
        }
      });
    });
  }

  describe(`a crash in the middle of a split-tender return, on ${target.name}`, () => {
    let server: ServerProcess;
    before(async () => {
      server = await serverProcess(target);
      await server.start();
    });
    after(async () => server?.dispose());

    it('the return asked again after the restart answers one refund, and the tap goes back once', async () => {
      const shop = await shopWithTill(server, 'test');
      const payer = uniqueHandle('split');
      // 1,000 NGN (fund is in major units).
      await server.createWallet({ handle: payer, fund: 1000 });
      const tag = await server.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const merchantBalance = async () => {
        const answer = await server.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: shop.key });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body.balances.find((balance) => balance.currency === 'NGN')?.available ?? 0;
      };
      const merchantBefore = await merchantBalance();
      const opened = await server.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 250, currency: 'NGN', tenderOf: randomUUID() } });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const paid = await server.request<{ status: string }>('POST', `/api/pos/sessions/${opened.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
      assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));

      // The return is one database transaction: the SIGKILL lands before it, inside it (rolled
      // back) or after its commit; whichever, the retry must give the tap back exactly once.
      const path = `/api/pos/sessions/${opened.body.sessionId}/return`;
      const first = server.request<{ id: string }>('POST', path, { headers: shop.term, body: {} }).then(
        (response) => response,
        () => undefined,
      );
      await new Promise((resolve) => setImmediate(resolve));
      await server.stop('SIGKILL');
      const firstAnswer = await first;
      await server.start();
      const again = await server.request<{ id: string; amount: number; tenders: { kind: string; amount: number }[] }>('POST', path, { headers: shop.term, body: {} });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      if (firstAnswer) assert.equal(again.body.id, firstAnswer.body.id);
      assert.deepEqual([again.body.amount, again.body.tenders], [250, [{ kind: 'wallet', amount: 250 }]]);
      const third = await server.request<{ id: string }>('POST', path, { headers: shop.term });
      assert.deepEqual([third.status, third.body.id], [201, again.body.id], 'asked again: the same refund');
      assert.equal(await merchantBalance(), merchantBefore, 'the merchant keeps nothing of it');

      assert.equal(await server.stop('SIGTERM'), 0);
      const db = await server.openDatabase();
      try {
        assert.equal(await balanceMinor({ db }, payer, 'NGN'), 100_000, 'the payer has her 250 back, once');
        const refunds = await db.query<{ id: string }>('SELECT id FROM sale_refunds WHERE sale_id = $1', [opened.body.sessionId]);
        assert.deepEqual(refunds.map((row) => row.id), [again.body.id]);
        assert.deepEqual((await checkLedger(db)).violations, []);
      } finally {
        await db.close();
      }
    });
  });
}

// Paystack's mobile money charge (GH) through the same crash: the server dies while Paystack holds
// POST /charge (the phone is prompted at once). The restarted server never charges again (the
// till's retry with its key answers the same collection); Paystack's charge.success, confirmed by
// verify, completes it once, and the fake's own count says the customer was charged once.
for (const target of await databaseTargets()) {
  describe(`a crash while paystack holds a till's mobile money charge, on ${target.name}`, () => {
    let server: ServerProcess;
    let fake: PaystackFake | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...fake?.env,
        PUBLIC_BASE_URL: baseUrl,
        RAIL_ROUTES: 'mobile_money:GH=paystack',
        RAIL_TIMEOUT_MS: '20000',
        COLLECTION_POLL_MS: '1',
        COLLECTION_TIMEOUT_SECONDS: '90',
      }));
      fake = await startPaystackFake({ callbackBase: `${server.baseUrl}/api/rails/paystack/webhook`, delayScale: DELAY_SCALE });
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await fake?.stop();
    });

    it('charges the customer once, completes once, credits the merchant once', async () => {
      const phone = PAYSTACK_CHARGES.held.gh;
      const shop = await shopWithTill(server, 'live', { country: 'GH', currency: 'GHS' });
      const ask = { headers: { ...shop.term, 'idempotency-key': randomUUID() }, body: { amountMinor: 2_500, currency: 'GHS', phone, description: 'Groceries' } };
      const first = server.request<Collection>('POST', '/api/pos/collections', ask).then(
        (response) => response,
        () => undefined,
      );
      await waitFor('Paystack to hold the charge', async () => (fake!.chargesReceived() > 0 ? true : undefined));
      await server.stop('SIGKILL');
      assert.equal(await first, undefined, 'the till got no answer: the server died while Paystack held the charge');
      await server.start();
      const again = await retried<Collection>(server, 'POST', '/api/pos/collections', ask, 201);
      assert.deepEqual([again.body.provider, again.body.amountMinor], ['paystack', 2_500]);
      const done = await waitFor('the charge to complete', async () => {
        const now = await server.request<Collection>('GET', `/api/pos/collections/${again.body.id}`, { headers: shop.term });
        return now.body.status === 'pending' ? undefined : now.body;
      }, 1000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(fake!.chargesReceived(), 1, 'POST /charge once: nothing charged again after the restart');
      assert.deepEqual(fake!.charges().map((charge) => [charge.status, charge.charged, charge.amount, charge.currency]), [['success', 1, 2_500, 'GHS']], 'the fake took the money once');
      const { balance, events, violations } = await afterTheFact(server, shop.merchant, 'GHS', again.body.id);
      assert.equal(balance, 2_500, 'credited once');
      assert.equal(events.filter((type) => type === 'pos.collection.completed').length, 1, JSON.stringify(events));
      assert.deepEqual(violations, []);
      await server.start();
    });
  });
}

// Flutterwave's mobile money charge (UG, Direct Charge) through the same crash: the server dies
// while Flutterwave holds POST /v3/charges (the phone is prompted at once). The restarted server
// never charges again (the till's retry with its key answers the same collection, and the job
// asks verify_by_reference by the tx_ref the collection id derives, never POST /v3/charges);
// charge.completed, confirmed by verify, completes it once, and the fake's own count says the
// customer was charged once.
for (const target of await databaseTargets()) {
  describe(`a crash while flutterwave holds a till's mobile money charge, on ${target.name}`, () => {
    let server: ServerProcess;
    let fake: FlutterwaveFake | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...fake?.env,
        PUBLIC_BASE_URL: baseUrl,
        RAIL_ROUTES: 'mobile_money:UG=flutterwave',
        RAIL_TIMEOUT_MS: '20000',
        COLLECTION_POLL_MS: '1',
        COLLECTION_TIMEOUT_SECONDS: '90',
      }));
      fake = await startFlutterwaveFake({ callbackBase: `${server.baseUrl}/api/rails/flutterwave/webhook`, delayScale: DELAY_SCALE });
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await fake?.stop();
    });

    it('charges the customer once, completes once, credits the merchant once', async () => {
      const shop = await shopWithTill(server, 'live', { country: 'UG', currency: 'UGX' });
      const ask = { headers: { ...shop.term, 'idempotency-key': randomUUID() }, body: { amountMinor: 2_500, currency: 'UGX', phone: FLUTTERWAVE_CHARGES.held, description: 'Groceries' } };
      const first = server.request<Collection>('POST', '/api/pos/collections', ask).then(
        (response) => response,
        () => undefined,
      );
      await waitFor('Flutterwave to hold the charge', async () => (fake!.chargesReceived() > 0 ? true : undefined));
      await server.stop('SIGKILL');
      assert.equal(await first, undefined, 'the till got no answer: the server died while Flutterwave held the charge');
      await server.start();
      const again = await retried<Collection>(server, 'POST', '/api/pos/collections', ask, 201);
      assert.deepEqual([again.body.provider, again.body.amountMinor], ['flutterwave', 2_500]);
      const done = await waitFor('the charge to complete', async () => {
        const now = await server.request<Collection>('GET', `/api/pos/collections/${again.body.id}`, { headers: shop.term });
        return now.body.status === 'pending' ? undefined : now.body;
      }, 1000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(fake!.chargesReceived(), 1, 'POST /v3/charges once: nothing charged again after the restart');
      assert.deepEqual(fake!.charges().map((charge) => [charge.tx_ref, charge.status, charge.timesCharged, charge.amount, charge.currency]), [[flutterwaveTxRef(again.body.id), 'successful', 1, 2_500, 'UGX']], 'the fake took the money once');
      const { balance, events, violations } = await afterTheFact(server, shop.merchant, 'UGX', again.body.id);
      assert.equal(balance, 2_500, 'credited once');
      assert.equal(events.filter((type) => type === 'pos.collection.completed').length, 1, JSON.stringify(events));
      assert.deepEqual(violations, []);
      await server.start();
    });
  });
}
