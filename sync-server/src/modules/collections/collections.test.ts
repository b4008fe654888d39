// Mobile money at the till over real HTTP, on both databases: the sandbox (test terminals), and
// live collections through the MTN MoMo and Safaricom Daraja fakes, their callbacks applied by
// /api/rails/<provider>/..., and a till sale taking a completed collection as its tender once.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/collections/collections.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { TillSaleDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { freePort } from '../../testing/server-process.ts';
import { type TestServer, useTestServer } from '../../testing/server.ts';
import { until } from '../../testing/until.ts';
import { startMomoFake } from '../../../../test/fakes/momo/index.ts';
import { COLLECTION_SCENARIOS, startMpesaFake } from '../../../../test/fakes/mpesa/index.ts';

type Collection = {
  id: string;
  status: string;
  amountMinor: number;
  currency: string;
  phone: string;
  provider: string;
  terminalId: string | null;
  failureCode?: string;
  failureReason?: string;
  cancelledAt?: string;
  claimedBy: string | null;
  expiresAt: string;
  createdAt: string;
  completedAt?: string;
  code?: string;
  error?: string;
};

const STEP_MS = 1500;

async function eventsOf(s: TestServer, merchantId: string, collectionId: string): Promise<{ type: string; body: Record<string, unknown> }[]> {
  const rows = await s.db.query<{ type: string; body: string }>('SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
  return rows.map((row) => ({ type: row.type, body: JSON.parse(row.body) as Record<string, unknown> })).filter((event) => event.body.collectionId === collectionId);
}

/** A merchant with a terminal: the merchant key, the terminal's Authorization header and id. */
async function shopWithTill(s: TestServer, fields: Parameters<TestServer['createMerchant']>[0] = {}, mode: 'test' | 'live' = 'test') {
  const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks', ...fields });
  const key = { 'x-merchant-api-key': mode === 'test' ? merchant.testKey : merchant.liveKey };
  const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { merchant, key, term: { authorization: `Bearer term.${created.body.token}` }, token: `term.${created.body.token}`, terminalId: created.body.id };
}

for (const target of await databaseTargets()) {
  describe(`mobile money at the till: the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), COLLECTION_TIMEOUT_SECONDS: '120' } });
    const ask = (s: TestServer, headers: Record<string, string>, body: unknown) => s.request<Collection>('POST', '/api/pos/collections', { headers, body });

    it('collects: pending, completed after the sandbox step, one ledger transfer, one event; a retry with the key asks nothing twice', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const funding = await systemBalance(s, 'funding', 'NGN');
      const key = randomUUID();
      const created = await ask(s, { ...shop.term, 'idempotency-key': key }, { amountMinor: 250_050, currency: 'NGN', phone: '0803 123 4567', description: 'Groceries' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.status, 'pending');
      assert.equal(created.body.amountMinor, 250_050);
      assert.equal(created.body.currency, 'NGN');
      assert.equal(created.body.provider, 'sandbox');
      assert.equal(created.body.terminalId, shop.terminalId);
      assert.equal(created.body.phone, '+234•••••••567', 'the local form is normalised with the merchant\'s country, then masked');
      assert.equal(Date.parse(created.body.expiresAt) - Date.parse(created.body.createdAt), 120_000);
      assert.equal(created.body.claimedBy, null);

      const retry = await ask(s, { ...shop.term, 'idempotency-key': key }, { amountMinor: 250_050, currency: 'NGN', phone: '0803 123 4567', description: 'Groceries' });
      assert.equal(retry.status, 201);
      assert.equal(retry.body.id, created.body.id);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal((await s.db.query('SELECT id FROM pos_collections WHERE merchant_id = $1', [shop.merchant.id])).length, 1, 'one collection for the key');

      const early = await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term });
      assert.equal(early.body.status, 'pending');
      clock.advance(STEP_MS);
      const done = await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term });
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'completed');
      assert.ok(done.body.completedAt);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before + 250_050);
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding - 250_050);
      // The job and another read change nothing more.
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      await s.request('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.key });
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before + 250_050, 'credited once');
      const events = await eventsOf(s, shop.merchant.id, created.body.id);
      assert.deepEqual(events.map((event) => event.type), ['pos.collection.completed']);
      assert.equal(events[0]!.body.amountMinor, 250_050);
      assert.equal(events[0]!.body.amount, 2500.5);
      assert.equal(events[0]!.body.phone, '+234•••••••567');
      // Where the merchant looks for money received: listed once, in its own channel.
      type Received = { id: string; channel: string; method: string; amount: number; net: number; currency: string; reference: string | null; terminalId: string | null; transferId: string | null };
      const received = await s.request<{ data: Received[]; total: number }>('GET', '/api/merchant/received?channel=mobile_money', { headers: shop.key });
      assert.equal(received.status, 200, JSON.stringify(received.body));
      assert.deepEqual(received.body.data.map((row) => [row.id, row.channel, row.method, row.amount, row.net, row.currency, row.reference, row.terminalId]), [[created.body.id, 'mobile_money', 'mobile_money', 2500.5, 2500.5, 'NGN', 'Groceries', shop.terminalId]]);
      assert.match(received.body.data[0]!.transferId ?? '', /collection/);
      const everything = await s.request<{ data: Received[] }>('GET', '/api/merchant/received', { headers: shop.key });
      assert.equal(everything.body.data.filter((row) => row.id === created.body.id).length, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the magic numbers: 0002 declined, 0003 insufficient funds (failed, nothing credited); 0004 no answer expires at the timeout', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const declined = await ask(s, shop.term, { amountMinor: 1000, currency: 'NGN', phone: '+2348031230002' });
      const short = await ask(s, shop.term, { amountMinor: 1000, currency: 'NGN', phone: '08031230003' });
      const silent = await ask(s, shop.term, { amountMinor: 1000, currency: 'NGN', phone: '08031230004' });
      for (const created of [declined, short, silent]) assert.equal(created.status, 201, JSON.stringify(created.body));
      clock.advance(STEP_MS);
      assert.ok((await s.context.collections.runOnce()) >= 3);
      const read = async (id: string) => (await s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers: shop.term })).body;
      const [a, b, c] = [await read(declined.body.id), await read(short.body.id), await read(silent.body.id)];
      assert.deepEqual([a.status, a.failureCode], ['failed', 'declined']);
      assert.match(a.failureReason ?? '', /declined/);
      assert.deepEqual([b.status, b.failureCode], ['failed', 'insufficient_funds']);
      assert.deepEqual([c.status, c.failureCode ?? null], ['pending', null]);
      clock.advance(120_000);
      await s.context.collections.runOnce();
      const expired = await read(silent.body.id);
      assert.deepEqual([expired.status, expired.failureCode], ['expired', 'no_answer']);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before, 'nothing credited');
      assert.deepEqual((await eventsOf(s, shop.merchant.id, declined.body.id)).map((event) => event.type), ['pos.collection.failed']);
      assert.deepEqual((await eventsOf(s, shop.merchant.id, silent.body.id)).map((event) => event.type), ['pos.collection.expired']);
      const late = await s.request<Collection>('POST', `/api/pos/collections/${silent.body.id}/cancel`, { headers: shop.term });
      assert.deepEqual([late.status, late.body.code], [410, 'collection_expired']);
      // An ended collection cannot be cancelled.
      const cancel = await s.request<Collection>('POST', `/api/pos/collections/${declined.body.id}/cancel`, { headers: shop.term });
      assert.deepEqual([cancel.status, cancel.body.code], [409, 'collection_not_pending']);
    });

    it('bad input is a 400 with a clear code, never a 500; another merchant\'s collection is a 404; live without a provider is a 422', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const cases: [unknown, string][] = [
        [{ amountMinor: 100, currency: 'NGN', phone: 'call me' }, 'invalid_phone'],
        [{ amountMinor: 100, currency: 'NGN', phone: '12345' }, 'invalid_phone'],
        [{ amountMinor: 100, currency: 'KES', phone: '08031234567' }, 'currency_not_accepted'],
      ];
      for (const [body, code] of cases) {
        const answer = await ask(s, shop.term, body);
        assert.deepEqual([answer.status, answer.body.code], [400, code], JSON.stringify(answer.body));
      }
      for (const body of [{ amountMinor: 0, currency: 'NGN', phone: '08031234567' }, { amountMinor: 1.5, currency: 'NGN', phone: '08031234567' }, { amountMinor: 2 ** 53, currency: 'NGN', phone: '08031234567' }, { currency: 'NGN', phone: '08031234567' }, { amountMinor: 100, currency: 'NGN' }, { amountMinor: '100', currency: 'NGN', phone: '08031234567' }]) {
        const answer = await ask(s, shop.term, body);
        assert.equal(answer.status, 400, JSON.stringify([body, answer.body]));
      }
      const mine = await ask(s, shop.term, { amountMinor: 100, currency: 'NGN', phone: '08031234567' });
      const other = await shopWithTill(s);
      const foreign = await s.request<Collection>('GET', `/api/pos/collections/${mine.body.id}`, { headers: other.term });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'collection_not_found']);
      const missing = await s.request<Collection>('POST', '/api/pos/collections/col_nope/cancel', { headers: shop.term });
      assert.deepEqual([missing.status, missing.body.code], [404, 'collection_not_found']);
      const live = await ask(s, { 'x-merchant-api-key': shop.merchant.liveKey }, { amountMinor: 100, currency: 'NGN', phone: '08031234567' });
      assert.deepEqual([live.status, live.body.code], [422, 'collection_unavailable']);
    });

    it('cancel: the till stops waiting; a confirmation after it is recorded completed, unclaimed, and cannot pay a till sale', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const created = await ask(s, shop.term, { amountMinor: 5000, currency: 'NGN', phone: '08031234567' });
      const cancelled = await s.request<Collection>('POST', `/api/pos/collections/${created.body.id}/cancel`, { headers: shop.term });
      assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'cancelled']);
      assert.ok(cancelled.body.cancelledAt);
      const again = await s.request<Collection>('POST', `/api/pos/collections/${created.body.id}/cancel`, { headers: shop.term });
      assert.deepEqual([again.status, again.body.status], [200, 'cancelled']);
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      const late = (await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body;
      assert.deepEqual([late.status, late.claimedBy, Boolean(late.cancelledAt)], ['completed', null, true]);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before + 5000, 'never lost: the merchant holds it, to refund');
      assert.deepEqual((await eventsOf(s, shop.merchant.id, created.body.id)).map((event) => event.type), ['pos.collection.completed']);
      const { socket } = await connectTerminal(s, shop.token);
      try {
        const sale: TillSaleDoc = { id: randomUUID(), terminalId: shop.terminalId, amountMinor: 5000, currency: 'NGN', capturedAt: new Date(clock.now()).toISOString(), status: 'queued', serverSeq: 0, tenders: [{ kind: 'mobile_money', amountMinor: 5000, reference: created.body.id }] };
        const [verdict] = conflictsOf<TillSaleDoc>(await push(socket, [sale], 'till_sales'));
        assert.deepEqual([verdict?.status, verdict?.declineCode], ['declined', 'tender_unverified']);
      } finally {
        socket.disconnect();
      }
    });

    it('a till sale takes a completed collection as its mobile_money tender once; a second claim, another amount, a pending one or another till are declined; its refund pays the phone back', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const created = await ask(s, shop.term, { amountMinor: 30_000, currency: 'NGN', phone: '08031234567' });
      clock.advance(STEP_MS);
      assert.equal((await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body.status, 'completed');
      const pending = await ask(s, shop.term, { amountMinor: 10_000, currency: 'NGN', phone: '08031234567' });
      const other = await shopWithTill(s);
      const { socket } = await connectTerminal(s, shop.token);
      try {
        const sale = (amountMinor: number, tenders: TillSaleDoc['tenders']): TillSaleDoc => ({ id: randomUUID(), terminalId: shop.terminalId, amountMinor, currency: 'NGN', capturedAt: new Date(clock.now()).toISOString(), status: 'queued', serverSeq: 0, tenders });
        const first = sale(50_000, [{ kind: 'cash', amountMinor: 20_000, tenderedMinor: 20_000, changeMinor: 0 }, { kind: 'mobile_money', amountMinor: 30_000, reference: created.body.id }]);
        const second = sale(30_000, [{ kind: 'mobile_money', amountMinor: 30_000, reference: created.body.id }]);
        const wrongAmount = sale(20_000, [{ kind: 'mobile_money', amountMinor: 20_000, reference: created.body.id }]);
        const notDone = sale(10_000, [{ kind: 'mobile_money', amountMinor: 10_000, reference: pending.body.id }]);
        const unnamed = sale(10_000, [{ kind: 'mobile_money', amountMinor: 10_000 }]);
        const verdicts = conflictsOf<TillSaleDoc>(await push(socket, [first, second, wrongAmount, notDone, unnamed], 'till_sales'));
        assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode ?? null]), [['accepted', null], ['declined', 'tender_claimed'], ['declined', 'tender_unverified'], ['declined', 'tender_unverified'], ['declined', 'tender_unverified']]);
        const again = conflictsOf<TillSaleDoc>(await push(socket, [sale(30_000, [{ kind: 'mobile_money', amountMinor: 30_000, reference: created.body.id }])], 'till_sales'));
        assert.deepEqual([again[0]?.status, again[0]?.declineCode], ['declined', 'tender_claimed'], 'a later push claims it no more');
        const read = await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term });
        assert.equal(read.body.claimedBy, first.id);

        // Another till of another merchant cannot name it.
        const theirs = await connectTerminal(s, other.token);
        try {
          const foreign: TillSaleDoc = { ...sale(30_000, [{ kind: 'mobile_money', amountMinor: 30_000, reference: created.body.id }]), terminalId: other.terminalId };
          const [verdict] = conflictsOf<TillSaleDoc>(await push(theirs.socket, [foreign], 'till_sales'));
          assert.deepEqual([verdict?.status, verdict?.declineCode], ['declined', 'tender_unverified']);
        } finally {
          theirs.socket.disconnect();
        }

        // A refund gives the mobile money part back to the phone (a sandbox payout from the merchant's wallet), the rest from the drawer.
        const pin = await s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '4321' } });
        assert.equal(pin.status, 200);
        const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
        const whole = await s.request<{ amount: number; status: string; tenders: { kind: string; amount: number; reference?: string; status?: string }[] }>('POST', '/api/pos/refunds', { headers: { ...shop.term, 'idempotency-key': randomUUID() }, body: { saleId: first.id, managerPin: '4321' } });
        assert.equal(whole.status, 201, JSON.stringify(whole.body));
        assert.equal(whole.body.amount, 500);
        assert.deepEqual(whole.body.tenders.map(({ kind, amount }) => ({ kind, amount })), [{ kind: 'mobile_money', amount: 300 }, { kind: 'cash', amount: 200 }]);
        const payouts = await s.db.query<{ id: string; status: string; rail: string; amount: string; fee: string; receiver: unknown }>('SELECT id, status, rail, amount, fee, receiver FROM payments WHERE merchant_id = $1', [shop.merchant.id]);
        assert.equal(payouts.length, 1, 'one payout to the phone');
        assert.equal(payouts[0]!.rail, 'mobile_money');
        assert.equal(Number(payouts[0]!.amount), 30_000);
        assert.match(JSON.stringify(payouts[0]!.receiver), /2348031234567/);
        assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_000 - Number(payouts[0]!.fee), 'the merchant pays the phone back (and the rail fee)');
        const stored = await s.db.query<{ tenders: unknown }>('SELECT tenders FROM sale_refunds WHERE sale_id = $1', [first.id]);
        assert.match(JSON.stringify(stored[0]!.tenders), new RegExp(payouts[0]!.id), 'the refund names its payout');
        // The sandbox's default payout is still on its way: the refund is pending until its outcome.
        assert.deepEqual([whole.body.status, whole.body.tenders[0]!.reference, whole.body.tenders[0]!.status], ['pending', payouts[0]!.id, 'pending']);
        const twice = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: first.id, managerPin: '4321' } });
        assert.deepEqual([twice.status, twice.body.code], [409, 'nothing_to_refund']);
      } finally {
        socket.disconnect();
      }
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });

  describe(`mobile money at the till: live through the MTN MoMo fake on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    let fake: Awaited<ReturnType<typeof startMomoFake>>;
    before(async () => {
      fake = await startMomoFake({ callbackBase: publicBaseUrl, delayScale: 0.05, targetEnvironment: 'mtnuganda' });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { port, now: clock.now, env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000' }, app: { providerEnv: env } });

    it('a request-to-pay completes on MoMo\'s callback (credited once from rail_clearing); a rejected one fails in words; a lost callback is found by polling', async () => {
      const s = server();
      const shop = await shopWithTill(s, { country: 'UG', currency: 'UGX' }, 'live');
      const liveTerm = shop.term;
      const before = await balanceMinor(s, shop.merchant.handle, 'UGX', 'live');
      const created = await s.request<Collection>('POST', '/api/pos/collections', { headers: liveTerm, body: { amountMinor: 5000, currency: 'UGX', phone: '+256773123410' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.provider, 'momo');
      const read = (id: string) => s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers: liveTerm });
      const done = await until('the callback', async () => {
        const now = (await read(created.body.id)).body;
        return now.status === 'completed' ? now : undefined;
      });
      assert.equal(done.amountMinor, 5000);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 5000);
      assert.equal(await systemBalance(s, 'rail_clearing:momo', 'UGX', 'live'), -5000, 'in the provider\'s own clearing');
      assert.equal(await systemBalance(s, 'rail_clearing', 'UGX', 'live'), 0, 'not the shared one');
      assert.equal(fake.collections().length, 1, 'one request-to-pay');

      const rejected = await s.request<Collection>('POST', '/api/pos/collections', { headers: liveTerm, body: { amountMinor: 5000, currency: 'UGX', phone: '+256773123451' } });
      const failed = await until('the rejection', async () => {
        const now = (await read(rejected.body.id)).body;
        return now.status === 'failed' ? now : undefined;
      });
      assert.equal(failed.failureCode, 'declined', failed.failureReason);

      const lost = await s.request<Collection>('POST', '/api/pos/collections', { headers: liveTerm, body: { amountMinor: 7000, currency: 'UGX', phone: '+256773123464' } });
      assert.equal(lost.status, 201, JSON.stringify(lost.body));
      const polled = await until('the poll', async () => {
        clock.advance(10_000);
        await s.context.collections.runOnce();
        const now = (await read(lost.body.id)).body;
        return now.status === 'completed' ? now : undefined;
      });
      assert.equal(polled.amountMinor, 7000);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'UGX', 'live'), before + 12_000, 'each credited once');
      assert.deepEqual((await eventsOf(s, shop.merchant.id, created.body.id)).map((event) => event.type), ['pos.collection.completed']);
      assert.deepEqual((await eventsOf(s, shop.merchant.id, rejected.body.id)).map((event) => event.type), ['pos.collection.failed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a request nobody answers expires after one last status query', async () => {
      const s = server();
      const shop = await shopWithTill(s, { country: 'UG', currency: 'UGX' }, 'live');
      const created = await s.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 3000, currency: 'UGX', phone: '+256773123454' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const asked = fake.requests().filter((request) => request.method === 'GET' && request.path.includes('/requesttopay/')).length;
      clock.advance(121_000);
      await s.context.collections.runOnce();
      const expired = (await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body;
      assert.deepEqual([expired.status, expired.failureCode], ['expired', 'no_answer']);
      assert.ok(fake.requests().filter((request) => request.method === 'GET' && request.path.includes('/requesttopay/')).length > asked, 'asked once more before expiring');
      assert.deepEqual((await eventsOf(s, shop.merchant.id, created.body.id)).map((event) => event.type), ['pos.collection.expired']);
    });
  });

  describe(`mobile money at the till: live through the Daraja (M-Pesa Express) fake on ${target.name}`, async () => {
    const port = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    let fake: Awaited<ReturnType<typeof startMpesaFake>>;
    before(async () => {
      fake = await startMpesaFake({ callbackBase: publicBaseUrl, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const server = useTestServer(target, { port, env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000' }, app: { providerEnv: env } });

    it('an STK push completes on Daraja\'s callback; a cancelled prompt fails as declined; a duplicate callback changes nothing', async () => {
      const s = server();
      const shop = await shopWithTill(s, { country: 'KE', currency: 'KES' }, 'live');
      const before = await balanceMinor(s, shop.merchant.handle, 'KES', 'live');
      const read = (id: string) => s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers: shop.term });
      const created = await s.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 10_000, currency: 'KES', phone: COLLECTION_SCENARIOS.success.phone.replace('+254', '0') } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.provider, 'mpesa');
      const done = await until('the STK callback', async () => {
        const now = (await read(created.body.id)).body;
        return now.status === 'completed' ? now : undefined;
      });
      assert.equal(done.amountMinor, 10_000);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), before + 10_000);
      assert.equal(fake.collections().length, 1, 'one push');
      // The callback applied again (as a provider retry would) changes nothing.
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed' }), 'unchanged');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), before + 10_000);

      const cancelled = await s.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 10_000, currency: 'KES', phone: COLLECTION_SCENARIOS.cancelled.phone } });
      const failed = await until('the cancelled prompt', async () => {
        const now = (await read(cancelled.body.id)).body;
        return now.status === 'failed' ? now : undefined;
      });
      assert.equal(failed.failureCode, 'declined', failed.failureReason);
      assert.deepEqual((await eventsOf(s, shop.merchant.id, created.body.id)).map((event) => event.type), ['pos.collection.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('never credits a completion whose provider record is for another amount or currency than the collection asked', async () => {
      const s = server();
      const shop = await shopWithTill(s, { country: 'KE', currency: 'KES' }, 'live');
      const before = await balanceMinor(s, shop.merchant.handle, 'KES', 'live');
      // Nobody answers this prompt for a while: the collection stays pending while the callbacks below arrive.
      const created = await s.request<Collection>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 5_000, currency: 'KES', phone: COLLECTION_SCENARIOS.no_answer.phone } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const paid of [{ amount: 4_999, currency: 'KES' }, { amount: 5_000, currency: 'UGX' }]) {
        assert.equal(await s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed', paid }), 'unchanged', JSON.stringify(paid));
      }
      assert.equal((await s.request<Collection>('GET', `/api/pos/collections/${created.body.id}`, { headers: shop.term })).body.status, 'pending');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), before, 'nothing credited');
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed', paid: { amount: 5_000, currency: 'KES' } }), 'applied');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'KES', 'live'), before + 5_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
