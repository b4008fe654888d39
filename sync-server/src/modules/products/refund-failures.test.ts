// A till sale refund whose mobile money payout fails or is reversed (migration 059): the refund
// says so (status failed, failedAmount), the sale is refundable by that part again, the next
// refund pays the phone with a new payout, and the X/Z reports do not count what never reached
// the customer. Real HTTP, the payments' sandbox, both databases.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { TillSaleDoc } from '@tapline/shared/sync-protocol';
import { REFERENCE_LENGTH_MAX } from '@tapline/shared/limits';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { type TestServer, useTestServer } from '../../testing/server.ts';
import type { PaymentRow } from '../payments/index.ts';
import { recordRefundPayoutOutcomes } from './refunds.ts';

type Tender = { kind: string; amount: number; reference?: string; status?: string; failureReason?: string | null };
type Refund = { id: string; amount: number; status: string; failedAmount: number; failureReason?: string | null; lines: unknown[]; tenders: Tender[]; code?: string };
type Sale = { refunded: number; refundable: number; refundableLines: unknown[]; refunds: Refund[] };
type Tally = { count: number; amount: number };
type Report = { id: string | null; refunds: Tally; refundFailures: Tally; gross: number; net: number; cash: { refunds: Tally } };

const STEP_MS = 1500;

/** Migration 059's data statements (its UPDATEs), to run again on rows put back as they were before it. */
function migration059Updates(): string {
  const sql = readFileSync(new URL('../../db/migrations/059_refund_payout_outcomes.sql', import.meta.url), 'utf8').replace(/--[^\n]*/g, '');
  return sql.split(';').map((statement) => statement.trim()).filter((statement) => statement.startsWith('UPDATE')).join(';\n');
}
const PIN = '4321';

async function shopWithTill(s: TestServer) {
  const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
  const key = { 'x-merchant-api-key': merchant.testKey };
  const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const pin = await s.request('PUT', `/api/merchant/terminals/${created.body.id}/manager-pin`, { headers: key, body: { pin: PIN } });
  assert.equal(pin.status, 200);
  return { merchant, key, term: { authorization: `Bearer term.${created.body.token}` }, token: `term.${created.body.token}`, terminalId: created.body.id };
}

async function eventsOf(s: TestServer, merchantId: string, type: string): Promise<{ body: Record<string, unknown>; created_at: Date }[]> {
  const rows = await s.db.query<{ body: string; created_at: Date }>('SELECT body, created_at FROM events WHERE merchant_id = $1 AND type = $2 ORDER BY created_at, id', [merchantId, type]);
  return rows.map((row) => ({ body: JSON.parse(row.body) as Record<string, unknown>, created_at: row.created_at }));
}

async function paymentsOf(s: TestServer, merchantId: string) {
  return s.db.query<{ id: string; status: string; fee: string; amount: string }>('SELECT id, status, fee, amount FROM payments WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
}

for (const target of await databaseTargets()) {
  describe(`a till sale refund whose mobile money payout fails, on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), COLLECTION_TIMEOUT_SECONDS: '120' } });

    /** A till sale of 500 (two lines of 250) paid 200 cash and 300 by a completed mobile money collection. */
    async function splitSale(s: TestServer, shop: Awaited<ReturnType<typeof shopWithTill>>): Promise<string> {
      const collection = await s.request<{ id: string }>('POST', '/api/pos/collections', { headers: shop.term, body: { amountMinor: 30_000, currency: 'NGN', phone: '08031234567' } });
      assert.equal(collection.status, 201, JSON.stringify(collection.body));
      clock.advance(STEP_MS);
      assert.equal((await s.request<{ status: string }>('GET', `/api/pos/collections/${collection.body.id}`, { headers: shop.term })).body.status, 'completed');
      const sale: TillSaleDoc = {
        id: randomUUID(), terminalId: shop.terminalId, amountMinor: 50_000, currency: 'NGN', capturedAt: new Date(clock.now()).toISOString(), status: 'queued', serverSeq: 0,
        items: [{ productId: null, name: 'Rice', quantity: 2, unitPrice: 25_000, discount: 0, taxRate: 0, taxInclusive: true }],
        tenders: [{ kind: 'cash', amountMinor: 20_000, tenderedMinor: 20_000, changeMinor: 0 }, { kind: 'mobile_money', amountMinor: 30_000, reference: collection.body.id }],
      };
      const { socket } = await connectTerminal(s, shop.token);
      try {
        const [verdict] = conflictsOf<TillSaleDoc>(await push(socket, [sale], 'till_sales'));
        assert.deepEqual([verdict?.status, verdict?.declineCode ?? null], ['accepted', null]);
      } finally {
        socket.disconnect();
      }
      return sale.id;
    }

    const refund = (s: TestServer, shop: Awaited<ReturnType<typeof shopWithTill>>, body: Record<string, unknown>, key = randomUUID()) =>
      s.request<Refund>('POST', '/api/pos/refunds', { headers: { ...shop.term, 'idempotency-key': key }, body: { managerPin: PIN, ...body } });
    const saleOf = async (s: TestServer, shop: Awaited<ReturnType<typeof shopWithTill>>, id: string) => (await s.request<Sale>('GET', `/api/pos/sales/${id}`, { headers: shop.term })).body;
    const xReport = async (s: TestServer, shop: Awaited<ReturnType<typeof shopWithTill>>) => (await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term })).body;
    async function closeDay(s: TestServer, shop: Awaited<ReturnType<typeof shopWithTill>>): Promise<Report> {
      const z = await s.request<Report>('POST', '/api/pos/reports', { headers: { ...shop.term, 'idempotency-key': randomUUID() }, body: { managerPin: PIN } });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      return z.body;
    }
    /** Sandbox steps until the payment reaches `status` (a default payout: pending, processing, completed; test_reversal: completed, then reversed). */
    async function stepUntil(s: TestServer, paymentId: string, status: string) {
      for (let step = 0; step < 6; step += 1) {
        const [row] = await s.db.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [paymentId]);
        if (row?.status === status) return;
        clock.advance(STEP_MS);
        await s.context.payments.runOnce();
      }
      const [row] = await s.db.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [paymentId]);
      assert.equal(row?.status, status);
    }

    it('refuses a payout reference over REFERENCE_LENGTH_MAX with 400 before anything moves; one of 100 characters pays the phone', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const saleId = await splitSale(s, shop);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const tooLong = await refund(s, shop, { saleId, reference: 'r'.repeat(REFERENCE_LENGTH_MAX + 1) });
      assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
      assert.equal((tooLong.body as unknown as { code: string }).code, 'validation_failed');
      assert.match((tooLong.body as unknown as { error: string }).error, /reference/);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before, 'nothing moved');
      assert.deepEqual(await paymentsOf(s, shop.merchant.id), []);
      const untouched = await saleOf(s, shop, saleId);
      assert.deepEqual([untouched.refunded, untouched.refundable, untouched.refunds.length], [0, 500, 0]);

      const longest = await refund(s, shop, { saleId, reference: 'r'.repeat(REFERENCE_LENGTH_MAX) });
      assert.equal(longest.status, 201, JSON.stringify(longest.body));
      const [payout] = await s.db.query<{ reference: string | null }>('SELECT reference FROM payments WHERE merchant_id = $1', [shop.merchant.id]);
      assert.equal(payout?.reference, 'r'.repeat(REFERENCE_LENGTH_MAX));
      assert.deepEqual(longest.body.tenders.map((tender) => [tender.kind, tender.amount]), [['mobile_money', 300], ['cash', 200]]);
    });

    it('a payout the provider fails: the refund is failed by the phone part, the sale refundable by it, the wallet whole; a retry answers the same; refunding again pays the phone once', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const saleId = await splitSale(s, shop);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');

      const idempotencyKey = randomUUID();
      const first = await refund(s, shop, { saleId, reference: 'test_failure' }, idempotencyKey);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const [failedPayout] = await paymentsOf(s, shop.merchant.id);
      assert.equal(failedPayout!.status, 'failed');
      // The sandbox fails test_failure in the refund's own transaction: the answer already shows it.
      assert.deepEqual([first.body.amount, first.body.status, first.body.failedAmount, first.body.lines.length], [500, 'failed', 300, 1]);
      assert.match(String(first.body.failureReason), /sandbox reference test_failure/);
      assert.deepEqual(first.body.tenders.map((tender) => [tender.kind, tender.amount, tender.reference ?? null, tender.status ?? null]), [['mobile_money', 300, failedPayout!.id, 'failed'], ['cash', 200, null, null]]);
      assert.match(String(first.body.tenders[0]!.failureReason), /test_failure/);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before, 'the payout and its fee are back in the merchant\'s wallet');

      const afterFailure = await saleOf(s, shop, saleId);
      assert.deepEqual([afterFailure.refunded, afterFailure.refundable, afterFailure.refundableLines.length], [200, 300, 0], 'the lines stay returned, the phone\'s part is refundable again');
      assert.equal(afterFailure.refunds[0]!.status, 'failed');

      const failedEvents = await eventsOf(s, shop.merchant.id, 'pos.refund.failed');
      assert.equal(failedEvents.length, 1);
      assert.deepEqual([failedEvents[0]!.body.id, failedEvents[0]!.body.status, failedEvents[0]!.body.failedAmount], [first.body.id, 'failed', 300]);
      const paymentFailed = (await eventsOf(s, shop.merchant.id, 'payment.failed')).filter((event) => event.body.paymentId === failedPayout!.id);
      assert.equal(paymentFailed.length, 1);
      assert.equal(failedEvents[0]!.created_at.getTime(), paymentFailed[0]!.created_at.getTime(), 'written with the payment\'s failure, at its time');
      const [stored] = await s.db.query<{ failed_amount: string; failed_at: Date }>('SELECT failed_amount, failed_at FROM sale_refunds WHERE id = $1', [first.body.id]);
      assert.equal(Number(stored!.failed_amount), 30_000);

      // The X report counts the cash that reached the customer, not the failed phone part.
      const x = await xReport(s, shop);
      assert.deepEqual([x.refunds, x.refundFailures, x.cash.refunds], [{ count: 1, amount: 200 }, { count: 0, amount: 0 }, { count: 1, amount: 200 }]);
      assert.equal(x.net, x.gross - 200);

      // A retry of the first request answers the same failed refund and sends nothing.
      const retried = await refund(s, shop, { saleId, reference: 'test_failure' }, idempotencyKey);
      assert.deepEqual([retried.status, retried.body.id, retried.body.status, retried.body.failedAmount], [201, first.body.id, 'failed', 300]);
      assert.equal((await paymentsOf(s, shop.merchant.id)).length, 1);

      // Heard again, the failure changes nothing.
      const [failedRow] = await s.db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [failedPayout!.id]);
      await s.db.transaction((tx) => recordRefundPayoutOutcomes(tx, [failedRow!], new Date(clock.now())));
      assert.equal((await eventsOf(s, shop.merchant.id, 'pos.refund.failed')).length, 1);
      assert.deepEqual(await saleOf(s, shop, saleId), afterFailure);

      // Refund again, no lines: the phone's part, by a new payout; the returned lines stay returned.
      clock.advance(1000);
      const second = await refund(s, shop, { saleId });
      assert.equal(second.status, 201, JSON.stringify(second.body));
      assert.deepEqual([second.body.amount, second.body.status, second.body.failedAmount, second.body.lines.length], [300, 'pending', 0, 0]);
      const secondPayout = second.body.tenders[0]!.reference!;
      assert.deepEqual(second.body.tenders.map((tender) => [tender.kind, tender.amount, tender.status]), [['mobile_money', 300, 'pending']]);
      assert.notEqual(secondPayout, failedPayout!.id, 'a new payment');
      await stepUntil(s, secondPayout, 'completed');
      const paid = await saleOf(s, shop, saleId);
      assert.deepEqual([paid.refunded, paid.refundable], [500, 0]);
      assert.deepEqual(paid.refunds.map((entry) => [entry.status, entry.failedAmount]), [['failed', 300], ['succeeded', 0]]);
      const payments = await paymentsOf(s, shop.merchant.id);
      assert.deepEqual(payments.map((payment) => [payment.id, payment.status]), [[failedPayout!.id, 'failed'], [secondPayout, 'completed']]);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_000 - Number(payments[1]!.fee), 'the phone paid back once, its fee once');
      const third = await refund(s, shop, { saleId });
      assert.deepEqual([third.status, third.body.code], [409, 'nothing_to_refund']);

      // The day closes with what reached the customer: 200 cash, then 300 to the phone.
      const z = await closeDay(s, shop);
      assert.deepEqual([z.refunds, z.refundFailures], [{ count: 2, amount: 500 }, { count: 0, amount: 0 }]);
      assert.equal(z.net, z.gross - 500);
      const next = await xReport(s, shop);
      assert.deepEqual([next.refunds, next.refundFailures], [{ count: 0, amount: 0 }, { count: 0, amount: 0 }], 'the failure counted once, by its own day');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a payout reversed after it succeeded, after the Z report closed: the refund turns failed, the next report counts the failure, refunding again pays the phone', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const saleId = await splitSale(s, shop);
      const before = await balanceMinor(s, shop.merchant.handle, 'NGN');

      const first = await refund(s, shop, { saleId, reference: 'test_reversal' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([first.body.status, first.body.failedAmount, first.body.tenders[0]!.status], ['succeeded', 0, 'succeeded'], 'test_reversal completes at once');
      const payout = first.body.tenders[0]!.reference!;
      const z1 = await closeDay(s, shop);
      assert.deepEqual([z1.refunds, z1.refundFailures], [{ count: 1, amount: 500 }, { count: 0, amount: 0 }]);

      await stepUntil(s, payout, 'reversed');
      const reversed = await saleOf(s, shop, saleId);
      assert.deepEqual([reversed.refunded, reversed.refundable], [200, 300]);
      assert.deepEqual([reversed.refunds[0]!.status, reversed.refunds[0]!.failedAmount, reversed.refunds[0]!.tenders[0]!.status], ['failed', 300, 'failed']);
      assert.match(String(reversed.refunds[0]!.failureReason), /test_reversal/);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before, 'the reversal gave the merchant the payout and its fee back');
      assert.equal((await eventsOf(s, shop.merchant.id, 'pos.refund.failed')).length, 1);
      // The closed Z report stays as it closed; the open day shows the failure.
      const stored = await s.request<Report>('GET', `/api/merchant/terminals/${shop.terminalId}/reports/${z1.id}`, { headers: shop.key });
      assert.deepEqual(stored.body.refunds, { count: 1, amount: 500 });
      const x = await xReport(s, shop);
      assert.deepEqual([x.refunds, x.refundFailures, x.net], [{ count: 0, amount: 0 }, { count: 1, amount: 300 }, 300]);

      const again = await refund(s, shop, { saleId });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.deepEqual([again.body.amount, again.body.status, again.body.lines.length], [300, 'pending', 0]);
      assert.notEqual(again.body.tenders[0]!.reference, payout);
      await stepUntil(s, again.body.tenders[0]!.reference!, 'completed');
      assert.deepEqual((await saleOf(s, shop, saleId)).refundable, 0);
      const z2 = await closeDay(s, shop);
      assert.deepEqual([z2.refunds, z2.refundFailures, z2.net], [{ count: 1, amount: 300 }, { count: 1, amount: 300 }, 0]);
      const z3 = await closeDay(s, shop);
      assert.deepEqual([z3.refunds, z3.refundFailures], [{ count: 0, amount: 0 }, { count: 0, amount: 0 }]);
      const payments = await paymentsOf(s, shop.merchant.id);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), before - 30_000 - Number(payments.find((payment) => payment.status === 'completed')!.fee));
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('migration 059 marks a refund whose payout had failed before it as failed, and one whose payout completed as succeeded', async () => {
      const s = server();
      const shop = await shopWithTill(s);
      const failedSale = await splitSale(s, shop);
      const paidSale = await splitSale(s, shop);
      const failed = await refund(s, shop, { saleId: failedSale, reference: 'test_failure' });
      const paid = await refund(s, shop, { saleId: paidSale, reference: 'test_success' });
      assert.deepEqual([failed.body.status, paid.body.status], ['failed', 'succeeded']);
      // As they were stored before migration 059: tenders without a status, nothing failed.
      const before = await s.db.query<{ id: string; tenders: unknown }>('SELECT id, tenders FROM sale_refunds WHERE id = ANY($1::text[])', [[failed.body.id, paid.body.id]]);
      for (const row of before) {
        const tenders = (typeof row.tenders === 'string' ? JSON.parse(row.tenders) : row.tenders) as Record<string, unknown>[];
        const bare = tenders.map(({ status: _status, failureReason: _reason, ...rest }) => rest);
        await s.db.query('UPDATE sale_refunds SET tenders = $2::jsonb, failed_amount = 0, failure_reason = NULL, failed_at = NULL WHERE id = $1', [row.id, JSON.stringify(bare)]);
      }
      assert.deepEqual([(await saleOf(s, shop, failedSale)).refundable, (await saleOf(s, shop, failedSale)).refunds[0]!.status], [0, 'succeeded'], 'the defect: counted as given');

      await s.db.exec(migration059Updates());
      const marked = await saleOf(s, shop, failedSale);
      assert.deepEqual([marked.refunded, marked.refundable, marked.refunds[0]!.status, marked.refunds[0]!.failedAmount, marked.refunds[0]!.tenders[0]!.status], [200, 300, 'failed', 300, 'failed']);
      assert.match(String(marked.refunds[0]!.failureReason), /test_failure/);
      const untouched = await saleOf(s, shop, paidSale);
      assert.deepEqual([untouched.refundable, untouched.refunds[0]!.status, untouched.refunds[0]!.tenders.map((tender) => tender.status ?? null)], [0, 'succeeded', ['succeeded', null]]);
      assert.equal((await eventsOf(s, shop.merchant.id, 'pos.refund.failed')).length, 1, 'no event for history: only the listener\'s, from before');
      // Refunded again, the phone is paid by a new payout.
      clock.advance(1000);
      const again = await refund(s, shop, { saleId: failedSale });
      assert.deepEqual([again.status, again.body.amount, again.body.tenders.map((tender) => tender.kind)], [201, 300, ['mobile_money']]);
    });
  });
}
