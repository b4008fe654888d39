import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '@tapline/shared/webhook-signature';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { ManualClock, WebhookReceiver } from '../../testing/receiver.ts';
import { ADMIN, type ApiResponse, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { convertMinor, parseDecimal } from '@tapline/shared/money';
import type { PayoutProvider, PayoutRequest } from './providers.ts';

type Payment = Record<string, unknown> & { paymentId: string; status: string; timeline: { status: string; at: string; note?: string }[] };
type Body = Record<string, unknown>;

const STEP_MS = 1_000;
const KENYA_PHONE = '+254712345678';
const BASE = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1000, currency: 'NGN', receiver: KENYA_PHONE, receiverName: 'Wanjiku Kamau', senderName: 'Ada Obi' };

function pay(server: TestServer, key: string, body: Body, idempotencyKey: string = randomUUID()): Promise<ApiResponse<Payment>> {
  return server.request<Payment>('POST', '/api/pay', { headers: { 'x-merchant-api-key': key, 'idempotency-key': idempotencyKey }, body });
}

async function balance(server: TestServer, key: string, currency = 'NGN'): Promise<number> {
  const response = await server.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': key } });
  return response.body.balances.find((entry) => entry.currency === currency)?.available ?? 0;
}

async function getPayment(server: TestServer, id: string, key?: string): Promise<ApiResponse<Payment>> {
  return server.request<Payment>('GET', `/api/payments/${id}`, key ? { headers: { 'x-merchant-api-key': key } } : {});
}

for (const target of await databaseTargets()) {
  describe(`payments: the sandbox state table on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-11-01T09:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now, env: { SANDBOX_STEP_MS: String(STEP_MS) } });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await receiver.close();
    });

    /** The events the receiver got for one payment, each verified against the raw body. */
    const eventsFor = (paymentId: string, secret: string) =>
      receiver.received
        .filter((request) => JSON.parse(request.rawBody.toString('utf8')).paymentId === paymentId)
        .map((request) => {
          assert.equal(verifySignature(secret, request.rawBody, String(request.headers['x-service-signature'])), true);
          return JSON.parse(request.rawBody.toString('utf8')) as Body;
        });

    it('default reference: pending -> processing -> completed, one step apart; payment.completed is signed and delivered', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const before = await balance(server(), merchant.testKey);
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'order-1001' });
      assert.equal(created.status, 201);
      const payment = created.body;
      assert.match(payment.paymentId, /^pay_[0-9a-f]{40}$/);
      assert.equal(payment.transactionId, payment.paymentId);
      assert.equal(payment.id, payment.paymentId);
      assert.equal(payment.success, true);
      assert.equal(payment.status, 'pending');
      assert.equal(payment.amount, 1000);
      assert.equal(payment.currency, 'NGN');
      assert.equal(payment.destinationCurrency, 'KES');
      assert.equal(payment.fee, 15, '1.5% mobile_money fee');
      // destinationAmount = floor(amount x fxRate) in KES cents.
      assert.equal(payment.destinationAmount, convertMinor(100_000, 'NGN', 'KES', parseDecimal(String(payment.fxRate)), 'down') / 100);
      assert.equal(payment.estimatedArrival, new Date(clock.now().getTime() + 2 * STEP_MS).toISOString());
      assert.match(String(payment.providerReference), /^sbx_mobile_money_/);
      assert.deepEqual(payment.receiver, { type: 'phone', phone: KENYA_PHONE });
      assert.equal(payment.reference, 'order-1001');
      assert.equal(await balance(server(), merchant.testKey), before - 1015, 'debited amount + fee at once');

      const scheduler = server().context.payments;
      clock.advance(STEP_MS - 1);
      await scheduler.runOnce();
      assert.equal((await getPayment(server(), payment.paymentId)).body.status, 'pending', 'not before its step');
      clock.advance(1);
      await scheduler.runOnce();
      assert.equal((await getPayment(server(), payment.paymentId)).body.status, 'processing');
      await server().context.events.runOnce();
      assert.deepEqual(eventsFor(payment.paymentId, merchant.webhookSecret), [], 'no event for processing');
      clock.advance(STEP_MS);
      await scheduler.runOnce();
      const done = await getPayment(server(), payment.paymentId);
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'completed');
      assert.deepEqual(done.body.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      const times = done.body.timeline.map((entry) => Date.parse(entry.at));
      assert.deepEqual([times[1]! - times[0]!, times[2]! - times[1]!], [STEP_MS, STEP_MS]);
      assert.equal(done.body.failureReason, undefined);
      assert.ok(done.body.createdAt && done.body.updatedAt && Date.parse(String(done.body.updatedAt)) > Date.parse(String(done.body.createdAt)));

      await server().context.events.runOnce();
      const events = eventsFor(payment.paymentId, merchant.webhookSecret);
      assert.equal(events.length, 1);
      const event = events[0]!;
      assert.match(String(event.id), /^evt_/);
      assert.deepEqual({ ...event, id: undefined }, {
        id: undefined,
        event: 'payment.completed',
        paymentId: payment.paymentId,
        status: 'completed',
        amount: 1000,
        currency: 'NGN',
        destinationAmount: payment.destinationAmount,
        destinationCurrency: 'KES',
        fxRate: payment.fxRate,
        fee: 15,
        reference: 'order-1001',
        timestamp: clock.now().toISOString(),
      });
      assert.equal(await balance(server(), merchant.testKey), before - 1015);
    });

    it('test_success: completed at once, with payment.completed', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'test_success' });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'completed');
      assert.equal(created.body.success, true);
      assert.deepEqual(created.body.timeline.map((entry) => entry.status), ['pending', 'completed']);
      assert.equal(created.body.estimatedArrival, clock.now().toISOString());
      await server().context.events.runOnce();
      const events = eventsFor(created.body.paymentId, merchant.webhookSecret);
      assert.deepEqual(events.map((event) => [event.event, event.status, event.reference]), [['payment.completed', 'completed', 'test_success']]);
    });

    it('test_failure: failed at once with failureReason; the debit is refunded; payment.failed', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const before = await balance(server(), merchant.testKey);
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'test_failure' });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'failed');
      assert.equal(created.body.success, false);
      assert.match(String(created.body.failureReason), /declined/);
      assert.deepEqual(created.body.timeline.map((entry) => entry.status), ['pending', 'failed']);
      assert.equal(await balance(server(), merchant.testKey), before);
      const read = await getPayment(server(), created.body.paymentId);
      assert.equal(read.body.failureReason, created.body.failureReason);
      await server().context.events.runOnce();
      const events = eventsFor(created.body.paymentId, merchant.webhookSecret);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.event, 'payment.failed');
      assert.equal(events[0]!.status, 'failed');
      assert.equal(events[0]!.failureReason, created.body.failureReason);
      assert.equal(events[0]!.destinationCurrency, 'KES');
    });

    it('test_pending: stays pending however long the scheduler runs', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'test_pending' });
      assert.equal(created.body.status, 'pending');
      for (let step = 0; step < 5; step++) {
        clock.advance(STEP_MS * 10);
        await server().context.payments.runOnce();
      }
      const read = await getPayment(server(), created.body.paymentId);
      assert.equal(read.body.status, 'pending');
      assert.deepEqual(read.body.timeline.map((entry) => entry.status), ['pending']);
      await server().context.events.runOnce();
      assert.deepEqual(eventsFor(created.body.paymentId, merchant.webhookSecret), []);
    });

    it('test_reversal: completes first, then is reversed by a correcting transfer; payment.reversed', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const before = await balance(server(), merchant.testKey);
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'test_reversal' });
      assert.equal(created.body.status, 'completed');
      assert.equal(await balance(server(), merchant.testKey), before - 1015);
      clock.advance(STEP_MS);
      await server().context.payments.runOnce();
      const read = await getPayment(server(), created.body.paymentId, merchant.testKey);
      assert.equal(read.body.status, 'reversed');
      assert.equal(read.body.success, false);
      assert.deepEqual(read.body.timeline.map((entry) => entry.status), ['pending', 'completed', 'reversed']);
      assert.match(String(read.body.failureReason), /reversed/);
      assert.equal(await balance(server(), merchant.testKey), before, 'the correcting transfer gives back amount and fee');
      const transfers = await server().db.query<{ id: string; kind: string }>('SELECT id, kind FROM ledger_transfers WHERE id LIKE $1 ORDER BY created_at, id', [`${created.body.paymentId}:%`]);
      assert.deepEqual(transfers.map((row) => row.kind).sort(), ['payment_debit', 'payment_reversal', 'payment_settlement']);
      await server().context.events.runOnce();
      const events = eventsFor(created.body.paymentId, merchant.webhookSecret);
      assert.deepEqual(events.map((event) => event.event), ['payment.completed', 'payment.reversed']);
      assert.equal(events[1]!.status, 'reversed');
      assert.equal(events[1]!.failureReason, read.body.failureReason);
      assert.equal(events[1]!.paymentId, events[0]!.paymentId);
    });

    it('pays a Tapline wallet over rail wallet in the sandbox: credited in its own currency on completion', async () => {
      const merchant = await server().createMerchant();
      const handle = uniqueHandle('kenyan');
      await server().createWallet({ handle, currency: 'KES', country: 'KE' });
      const created = await pay(server(), merchant.testKey, { ...BASE, rail: 'wallet', receiver: `@${handle}`, reference: 'test_success' });
      assert.equal(created.status, 201);
      assert.equal(created.body.destinationCurrency, 'KES');
      assert.equal(created.body.fee, 5, '0.5% wallet fee');
      const session = await server().request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const wallet = await server().request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.deepEqual(wallet.body.balances, [{ currency: 'KES', available: created.body.destinationAmount }]);
      const unknown = await pay(server(), merchant.testKey, { ...BASE, rail: 'wallet', receiver: '@nobody_at_all' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'recipient_not_found');
    });

    it('keeps the ledger balanced through every transition', async () => {
      const report = await checkLedger(server().db);
      assert.deepEqual(report.violations, []);
    });
  });

  describe(`payments: validation, isolation and idempotency on ${target.name}`, () => {
    const server = useTestServer(target);

    it('answers 400 with a code for each invalid field', async () => {
      const merchant = await server().createMerchant();
      const cases: [Body, string][] = [
        [{ ...BASE, fromCode: 'FR' }, 'country_not_supported'],
        [{ ...BASE, toCode: 'XX' }, 'country_not_supported'],
        [{ ...BASE, toCode: 'Kenya' }, 'validation_failed'],
        [{ ...BASE, rail: 'pigeon' }, 'validation_failed'],
        [{ ...BASE, currency: 'JPY' }, 'currency_not_supported'],
        [{ ...BASE, amount: 10.001 }, 'amount_too_many_decimals'],
        [{ ...BASE, amount: 0 }, 'amount_must_not_be_zero'],
        [{ ...BASE, amount: -5 }, 'amount_must_be_positive'],
        [{ ...BASE, amount: 2e12 }, 'amount_too_large'],
        [{ ...BASE, currency: 'UGX', amount: 10.5 }, 'amount_too_many_decimals'],
        [{ ...BASE, receiver: '0712345678' }, 'receiver_invalid'],
        [{ ...BASE, receiver: '+25471234' }, 'receiver_invalid'],
        [{ ...BASE, receiver: '+2348012345678' }, 'receiver_invalid'],
        [{ ...BASE, receiver: { accountNumber: '0123456789' } }, 'receiver_invalid'],
        [{ ...BASE, rail: 'bank_transfer', receiver: KENYA_PHONE }, 'receiver_invalid'],
        [{ ...BASE, receiver: { phone: KENYA_PHONE, accountNumber: '0123456789' } }, 'receiver_invalid'],
        [{ ...BASE, rail: 'wallet', receiver: KENYA_PHONE }, 'receiver_invalid'],
      ];
      for (const [body, code] of cases) {
        const response = await pay(server(), merchant.testKey, body);
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.code, code, JSON.stringify(body));
        assert.equal(typeof response.body.error, 'string');
      }
      for (const field of ['fromCode', 'toCode', 'rail', 'amount', 'currency', 'receiver']) {
        const body: Body = { ...BASE };
        delete body[field];
        const response = await pay(server(), merchant.testKey, body);
        assert.equal(response.status, 400, field);
        assert.equal(response.body.code, 'validation_failed');
        assert.match(String(response.body.error), new RegExp(`${field} is required`));
      }
      const missingKey = await server().request('POST', '/api/pay', { headers: { 'x-merchant-api-key': merchant.testKey }, body: BASE });
      assert.equal(missingKey.status, 400);
      assert.equal(missingKey.body.code, 'idempotency_key_required');
      // The object form with a phone and the account form are accepted where they fit.
      const objectForm = await pay(server(), merchant.testKey, { ...BASE, receiver: { phone: KENYA_PHONE, provider: 'mpesa', name: 'Wanjiku' } });
      assert.equal(objectForm.status, 201);
      assert.deepEqual(objectForm.body.receiver, { type: 'phone', phone: KENYA_PHONE, provider: 'mpesa', name: 'Wanjiku' });
      const bank = await pay(server(), merchant.testKey, { ...BASE, toCode: 'GH', rail: 'bank_transfer', receiver: '0123456789012' });
      assert.equal(bank.status, 201);
      assert.equal(bank.body.destinationCurrency, 'GHS');
      assert.deepEqual(bank.body.receiver, { type: 'account', accountNumber: '0123456789012' });
      // Zero-decimal currencies: 1500 UGX is fine.
      const ugx = await pay(server(), merchant.testKey, { ...BASE, toCode: 'UG', currency: 'UGX', amount: 1500, receiver: '+256712345678' });
      assert.equal(ugx.status, 201);
      assert.equal(ugx.body.amount, 1500);
      assert.equal(ugx.body.fee, 23, 'ceil(22.5) in a zero-decimal currency');
    });

    it('answers 422 rail_unavailable for a rail the recipient country does not have, and 422 insufficient_funds', async () => {
      const merchant = await server().createMerchant();
      for (const [rail, toCode, receiver] of [['qr', 'ZM', '+260971234567'], ['cash_pickup', 'ZA', '+27821234567'], ['mobile_money', 'MA', '+212612345678'], ['card', 'TZ', '+255712345678']] as const) {
        const refused = await pay(server(), merchant.testKey, { ...BASE, rail, toCode, receiver });
        assert.equal(refused.status, 422, `${rail} ${toCode}`);
        assert.equal(refused.body.code, 'rail_unavailable');
      }
      const before = await balance(server(), merchant.testKey);
      const tooMuch = await pay(server(), merchant.testKey, { ...BASE, amount: before });
      assert.equal(tooMuch.status, 422, 'the fee does not fit');
      assert.deepEqual(tooMuch.body, { error: 'Insufficient funds', code: 'insufficient_funds' });
      assert.equal(await balance(server(), merchant.testKey), before);
      assert.equal((await server().db.query('SELECT 1 FROM payments WHERE merchant_id = $1', [merchant.id])).length, 0, 'no payment left behind');
    });

    it('keeps merchants and modes apart: 401 without a valid key, 404 for another merchant or mode; public reads show no private fields', async () => {
      const merchant = await server().createMerchant();
      const other = await server().createMerchant();
      const created = await pay(server(), merchant.testKey, { ...BASE, reference: 'private-ref' });
      const id = created.body.paymentId;
      const anonymousPay = await server().request('POST', '/api/pay', { headers: { 'idempotency-key': randomUUID() }, body: BASE });
      assert.equal(anonymousPay.status, 401);
      const badKey = await server().request('POST', '/api/pay', { headers: { 'x-merchant-api-key': `mk_test_${'0'.repeat(64)}`, 'idempotency-key': randomUUID() }, body: BASE });
      assert.equal(badKey.status, 401);
      assert.equal(badKey.body.code, 'invalid_api_key');
      const malformed = await server().request('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': 'mk_test_nothex' } });
      assert.equal(malformed.status, 401);
      for (const key of [other.testKey, merchant.liveKey]) {
        const hidden = await getPayment(server(), id, key);
        assert.equal(hidden.status, 404);
        assert.equal(hidden.body.code, 'payment_not_found');
        const list = await server().request<{ total: number }>('GET', '/api/payments', { headers: { 'x-merchant-api-key': key } });
        assert.equal(list.body.total, 0);
      }
      const owner = await getPayment(server(), id, merchant.testKey);
      assert.equal(owner.status, 200);
      assert.equal(owner.body.reference, 'private-ref');
      const publicRead = await getPayment(server(), id);
      assert.equal(publicRead.status, 200);
      assert.equal(publicRead.body.status, 'pending');
      assert.equal(publicRead.body.amount, 1000);
      assert.equal(publicRead.body.receiver, undefined);
      assert.equal(publicRead.body.reference, undefined);
      const unknown = await getPayment(server(), 'pay_unknown');
      assert.equal(unknown.status, 404);
      const list = await server().request<{ data: Payment[]; total: number }>('GET', '/api/payments', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(list.body.total, 1);
      assert.equal(list.body.data[0]!.paymentId, id);
    });

    it('replays a repeated key, refuses it with another body, and never charges twice', async () => {
      const merchant = await server().createMerchant();
      const before = await balance(server(), merchant.testKey);
      const key = randomUUID();
      const first = await pay(server(), merchant.testKey, BASE, key);
      const second = await pay(server(), merchant.testKey, BASE, key);
      assert.equal(first.status, 201);
      assert.equal(second.status, 201);
      assert.equal(second.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(second.body, first.body);
      const changed = await pay(server(), merchant.testKey, { ...BASE, amount: 1001 }, key);
      assert.equal(changed.status, 422);
      assert.equal(changed.body.code, 'idempotency_key_reused');
      // The same key under another merchant is another request.
      const other = await server().createMerchant();
      const elsewhere = await pay(server(), other.testKey, BASE, key);
      assert.equal(elsewhere.status, 201);
      assert.notEqual(elsewhere.body.paymentId, first.body.paymentId);
      assert.equal(await balance(server(), merchant.testKey), before - 1015);
    });

    it('50 concurrent duplicates with one Idempotency-Key make one charge and one paymentId', async () => {
      const merchant = await server().createMerchant();
      const before = await balance(server(), merchant.testKey);
      const key = randomUUID();
      const responses = await Promise.all(Array.from({ length: 50 }, () => pay(server(), merchant.testKey, { ...BASE, reference: 'test_success' }, key)));
      const statuses = responses.map((response) => response.status);
      assert.ok(statuses.every((status) => status === 201 || status === 409), `statuses ${[...new Set(statuses)].join(',')}`);
      const ids = new Set(responses.filter((response) => response.status === 201).map((response) => response.body.paymentId));
      assert.equal(ids.size, 1);
      assert.equal(responses.filter((response) => response.status === 201 && !response.headers.get('idempotent-replayed')).length, 1, 'one first answer');
      for (const response of responses.filter((r) => r.status === 409)) assert.equal(response.body.code, 'idempotency_in_progress');
      // A retry after the storm gets the one answer.
      const retry = await pay(server(), merchant.testKey, { ...BASE, reference: 'test_success' }, key);
      assert.equal(retry.status, 201);
      assert.equal(retry.body.paymentId, [...ids][0]);
      assert.equal(await balance(server(), merchant.testKey), before - 1015, 'charged once');
      const rows = await server().db.query<{ count: number }>('SELECT count(*)::int8 AS count FROM payments WHERE merchant_id = $1', [merchant.id]);
      assert.equal(rows[0]!.count, 1);
      const debits = await server().db.query<{ count: number }>("SELECT count(*)::int8 AS count FROM ledger_transfers WHERE kind = 'payment_debit' AND id = $1", [`${[...ids][0]}:debit`]);
      assert.equal(debits[0]!.count, 1);
    });

    it('a re-run of the same claimed request (a crash before the answer was stored) returns the payment it made', async () => {
      const merchant = await server().createMerchant();
      const before = await balance(server(), merchant.testKey);
      const key = randomUUID();
      const first = await pay(server(), merchant.testKey, BASE, key);
      // Simulate a process that died after its commit but before storing the answer: the claim is
      // still in progress and older than the abandonment window.
      await server().db.query(
        `UPDATE idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL, created_at = now() - interval '10 minutes' WHERE key = $1`,
        [key],
      );
      const rerun = await pay(server(), merchant.testKey, BASE, key);
      assert.equal(rerun.status, 201);
      assert.equal(rerun.body.paymentId, first.body.paymentId);
      assert.equal(await balance(server(), merchant.testKey), before - 1015);
      // After its 24 hours a key may be used for a new payment: a new seed, a new id.
      await server().db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
      const later = await pay(server(), merchant.testKey, BASE, key);
      assert.equal(later.status, 201);
      assert.notEqual(later.body.paymentId, first.body.paymentId);
      assert.equal(await balance(server(), merchant.testKey), before - 2030);
    });

    it('concurrent payments from one wallet are grouped per statement and each stands alone: the ones that fit pass, the rest 422', async () => {
      const merchant = await server().createMerchant();
      const before = await balance(server(), merchant.testKey);
      assert.equal(before, 1_000_000);
      // 300,000 + 1.5% fee = 304,500 each: three fit in the float, the other three do not.
      const responses = await Promise.all(Array.from({ length: 6 }, (_, index) => pay(server(), merchant.testKey, { ...BASE, amount: 300_000, note: `n${index}` })));
      const statuses = responses.map((response) => response.status).sort();
      assert.deepEqual(statuses, [201, 201, 201, 422, 422, 422]);
      for (const refused of responses.filter((response) => response.status === 422)) assert.equal(refused.body.code, 'insufficient_funds');
      assert.equal(await balance(server(), merchant.testKey), before - 3 * 304_500);
      const rows = await server().db.query<{ count: number }>('SELECT count(*)::int8 AS count FROM payments WHERE merchant_id = $1', [merchant.id]);
      assert.equal(rows[0]!.count, 3, 'refused payments leave no row');
      const ids = new Set(responses.filter((response) => response.status === 201).map((response) => response.body.paymentId));
      assert.equal(ids.size, 3);
    });

    it('the scheduler forgets Idempotency-Keys past their 24 hours and long-expired quotes', async () => {
      const merchant = await server().createMerchant();
      const oldKey = randomUUID();
      const freshKey = randomUUID();
      await pay(server(), merchant.testKey, BASE, oldKey);
      await pay(server(), merchant.testKey, BASE, freshKey);
      await server().db.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [oldKey]);
      const quote = await server().request('GET', '/api/fx/quote?from=NGN&to=KES&amount=10', { headers: { 'x-merchant-api-key': merchant.testKey } });
      await server().db.query(`UPDATE fx_quotes SET expires_at = $2 WHERE id = $1`, [String(quote.body.quoteId), new Date(Date.now() - 2 * 24 * 3600_000)]);
      await server().context.payments.runOnce();
      const keys = await server().db.query<{ key: string }>('SELECT key FROM idempotency_keys WHERE key = ANY ($1::text[])', [[oldKey, freshKey]]);
      assert.deepEqual(keys.map((row) => row.key), [freshKey]);
      assert.equal((await server().db.query('SELECT 1 FROM fx_quotes WHERE id = $1', [String(quote.body.quoteId)])).length, 0);
    });

    it('keeps the ledger balanced', async () => {
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });

  describe(`payments: live mode on ${target.name}`, () => {
    const submitted: PayoutRequest[] = [];
    let pollAnswer: 'processing' | 'completed' | 'failed' = 'processing';
    const provider: PayoutProvider = {
      name: 'fake-momo',
      supports: (rail, country) => rail === 'mobile_money' && country === 'GH',
      async submit(request) {
        submitted.push(request);
        return { status: 'processing', providerReference: `FM-${submitted.length}` };
      },
      async poll() {
        return pollAnswer === 'failed' ? { status: 'failed', failureReason: 'Recipient wallet closed' } : { status: pollAnswer };
      },
    };
    const clock = new ManualClock(Date.parse('2026-11-02T09:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now, app: { payoutProviders: [provider] } });

    async function liveMerchant(fund: number) {
      const merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: fund, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      return merchant;
    }

    it('rail wallet settles on-us at once, converting into the recipient wallet\'s currency', async () => {
      const merchant = await liveMerchant(10_000);
      const handle = uniqueHandle('live_ke');
      await server().createWallet({ handle, currency: 'KES', country: 'KE', mode: 'live' });
      const created = await pay(server(), merchant.liveKey, { ...BASE, rail: 'wallet', receiver: `@${handle}`, reference: 'test_pending' });
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'completed', 'sandbox references mean nothing in live mode');
      assert.equal(created.body.mode, 'live');
      assert.equal(created.body.providerReference, `${created.body.paymentId}:debit`);
      assert.equal(await balance(server(), merchant.liveKey), 10_000 - 1005);
      const session = await server().request('POST', '/api/wallet/sessions', { body: { handle, pin: '1234', mode: 'live' } });
      const wallet = await server().request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.deepEqual(wallet.body.balances, [{ currency: 'KES', available: created.body.destinationAmount }]);
      const event = await server().db.query<{ body: string }>(`SELECT body FROM events WHERE merchant_id = $1 AND mode = 'live'`, [merchant.id]);
      assert.equal(JSON.parse(event[0]!.body).event, 'payment.completed');
      // The test wallet of the same handle does not exist: live and test never mix.
      const testSide = await pay(server(), merchant.testKey, { ...BASE, rail: 'wallet', receiver: `@${handle}` });
      assert.equal(testSide.status, 404);
    });

    it('a live rail without a payout adapter is a 422 rail_unavailable, and nothing is debited', async () => {
      const merchant = await liveMerchant(5_000);
      const refused = await pay(server(), merchant.liveKey, BASE);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'rail_unavailable');
      assert.equal(await balance(server(), merchant.liveKey), 5_000);
    });

    it('a live rail with an adapter: submitted at once, polled by the scheduler until final; failure refunds', async () => {
      const merchant = await liveMerchant(20_000);
      const body = { ...BASE, toCode: 'GH', receiver: '+233201234567' };
      const created = await pay(server(), merchant.liveKey, body);
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'processing');
      assert.equal(created.body.providerReference, `FM-${submitted.length}`);
      assert.equal(submitted.at(-1)!.paymentId, created.body.paymentId);
      assert.equal(submitted.at(-1)!.destinationCurrency, 'GHS');
      clock.advance(30_000);
      pollAnswer = 'completed';
      await server().context.payments.runOnce();
      const completed = await getPayment(server(), created.body.paymentId, merchant.liveKey);
      assert.equal(completed.body.status, 'completed');
      assert.deepEqual(completed.body.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);

      const second = await pay(server(), merchant.liveKey, body);
      const afterDebit = await balance(server(), merchant.liveKey);
      pollAnswer = 'failed';
      clock.advance(30_000);
      await server().context.payments.runOnce();
      const failed = await getPayment(server(), second.body.paymentId, merchant.liveKey);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.failureReason, 'Recipient wallet closed');
      assert.equal(await balance(server(), merchant.liveKey), afterDebit + 1000 + 15);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });
  });

  describe(`payments: rate limit on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 0.05 });

    it('answers 429 with Retry-After on /api/pay once the key has used its 120 (scaled: 6) a minute', async () => {
      const merchant = await server().createMerchant();
      const statuses: number[] = [];
      let limited: ApiResponse<Payment> | undefined;
      for (let attempt = 0; attempt < 8; attempt++) {
        const response = await pay(server(), merchant.testKey, BASE);
        statuses.push(response.status);
        if (response.status === 429) limited = response;
        else assert.equal(response.headers.get('x-ratelimit-limit'), '6');
      }
      assert.deepEqual(statuses, [201, 201, 201, 201, 201, 201, 429, 429]);
      assert.equal(limited!.body.code, 'rate_limited');
      const retryAfter = Number(limited!.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      // The limit counts per key: another merchant still pays.
      const other = await server().createMerchant();
      assert.equal((await pay(server(), other.testKey, BASE)).status, 201);
    });
  });
}
