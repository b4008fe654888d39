// Cash pickup on Tapline's agent network (docs/payouts.md "Cash pickup") over real HTTP on both
// databases: a live payment on the cash_pickup rail is held in rail_clearing:agents; the sender
// gets a one-time code; an agent of the recipient's country pays it once (its float takes the
// money and the platform's commission, the payment completes); wrong codes lock the phone's
// pickups; a pickup not collected in time fails and the sender gets the money back. The ledger
// check after each.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { agent } from '../../testing/gift-cards.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { ADMIN, type TestServer, useTestServer } from '../../testing/server.ts';

type Payment = { id: string; status: string; providerReference: string | null; failureReason?: string; code?: string; error?: string };
type Pickup = { id: string; paymentId: string; status: string; amount: number; currency: string; country: string; phone: string; expiresAt: string; commission: number; agentId?: string; code?: string; receiverName?: string | null; floatBalance?: number; error?: string };

const PHONE = '+2348031234567';
const HOURS = 2;

for (const target of await databaseTargets()) {
  describe(`cash pickup at agents on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { AGENT_CASH_OUT_COMMISSION_PCT: '1', CASH_PICKUP_HOURS: String(HOURS), RAIL_ATTENTION_HOURS: '1' } });

    /** A live merchant with 1,000 NGN and a cash pickup of `amount` NGN to PHONE, submitted to the agent network. */
    async function sendCash(s: TestServer, amount: number) {
      const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const key = { 'x-merchant-api-key': merchant.liveKey };
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200, JSON.stringify(credited.body));
      const paid = await s.request<Payment>('POST', '/api/pay', {
        headers: { ...key, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode: 'NG', rail: 'cash_pickup', amount, currency: 'NGN', receiver: PHONE, receiverName: 'Ngozi Eze' },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      return { merchant, key, payment: paid.body };
    }
    const issue = (s: TestServer, key: Record<string, string>, paymentId: string) => s.request<Pickup>('POST', `/api/payments/${paymentId}/pickup-code`, { headers: key });
    const collect = (s: TestServer, desk: { headers: Record<string, string> }, code: string, phone = PHONE) =>
      s.request<Pickup>('POST', '/api/agent/cash-pickups', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { phone, code } });
    const read = async (s: TestServer, key: Record<string, string>, id: string) => (await s.request<Payment>('GET', `/api/payments/${id}`, { headers: key })).body;
    const events = async (s: TestServer, merchantId: string) =>
      (await s.db.query<{ type: string }>("SELECT type FROM events WHERE merchant_id = $1 AND type LIKE 'payment.%' ORDER BY type", [merchantId])).map((row) => row.type);

    it('holds the money in the agent network\'s clearing, and an agent of the country pays it once against the phone and the code', async () => {
      const s = server();
      const clearingBefore = await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live');
      const feesBefore = await systemBalance(s, 'fees', 'NGN', 'live');
      const { merchant, key, payment } = await sendCash(s, 400);
      assert.deepEqual([payment.status, payment.providerReference], ['processing', `pku_${payment.id.slice(4)}`], 'submitted to the agent network at once');
      // 400 plus the rail's 2.5% fee left the wallet; the 400 wait in the network's clearing.
      assert.equal(await balanceMinor(s, merchant.handle.slice(1), 'NGN', 'live'), 100_000 - 41_000);
      assert.equal(await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live') - clearingBefore, 40_000);

      const testMode = await s.request<Pickup>('POST', `/api/payments/${payment.id}/pickup-code`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([testMode.status, testMode.body.code], [404, 'payment_not_found'], 'the other mode\'s key does not see it');
      const first = await issue(s, key, payment.id);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.match(first.body.code ?? '', /^\d{4} \d{4}$/);
      assert.deepEqual([first.body.status, first.body.amount, first.body.currency, first.body.country, first.body.phone], ['active', 400, 'NGN', 'NG', PHONE]);
      const second = await issue(s, key, payment.id);
      assert.equal(second.status, 201);

      const ghana = await agent(s, { fund: 10, currency: 'GHS', country: 'GH', mode: 'live' });
      const abroad = await collect(s, ghana, second.body.code!);
      assert.deepEqual([abroad.status, abroad.body.code], [403, 'wrong_pickup_code'], 'only an agent of the recipient\'s country pays it');
      const desk = await agent(s, { fund: 50, mode: 'live' });
      if (first.body.code !== second.body.code) {
        const replaced = await collect(s, desk, first.body.code!);
        assert.deepEqual([replaced.status, replaced.body.code], [403, 'wrong_pickup_code'], 'a new code replaces the last');
      }
      const otherPhone = await collect(s, desk, second.body.code!, '+2348039999999');
      assert.deepEqual([otherPhone.status, otherPhone.body.code], [403, 'wrong_pickup_code'], 'the code works with her phone only');
      const notDigits = await collect(s, desk, '12ab');
      assert.deepEqual([notDigits.status, notDigits.body.code], [400, 'cash_pickup_code_invalid']);

      const paid = await collect(s, desk, second.body.code!.replace(' ', '-'), '+234 803 123 4567');
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      // 1% commission on 400 from the platform's fees, on top of the 400 into the float.
      assert.deepEqual([paid.body.status, paid.body.amount, paid.body.commission, paid.body.agentId, paid.body.receiverName, paid.body.floatBalance], ['paid', 400, 4, desk.agentId, 'Ngozi Eze', 454]);
      assert.equal((await read(s, key, payment.id)).status, 'completed');
      assert.deepEqual(await events(s, merchant.id), ['payment.completed']);
      assert.equal(await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live'), clearingBefore, 'the network\'s clearing nets to zero once paid');
      assert.equal(await systemBalance(s, 'fees', 'NGN', 'live') - feesBefore, 1_000 - 400, 'the fee in, the commission out');

      const again = await collect(s, desk, second.body.code!);
      assert.deepEqual([again.status, again.body.code], [403, 'wrong_pickup_code'], 'paid once');
      const reissue = await issue(s, key, payment.id);
      assert.deepEqual([reissue.status, reissue.body.code], [409, 'cash_pickup_ended']);
      await s.context.payments.runOnce();
      assert.equal((await read(s, key, payment.id)).status, 'completed', 'the scheduler leaves a paid pickup paid');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN', 'live'), 45_400);
      // The desk's cash history shows the pickup it paid, beside its cash-ins and cash-outs.
      const history = await s.request<{ data: Record<string, unknown>[]; total: number }>('GET', '/api/agent/cash-transactions', { headers: desk.headers });
      assert.equal(history.status, 200, JSON.stringify(history.body));
      assert.equal(history.body.total, 1);
      assert.deepEqual(history.body.data[0], {
        id: paid.body.id,
        kind: 'cash_pickup',
        phone: '+234•••••••567',
        paymentId: payment.id,
        amount: 400,
        currency: 'NGN',
        commission: 4,
        transferId: `${payment.id}:settle`,
        createdAt: history.body.data[0]!.createdAt,
      });
      const [settled] = await s.db.query<{ id: string }>('SELECT id FROM ledger_transfers WHERE id = $1', [`${payment.id}:settle`]);
      assert.equal(settled?.id, `${payment.id}:settle`, 'the transfer it names is the settlement into the float');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('counts wrong codes against the phone: after 5 its pickups refuse codes for 15 minutes, then the right one pays', async () => {
      const s = server();
      const { key, payment } = await sendCash(s, 100);
      const { body: { code } } = await issue(s, key, payment.id);
      const desk = await agent(s, { mode: 'live' });
      const wrong = code!.replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
      for (let attempt = 1; attempt <= 5; attempt += 1) {
        const refused = await collect(s, desk, wrong);
        assert.deepEqual([refused.status, refused.body.code], [403, 'wrong_pickup_code'], `wrong code ${attempt}`);
      }
      const locked = await collect(s, desk, code!);
      assert.deepEqual([locked.status, locked.body.code], [429, 'pickup_attempts_exceeded'], 'even the right code waits out the lock');
      assert.match(locked.body.error ?? '', /until/);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN', 'live'), 0, 'nothing paid');
      clock.advance(15 * 60_000 + 1_000);
      const paid = await collect(s, desk, code!);
      assert.deepEqual([paid.status, paid.body.status, paid.body.floatBalance], [201, 'paid', 101]);
      assert.equal((await read(s, key, payment.id)).status, 'completed');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a pickup not collected in time fails: no agent pays it and the sender gets the money and the fee back, once', async () => {
      const s = server();
      const clearingBefore = await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live');
      const { merchant, key, payment } = await sendCash(s, 200);
      const { body: { code } } = await issue(s, key, payment.id);
      const desk = await agent(s, { mode: 'live' });
      const attention = async () => (await s.request<{ data: { paymentId: string }[] }>('GET', '/api/admin/payments/attention?limit=100', { headers: ADMIN })).body.data.some((row) => row.paymentId === payment.id);
      clock.advance(HOURS * 3_600_000 - 60_000);
      assert.equal(await attention(), false, 'past RAIL_ATTENTION_HOURS but before its expiry, a pickup is waiting as meant, not stuck');
      clock.advance(61_000);
      assert.equal(await attention(), true, 'past its expiry and still open: an operator looks');
      const late = await collect(s, desk, code!);
      assert.deepEqual([late.status, late.body.code], [410, 'cash_pickup_expired'], 'past its expiry, before the scheduler noticed');
      await s.context.payments.runOnce();
      const failed = await read(s, key, payment.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.failureReason ?? '', /Not collected at an agent before .*money went back to the sender/);
      assert.equal(await balanceMinor(s, merchant.handle.slice(1), 'NGN', 'live'), 100_000, 'the amount and its fee are back');
      assert.equal(await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live'), clearingBefore);
      assert.deepEqual(await events(s, merchant.id), ['payment.failed']);
      const after = await collect(s, desk, code!);
      assert.deepEqual([after.status, after.body.code], [403, 'wrong_pickup_code'], 'an expired pickup is nobody\'s to collect');
      const reissue = await issue(s, key, payment.id);
      assert.deepEqual([reissue.status, reissue.body.code], [409, 'cash_pickup_ended']);
      await s.context.payments.runOnce();
      assert.equal(await balanceMinor(s, merchant.handle.slice(1), 'NGN', 'live'), 100_000, 'refunded once');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN', 'live'), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('codes that are not 8 digits and phones not in international form are a 400 that counts no attempt and moves nothing', async () => {
      const s = server();
      const { merchant, key, payment } = await sendCash(s, 100);
      const { body: { code } } = await issue(s, key, payment.id);
      const desk = await agent(s, { mode: 'live' });
      const clearing = await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live');
      const digits = code!.replace(' ', '');
      // More malformed codes than the 5 wrong ones that lock a phone: none of them is a try.
      const codes: [string, string][] = [
        [digits.slice(0, 7), 'cash_pickup_code_invalid'],
        [`${digits}9`, 'cash_pickup_code_invalid'],
        [`${digits.slice(0, 4)}abcd`, 'cash_pickup_code_invalid'],
        ['abcdefgh', 'cash_pickup_code_invalid'],
        [`  ${digits.slice(0, 7)}  `, 'cash_pickup_code_invalid'],
        ['        ', 'cash_pickup_code_invalid'],
        [`${digits.slice(0, 4)}.${digits.slice(4)}`, 'cash_pickup_code_invalid'],
        // Full-width digits look like the code but are not ASCII digits.
        [String.fromCodePoint(...[...digits].map((digit) => 0xff10 + Number(digit))), 'cash_pickup_code_invalid'],
        ['', 'validation_failed'],
        ['1'.repeat(21), 'validation_failed'],
      ];
      for (const [text, expected] of codes) {
        const refused = await collect(s, desk, text);
        assert.deepEqual([refused.status, refused.body.code], [400, expected], `${JSON.stringify(text)}: ${JSON.stringify(refused.body)}`);
        assert.ok((refused.body.error ?? '').length > 0);
      }
      // Phones the agent may type: a national number, the 00 prefix, no digits, an impossible number.
      for (const phone of ['0803 123 4567', '002348031234567', '2348031234567', '+', '+234 000 000', '+234803123456789012', 'phone']) {
        const refused = await collect(s, desk, code!, phone);
        assert.deepEqual([refused.status, refused.body.code], [400, 'phone_invalid'], `${JSON.stringify(phone)}: ${JSON.stringify(refused.body)}`);
      }
      const empty = await collect(s, desk, code!, '');
      assert.deepEqual([empty.status, empty.body.code], [400, 'validation_failed']);
      // A valid number of another country: no cash waiting for it here (and no try counted either).
      const kenyan = await collect(s, desk, code!, '+254712345678');
      assert.deepEqual([kenyan.status, kenyan.body.code], [403, 'wrong_pickup_code']);
      assert.equal((await read(s, key, payment.id)).status, 'processing', 'still waiting');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN', 'live'), 0, 'nothing paid');
      assert.equal(await systemBalance(s, 'rail_clearing:agents', 'NGN', 'live'), clearing, 'nothing left the network\'s clearing');
      const [attempts] = await s.db.query<{ failed_attempts: number }>('SELECT failed_attempts FROM cash_pickups WHERE payment_id = $1', [payment.id]);
      assert.equal(Number(attempts?.failed_attempts), 0, 'no attempt counted');

      // Her number written the international way with the trunk zero, and the code with spaces around: it pays.
      const paid = await collect(s, desk, `  ${code}  `, '+234 (0) 803 123 4567');
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.deepEqual([paid.body.status, paid.body.phone, paid.body.floatBalance], ['paid', PHONE, 101]);
      assert.deepEqual(await events(s, merchant.id), ['payment.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('test mode follows the sandbox: no pickup code', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const paid = await s.request<Payment>('POST', '/api/pay', {
        headers: { ...key, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode: 'GH', rail: 'cash_pickup', amount: 10, currency: 'NGN', receiver: '+233241234567' },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const code = await issue(s, key, paid.body.id);
      assert.deepEqual([code.status, code.body.code], [422, 'not_a_cash_pickup']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
