// A completed collection that pays no sale given back to the phone that paid
// (POST /api/pos/collections/{id}/return, docs/till.md "Cancel a split sale"), over real HTTP on both
// databases: one mobile_money payout from the merchant's wallet (the sandbox), amount + fee debited
// once, however often and however concurrently it is asked; refused for a claimed, pending,
// failed or cancelled-without-payment collection; a returned collection pays no till sale.
// The merchants' test wallets start empty (SANDBOX_FLOAT 0): what they hold is what their
// collections credited, so the payout fee that does not fit is a real insufficient_funds.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/collections/returns.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { TillSaleDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { type TestServer, useTestServer } from '../../testing/server.ts';

type Collection = {
  id: string;
  status: string;
  amountMinor: number;
  phone: string;
  terminalId: string | null;
  cancelledAt?: string;
  claimedBy: string | null;
  returnedAt: string | null;
  returnPaymentId: string | null;
  returnAttempts: number;
  code?: string;
  error?: string;
};
type PaymentRow = { id: string; status: string; rail: string; amount: string; fee: string; currency: string; receiver: unknown; source_wallet_id: string };

const STEP_MS = 1500;

async function shopWithTill(s: TestServer) {
  const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
  const key = { 'x-merchant-api-key': merchant.testKey };
  const till = async (name: string) => {
    const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return { term: { authorization: `Bearer term.${created.body.token}` }, token: `term.${created.body.token}`, terminalId: created.body.id };
  };
  return { merchant, key, ...(await till('Front till')), other: await till('Back till') };
}

async function paymentsOf(s: TestServer, merchantId: string): Promise<PaymentRow[]> {
  return s.db.query<PaymentRow>('SELECT id, status, rail, amount::text AS amount, fee::text AS fee, currency, receiver, source_wallet_id FROM payments WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
}

async function eventsOf(s: TestServer, merchantId: string, collectionId: string): Promise<{ type: string; body: Record<string, unknown> }[]> {
  const rows = await s.db.query<{ type: string; body: string }>('SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
  return rows.map((row) => ({ type: row.type, body: JSON.parse(row.body) as Record<string, unknown> })).filter((event) => event.body.collectionId === collectionId);
}

for (const target of await databaseTargets()) {
  describe(`mobile money given back to the phone on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), COLLECTION_TIMEOUT_SECONDS: '120', SANDBOX_FLOAT: '0' } });
    const ask = (s: TestServer, headers: Record<string, string>, amountMinor: number, phone = '08031234567') => s.request<Collection>('POST', '/api/pos/collections', { headers, body: { amountMinor, currency: 'NGN', phone } });
    const read = async (s: TestServer, headers: Record<string, string>, id: string) => (await s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers })).body;
    const giveBack = (s: TestServer, headers: Record<string, string>, id: string, body?: unknown) => s.request<Collection>('POST', `/api/pos/collections/${id}/return`, { headers, ...(body === undefined ? {} : { body }) });
    /** A collection the sandbox completed. */
    async function completed(s: TestServer, headers: Record<string, string>, amountMinor: number, phone?: string): Promise<Collection> {
      const created = await ask(s, headers, amountMinor, phone);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      clock.advance(STEP_MS);
      const done = await read(s, headers, created.body.id);
      assert.equal(done.status, 'completed');
      return done;
    }

    it('pays the phone back once: one mobile_money payout, the merchant debited amount + fee once, returnedAt set, one event; a retry answers the same', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      await completed(s, shop.term, 500_000, '08039990001');
      const paid = await completed(s, shop.term, 30_000);
      assert.deepEqual([paid.returnedAt, paid.returnPaymentId], [null, null]);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      assert.equal(before, 530_000, 'what the two collections credited');

      const staff = await s.request<{ id: string }>('POST', '/api/merchant/staff', { headers: shop.key, body: { name: 'Ada Obi', role: 'cashier', pin: '1357' } });
      assert.equal(staff.status, 201, JSON.stringify(staff.body));
      const shiftId = randomUUID();
      const back = await giveBack(s, shop.term, paid.id, { cashierId: staff.body.id, shiftId });
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.equal(back.body.status, 'completed', 'the status stays');
      assert.ok(back.body.returnedAt);
      assert.match(back.body.returnPaymentId ?? '', /^pay_[0-9a-f]{32}$/);
      const payments = await paymentsOf(s, shop.merchant.id);
      assert.equal(payments.length, 1, 'one payout');
      const payout = payments[0]!;
      assert.deepEqual([payout.id, payout.rail, Number(payout.amount), payout.currency], [back.body.returnPaymentId, 'mobile_money', 30_000, 'NGN']);
      assert.match(JSON.stringify(payout.receiver), /\+2348031234567/, 'to the phone that paid');
      assert.equal(Number(payout.fee), 450, '1.5 % of the amount: the merchant pays it');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_000 - 450);
      const shown = await read(s, shop.term, paid.id);
      assert.deepEqual([shown.returnedAt, shown.returnPaymentId, shown.claimedBy], [back.body.returnedAt, back.body.returnPaymentId, null]);
      const followed = await s.request<{ id: string; amount: number; fee: number; status: string }>('GET', `/api/payments/${payout.id}`, { headers: shop.key });
      assert.equal(followed.status, 200, JSON.stringify(followed.body));
      assert.deepEqual([followed.body.amount, followed.body.fee], [300, 4.5]);

      // Again (a retry after a lost answer, or another till): the same record, nothing paid twice.
      const again = await giveBack(s, shop.term, paid.id);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body, back.body);
      const byKey = await giveBack(s, shop.key, paid.id, {});
      assert.deepEqual([byKey.status, byKey.body.returnPaymentId], [200, back.body.returnPaymentId]);
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 1);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_450);
      // Both events carry the same instant on the injected clock: compared as a set.
      const events = await eventsOf(s, shop.merchant.id, paid.id);
      assert.deepEqual(events.map((event) => event.type).sort(), ['pos.collection.completed', 'pos.collection.returned']);
      const returned = events.find((event) => event.type === 'pos.collection.returned')!.body;
      assert.deepEqual([returned.returnPaymentId, returned.amountMinor, returned.returnFeeMinor, returned.phone, returned.status, returned.cashierId, returned.shiftId], [back.body.returnPaymentId, 30_000, 450, '+234•••••••567', 'completed', staff.body.id, shiftId]);

      // The sandbox pays the phone step by step (pending, processing, completed).
      const statuses: string[] = [];
      for (let step = 0; step < 4 && statuses.at(-1) !== 'completed'; step += 1) {
        clock.advance(STEP_MS);
        await s.context.payments.runOnce();
        statuses.push((await s.request<{ status: string }>('GET', `/api/payments/${payout.id}`, { headers: shop.key })).body.status);
      }
      assert.equal(statuses.at(-1), 'completed', statuses.join(' '));
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_450, 'debited once');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('two calls at once make one payout', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      await completed(s, shop.term, 100_000, '08039990001');
      const paid = await completed(s, shop.term, 20_000);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const answers = await Promise.all([giveBack(s, shop.term, paid.id), giveBack(s, shop.key, paid.id), giveBack(s, shop.term, paid.id)]);
      for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(new Set(answers.map((answer) => answer.body.returnPaymentId)).size, 1);
      assert.equal(new Set(answers.map((answer) => answer.body.returnedAt)).size, 1);
      const payments = await paymentsOf(s, shop.merchant.id);
      assert.deepEqual(payments.map((payment) => payment.id), [answers[0]!.body.returnPaymentId]);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 20_000 - 300);
      assert.deepEqual((await eventsOf(s, shop.merchant.id, paid.id)).map((event) => event.type).sort(), ['pos.collection.completed', 'pos.collection.returned']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    for (const [reference, final] of [['test_failure', 'failed'], ['test_reversal', 'reversed']] as const) {
      it(`a return payout the provider ends ${final} gives the merchant the debit back and makes the collection returnable again; the next return is a new payout that pays the phone once`, async () => {
        const s = server();
        const shop = await shopWithTill(s);
        await completed(s, shop.term, 100_000, '08039990001');
        const paid = await completed(s, shop.term, 20_000);
        assert.equal(paid.returnAttempts, 0);
        const before = await balanceMinor(s, shop.merchant.handle, 'NGN');

        const first = await giveBack(s, shop.term, paid.id, { reference });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.returnAttempts, 1);
        // The sandbox fails a test_failure payout at once, in the return's own transaction: the answer already shows it returnable.
        const firstPayout = (await paymentsOf(s, shop.merchant.id)).map((payment) => payment.id).join();
        assert.equal(first.body.returnPaymentId, final === 'failed' ? null : firstPayout);
        // The sandbox steps the payout to its end (a reversal completes first, then is reversed).
        for (let step = 0; step < 6; step += 1) {
          const status = (await s.request<{ status: string }>('GET', `/api/payments/${firstPayout}`, { headers: shop.key })).body.status;
          if (status === final) break;
          clock.advance(STEP_MS);
          await s.context.payments.runOnce();
        }
        assert.equal((await s.request<{ status: string }>('GET', `/api/payments/${firstPayout}`, { headers: shop.key })).body.status, final);
        assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before, 'amount and fee back in the wallet');
        const reopened = await read(s, shop.term, paid.id);
        assert.deepEqual([reopened.status, reopened.returnedAt, reopened.returnPaymentId, reopened.returnAttempts], ['completed', null, null, 1]);
        const failedEvents = (await eventsOf(s, shop.merchant.id, paid.id)).filter((event) => event.type === 'pos.collection.return_failed');
        assert.equal(failedEvents.length, 1);
        assert.deepEqual([failedEvents[0]!.body.failedPaymentId, failedEvents[0]!.body.paymentStatus, failedEvents[0]!.body.returnAttempts], [firstPayout, final, 1]);
        assert.match(String(failedEvents[0]!.body.paymentFailureReason), /sandbox reference/);

        // Given back again: a second payout with an id of its own; retries answer it, never a third.
        const second = await giveBack(s, shop.term, paid.id);
        assert.equal(second.status, 200, JSON.stringify(second.body));
        assert.equal(second.body.returnAttempts, 2);
        assert.ok(second.body.returnPaymentId && second.body.returnPaymentId !== firstPayout, 'a new payout');
        const retried = await Promise.all([giveBack(s, shop.key, paid.id), giveBack(s, shop.term, paid.id)]);
        for (const answer of retried) assert.deepEqual([answer.status, answer.body.returnPaymentId, answer.body.returnAttempts], [200, second.body.returnPaymentId, 2]);
        for (let step = 0; step < 4; step += 1) {
          clock.advance(STEP_MS);
          await s.context.payments.runOnce();
        }
        assert.equal((await s.request<{ status: string }>('GET', `/api/payments/${second.body.returnPaymentId}`, { headers: shop.key })).body.status, 'completed');
        const payments = await paymentsOf(s, shop.merchant.id);
        assert.deepEqual(payments.map((payment) => [payment.id, payment.status]).sort(), [[firstPayout, final], [second.body.returnPaymentId, 'completed']].sort());
        assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 20_000 - 300, 'the phone paid back once, its fee once');
        assert.deepEqual((await eventsOf(s, shop.merchant.id, paid.id)).map((event) => event.type).sort(),
          ['pos.collection.completed', 'pos.collection.return_failed', 'pos.collection.returned', 'pos.collection.returned']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });
    }

    it('refuses a claimed (409 collection_claimed), pending, failed or cancelled-without-payment collection (409 collection_not_completed), moving nothing', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      await completed(s, shop.term, 100_000, '08039990001');
      const claimed = await completed(s, shop.term, 10_000);
      const { socket } = await connectTerminal(s, shop.token);
      let saleId: string;
      try {
        const sale: TillSaleDoc = { id: randomUUID(), terminalId: shop.terminalId, amountMinor: 10_000, currency: 'NGN', capturedAt: new Date(clock.now()).toISOString(), status: 'queued', serverSeq: 0, tenders: [{ kind: 'mobile_money', amountMinor: 10_000, reference: claimed.id }] };
        saleId = sale.id;
        const [verdict] = conflictsOf<TillSaleDoc>(await push(socket, [sale], 'till_sales'));
        assert.equal(verdict?.status, 'accepted');
      } finally {
        socket.disconnect();
      }
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const refused = await giveBack(s, shop.term, claimed.id);
      assert.deepEqual([refused.status, refused.body.code], [409, 'collection_claimed']);
      assert.match(refused.body.error ?? '', new RegExp(saleId));

      const pending = await ask(s, shop.term, 5000, '08031230004');
      const notYet = await giveBack(s, shop.term, pending.body.id);
      assert.deepEqual([notYet.status, notYet.body.code], [409, 'collection_not_completed']);
      const declined = await ask(s, shop.term, 5000, '08031230002');
      const stopped = await ask(s, shop.term, 5000, '08031230004');
      assert.equal((await s.request<Collection>('POST', `/api/pos/collections/${stopped.body.id}/cancel`, { headers: shop.term })).body.status, 'cancelled');
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      assert.equal((await read(s, shop.term, declined.body.id)).status, 'failed');
      for (const id of [declined.body.id, stopped.body.id]) {
        const answer = await giveBack(s, shop.term, id);
        assert.deepEqual([answer.status, answer.body.code], [409, 'collection_not_completed'], id);
      }
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 0, 'no payout');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before);
    });

    it('another merchant\'s, mode\'s or till\'s collection is a 404 (given back, read or cancelled); a bad id or body a clear 4xx, never a 500', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      await completed(s, shop.term, 100_000, '08039990001');
      const paid = await completed(s, shop.term, 10_000);
      const stranger = await shopWithTill(s);
      const cases: [Record<string, string>, string][] = [
        [stranger.term, 'another merchant\'s till'],
        [stranger.key, 'another merchant\'s key'],
        [{ 'x-merchant-api-key': shop.merchant.liveKey }, 'the live key'],
        [shop.other.term, 'another till of the same merchant'],
      ];
      for (const [headers, who] of cases) {
        const answer = await giveBack(s, headers, paid.id);
        assert.deepEqual([answer.status, answer.body.code], [404, 'collection_not_found'], who);
      }
      // Reading and cancelling too: a till sees its own collections only, the merchant's key all of them.
      const readByOther = await s.request<{ code: string }>('GET', `/api/pos/collections/${paid.id}`, { headers: shop.other.term });
      assert.deepEqual([readByOther.status, readByOther.body.code], [404, 'collection_not_found'], 'read from another till of the same merchant');
      const cancelled = await s.request<{ code: string }>('POST', `/api/pos/collections/${paid.id}/cancel`, { headers: shop.other.term });
      assert.deepEqual([cancelled.status, cancelled.body.code], [404, 'collection_not_found'], 'cancel from another till of the same merchant');
      const byKey = await s.request<{ id: string }>('GET', `/api/pos/collections/${paid.id}`, { headers: shop.key });
      assert.deepEqual([byKey.status, byKey.body.id], [200, paid.id], 'the merchant\'s key reads every till\'s');
      for (const id of ['col_nope', 'nope', encodeURIComponent('col_ä/../x'), '%00']) {
        const answer = await giveBack(s, shop.term, id);
        assert.ok(answer.status === 404 || answer.status === 400, `${id}: ${answer.status}`);
        assert.equal(typeof answer.body.code, 'string', JSON.stringify(answer.body));
      }
      const long = await giveBack(s, shop.term, `col_${'a'.repeat(90)}`);
      assert.deepEqual([long.status, long.body.code], [404, 'collection_not_found']);
      const badShift = await giveBack(s, shop.term, paid.id, { shiftId: 'yesterday' });
      assert.deepEqual([badShift.status, badShift.body.code], [400, 'validation_failed']);
      for (const body of [[1, 2], 'back', 7, { reference: 'r'.repeat(101) }, { cashierId: '' }, { reference: 12 }]) {
        const answer = await giveBack(s, shop.term, paid.id, body);
        assert.deepEqual([answer.status, answer.body.code], [400, 'validation_failed'], JSON.stringify(body));
      }
      const unknownCashier = await giveBack(s, shop.term, paid.id, { cashierId: 'nobody-here' });
      assert.deepEqual([unknownCashier.status, unknownCashier.body.code], [422, 'cashier_unknown']);
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 0, 'nothing paid by a refused call');
      assert.equal((await read(s, shop.term, paid.id)).returnedAt, null);
    });

    it('a payment confirmed after the till cancelled is returnable; a returned collection pays no till sale', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      await completed(s, shop.term, 100_000, '08039990001');
      const created = await ask(s, shop.term, 7000);
      assert.equal((await s.request<Collection>('POST', `/api/pos/collections/${created.body.id}/cancel`, { headers: shop.term })).body.status, 'cancelled');
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      const late = await read(s, shop.term, created.body.id);
      assert.deepEqual([late.status, Boolean(late.cancelledAt), late.claimedBy], ['completed', true, null]);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const back = await giveBack(s, shop.term, created.body.id);
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.ok(back.body.returnedAt);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 7000 - 105);

      // Returned (not cancelled) and then named as a till sale's tender: declined, nothing claimed.
      const kept = await completed(s, shop.term, 8000);
      assert.equal((await giveBack(s, shop.term, kept.id)).status, 200);
      const { socket } = await connectTerminal(s, shop.token);
      try {
        const sale: TillSaleDoc = { id: randomUUID(), terminalId: shop.terminalId, amountMinor: 8000, currency: 'NGN', capturedAt: new Date(clock.now()).toISOString(), status: 'queued', serverSeq: 0, tenders: [{ kind: 'mobile_money', amountMinor: 8000, reference: kept.id }] };
        const [verdict] = conflictsOf<TillSaleDoc>(await push(socket, [sale], 'till_sales'));
        assert.deepEqual([verdict?.status, verdict?.declineCode], ['declined', 'tender_unverified']);
        assert.match(verdict?.declineReason ?? '', /given back/);
      } finally {
        socket.disconnect();
      }
      assert.equal((await read(s, shop.term, kept.id)).claimedBy, null);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('422 insufficient_funds when the merchant\'s wallet cannot pay amount + fee: nothing moved, and once topped up the same call pays once', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      // The wallet holds exactly what the collection credited: the fee does not fit.
      const paid = await completed(s, shop.term, 40_000);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), 40_000);
      const short = await giveBack(s, shop.term, paid.id);
      assert.deepEqual([short.status, short.body.code], [422, 'insufficient_funds'], JSON.stringify(short.body));
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), 40_000);
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 0);
      assert.equal((await read(s, shop.term, paid.id)).returnedAt, null);
      await completed(s, shop.term, 1000, '08039990001');
      const back = await giveBack(s, shop.term, paid.id);
      assert.equal(back.status, 200, JSON.stringify(back.body));
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), 41_000 - 40_000 - 600);
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
