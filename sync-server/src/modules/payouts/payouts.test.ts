// Merchant payouts in test mode over real HTTP, on both databases: settlement accounts (the sandbox
// resolves bank account names), payouts on demand that succeed, fail at the (sandbox) provider and
// are retried with their Idempotency-Key without a second payout, the hold of recent offline sales,
// the schedule paying once a day however often it runs, CSV, and bad input answering 4xx. The
// ledger check proves the books after each test. Live mode through the rails' fakes, and a crash
// between asking the provider and recording its answer: test/rails/payouts.test.ts.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/payouts/payouts.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

const STEP_MS = 1500;
const HOUR_MS = 3600_000;

type Account = { id: string; type: string; country: string; currency: string; bankCode: string | null; accountNumber: string | null; phone: string | null; operator: string | null; accountName: string; nameSource: string; default: boolean; code?: string; error?: string };
type Statement = { openingBalance: number; sales: number; refunds: number; fees: number; payouts: number; other: number; onHold: number; retained: number; amount: number; lines: { category: string; kind: string; count: number; amount: number }[] };
type Payout = { id: string; status: string; amount: number; currency: string; trigger: string; provider: string; failureReason?: string; settlementAccount: Account; statement?: Statement; timeline: { status: string }[]; code?: string; error?: string };
type Balance = { currency: string; balance: number; onHold: number; available: number; holdHours: number };

/** The statement's totals add up to the payout, and each category's lines to its total. */
function assertAddsUp(statement: Statement): void {
  const cents = (value: number) => Math.round(value * 100);
  const sum = ['openingBalance', 'sales', 'refunds', 'fees', 'payouts', 'other', 'onHold', 'retained'].reduce((total, field) => total + cents(statement[field as keyof Statement] as number), 0);
  assert.equal(sum, cents(statement.amount), `the statement adds up: ${JSON.stringify(statement)}`);
  for (const category of ['sales', 'refunds', 'fees', 'payouts', 'other'] as const) {
    const lines = statement.lines.filter((line) => line.category === category).reduce((total, line) => total + cents(line.amount), 0);
    assert.equal(lines, cents(statement[category]), `${category} lines add up`);
  }
}

for (const target of await databaseTargets()) {
  describe(`merchant payouts in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), SANDBOX_FLOAT: '0', PAYOUT_HOLD_HOURS: '72', PAYOUT_JOB_INTERVAL_MS: '0' } });

    /** A merchant with an empty test wallet, its key, and a customer who pays it `sale` NGN from the pay page. */
    async function shop(s: TestServer, sale = 0) {
      const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      if (sale > 0) await paySale(s, merchant.handle, sale);
      return { merchant, key };
    }
    async function paySale(s: TestServer, merchantHandle: string, amount: number) {
      const customer = uniqueHandle('payer');
      await s.createWallet({ handle: customer, pin: '1234', fund: amount });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: customer, pin: '1234' } });
      const paid = await s.request('POST', '/api/wallet/pay', { headers: { authorization: `Bearer wallet.${session.body.token}`, 'idempotency-key': randomUUID() }, body: { to: merchantHandle, amount } });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
    }
    const addAccount = (s: TestServer, key: Record<string, string>, body: Record<string, unknown>) => s.request<Account>('POST', '/api/merchant/settlement-accounts', { headers: key, body });
    const bank = (accountNumber = '0123456789') => ({ type: 'bank', country: 'NG', bankCode: '058', accountNumber });
    const payOut = (s: TestServer, key: Record<string, string>, body: Record<string, unknown> = {}, idempotencyKey: string | null = randomUUID()) =>
      s.request<Payout>('POST', '/api/merchant/payouts', { headers: { ...key, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, body });
    // Events of one transaction share their time: payout.created comes first among them.
    const events = async (s: TestServer, merchantId: string) =>
      (await s.db.query<{ type: string; body: string; created_at: Date }>('SELECT type, body, created_at FROM events WHERE merchant_id = $1', [merchantId]))
        .filter((event) => event.type.startsWith('payout.'))
        .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || Number(b.type === 'payout.created') - Number(a.type === 'payout.created'))
        .map((event) => ({ type: event.type, body: JSON.parse(event.body) as Record<string, unknown> }));
    const steps = async (s: TestServer, count = 2) => {
      for (let step = 0; step < count; step++) {
        clock.advance(STEP_MS);
        await s.context.payments.runOnce();
      }
    };

    it('registers settlement accounts: a bank account resolved by the sandbox, a mobile money number, one default per currency, numbers masked, removal', async () => {
      const s = server();
      const { key } = await shop(s);
      const first = await addAccount(s, key, bank('0123456789'));
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([first.body.accountNumber, first.body.accountName, first.body.nameSource, first.body.default, first.body.currency], ['••••••6789', 'Sandbox Account 6789', 'sandbox', true, 'NGN']);
      const phone = await addAccount(s, key, { type: 'mobile_money', country: 'NG', phone: '0803 123 4567', operator: 'MTN', accountName: 'Mama Put', default: true });
      assert.equal(phone.status, 201, JSON.stringify(phone.body));
      assert.deepEqual([phone.body.phone, phone.body.operator, phone.body.nameSource, phone.body.default], ['+234•••••••567', 'MTN', 'merchant', true]);
      const list = await s.request<{ data: Account[] }>('GET', '/api/merchant/settlement-accounts', { headers: key });
      assert.deepEqual(list.body.data.map((account) => [account.id, account.default]), [[phone.body.id, true], [first.body.id, false]]);
      assert.ok(!JSON.stringify(list.body).includes('0123456789'), 'never the whole number');
      const patched = await s.request<Account>('PATCH', `/api/merchant/settlement-accounts/${first.body.id}`, { headers: key, body: { default: true } });
      assert.deepEqual([patched.status, patched.body.default], [200, true]);
      const removed = await s.request('DELETE', `/api/merchant/settlement-accounts/${first.body.id}`, { headers: key });
      assert.equal(removed.status, 204);
      const after = await s.request<{ data: Account[] }>('GET', '/api/merchant/settlement-accounts', { headers: key });
      assert.deepEqual(after.body.data.map((account) => [account.id, account.default]), [[phone.body.id, true]], 'the other account is the default again');
      // Refusals: a number the sandbox cannot resolve, bad numbers, a missing operator, unknown ids, another merchant's account.
      const cases: [Record<string, unknown>, number, string][] = [
        [bank('0123450009'), 422, 'account_not_resolved'],
        [bank('12345'), 400, 'account_number_invalid'],
        [bank('012345678901'), 400, 'account_number_invalid'],
        [{ type: 'bank', country: 'NG', accountNumber: '0123456789' }, 400, 'validation_failed'],
        [{ type: 'mobile_money', country: 'NG', phone: '0803 123 4567' }, 400, 'validation_failed'],
        [{ type: 'mobile_money', country: 'NG', phone: 'call me', operator: 'MTN' }, 400, 'invalid_phone'],
        [{ type: 'bank', country: 'XX', bankCode: '058', accountNumber: '0123456789' }, 400, 'country_not_supported'],
        [{ type: 'cash', country: 'NG' }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await addAccount(s, key, body);
        assert.deepEqual([answer.status, answer.body.code], [status, code], JSON.stringify(body));
        assert.equal(typeof answer.body.error, 'string');
      }
      const other = await shop(s);
      for (const [method, body] of [['DELETE', undefined], ['PATCH', { default: true }]] as const) {
        const foreign = await s.request<Account>(method, `/api/merchant/settlement-accounts/${phone.body.id}`, { headers: other.key, ...(body ? { body } : {}) });
        assert.deepEqual([foreign.status, foreign.body.code], [404, 'settlement_account_not_found']);
      }
      const unknown = await s.request<Account>('DELETE', '/api/merchant/settlement-accounts/sac_nope', { headers: key });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'settlement_account_not_found']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('pays out everything available on demand: one debit, a statement that adds up, paid after the sandbox steps, payout.created then payout.paid; a retry with the key pays nothing twice', async () => {
      const s = server();
      const { merchant, key } = await shop(s, 250);
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: { authorization: 'Bearer admin.test-admin-token-0123456789abcdef' }, body: { amount: 50, currency: 'NGN' } });
      assert.equal(credited.status, 200);
      const account = await addAccount(s, key, bank());
      const balance = await s.request<Balance>('GET', '/api/merchant/payouts/balance', { headers: key });
      assert.deepEqual(balance.body, { currency: 'NGN', balance: 300, onHold: 0, available: 300, holdHours: 72 });
      const idem = randomUUID();
      const created = await payOut(s, key, {}, idem);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.amount, created.body.currency, created.body.trigger, created.body.provider, created.body.settlementAccount.id], ['pending', 300, 'NGN', 'manual', 'sandbox', account.body.id]);
      const statement = created.body.statement!;
      assert.deepEqual([statement.openingBalance, statement.sales, statement.other, statement.onHold, statement.retained], [0, 250, 50, 0, 0]);
      assert.deepEqual(statement.lines.map((line) => [line.category, line.kind, line.count, line.amount]), [['other', 'wallet_credit', 1, 50], ['sales', 'wallet_payment', 1, 250]]);
      assertAddsUp(statement);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 0, 'the wallet is debited at once');
      const replay = await payOut(s, key, {}, idem);
      assert.deepEqual([replay.status, replay.body.id, replay.headers.get('idempotent-replayed')], [201, created.body.id, 'true']);
      // Nothing left: a second payout is refused, the wallet never below zero.
      const again = await payOut(s, key);
      assert.deepEqual([again.status, again.body.code], [422, 'nothing_to_pay_out']);
      await steps(s);
      const paid = await s.request<Payout>('GET', `/api/merchant/payouts/${created.body.id}`, { headers: key });
      assert.deepEqual([paid.status, paid.body.status], [200, 'paid']);
      assert.deepEqual(paid.body.statement, statement, 'the statement never changes');
      assert.deepEqual(paid.body.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      const list = await s.request<{ data: Payout[]; total: number }>('GET', '/api/merchant/payouts', { headers: key });
      assert.deepEqual([list.body.total, list.body.data[0]!.id, list.body.data[0]!.status, list.body.data[0]!.statement], [1, created.body.id, 'paid', undefined]);
      const sent = await events(s, merchant.id);
      assert.deepEqual(sent.map((event) => event.type), ['payout.created', 'payout.paid']);
      assert.deepEqual([sent[1]!.body.payoutId, sent[1]!.body.amount, sent[1]!.body.status], [created.body.id, 300, 'paid']);
      assert.ok(!JSON.stringify(sent).includes('0123456789'), 'events carry the masked number only');
      // A settlement payout is not one of the merchant's POST /api/pay payments.
      const payments = await s.request<{ total: number }>('GET', '/api/payments', { headers: key });
      assert.equal(payments.body.total, 0);
      // The next payout's statement starts where this one ended.
      await paySale(s, merchant.handle, 40);
      const next = await payOut(s, key, { amount: 15 });
      assert.equal(next.status, 201, JSON.stringify(next.body));
      assert.deepEqual([next.body.statement!.openingBalance, next.body.statement!.sales, next.body.statement!.retained, next.body.amount], [0, 40, -25, 15]);
      assertAddsUp(next.body.statement!);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('fails at the sandbox provider (account ending 0002): the money is back in the wallet once, payout.failed; a reversal after payment (0005) returns it too', async () => {
      const s = server();
      const { merchant, key } = await shop(s, 120);
      await addAccount(s, key, bank('0123450002'));
      const failed = await payOut(s, key);
      assert.equal(failed.status, 201, JSON.stringify(failed.body));
      assert.equal(failed.body.status, 'failed');
      assert.match(failed.body.failureReason ?? '', /declined/);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 12_000, 'refunded once');
      await steps(s, 3);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 12_000, 'still once');
      assert.deepEqual((await events(s, merchant.id)).map((event) => event.type), ['payout.created', 'payout.failed']);
      // Refunded in the transaction that made it, the money is in the next statement's opening balance.
      const reversing = await addAccount(s, key, { ...bank('0123450005'), default: true });
      const paid = await payOut(s, key);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.settlementAccount.id, reversing.body.id);
      assert.deepEqual([paid.body.statement!.openingBalance, paid.body.statement!.sales, paid.body.amount], [120, 0, 120]);
      assertAddsUp(paid.body.statement!);
      await steps(s, 3);
      const reversed = await s.request<Payout>('GET', `/api/merchant/payouts/${paid.body.id}`, { headers: key });
      assert.equal(reversed.body.status, 'reversed');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 12_000, 'the reversal returned it once');
      assert.deepEqual((await events(s, merchant.id)).map((event) => event.type), ['payout.created', 'payout.failed', 'payout.created', 'payout.paid', 'payout.failed'], 'paid, then reversed: payout.failed');
      // A reversal comes back in a later transaction: the next statement shows it under payouts.
      const after = await payOut(s, key);
      assert.deepEqual([after.status, after.body.statement!.openingBalance, after.body.statement!.payouts, after.body.amount], [201, 0, 120, 120]);
      assert.deepEqual(after.body.statement!.lines.map((line) => [line.category, line.kind]), [['payouts', 'payment_reversal']]);
      const filtered = await s.request<{ data: Payout[]; total: number }>('GET', '/api/merchant/payouts?status=reversed', { headers: key });
      assert.deepEqual([filtered.body.total, filtered.body.data[0]!.id], [1, paid.body.id]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('shows fees and money sent in the statement; two payouts at once: one pays everything, the other is refused, the wallet never below zero', async () => {
      const s = server();
      const { merchant, key } = await shop(s, 300);
      await addAccount(s, key, bank());
      // The merchant sends 100 with POST /api/pay (mobile money: a 1.5% fee on top).
      const sent = await s.request<{ status: string; fee: number }>('POST', '/api/pay', {
        headers: { ...key, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode: 'NG', rail: 'mobile_money', amount: 100, currency: 'NGN', receiver: '+2348031234567', reference: 'test_success' },
      });
      assert.deepEqual([sent.status, sent.body.status, sent.body.fee], [201, 'completed', 1.5]);
      const [one, two] = await Promise.all([payOut(s, key), payOut(s, key)]);
      const made = [one, two].filter((answer) => answer.status === 201);
      const refused = [one, two].filter((answer) => answer.status !== 201);
      assert.equal(made.length, 1, JSON.stringify([one.body, two.body]));
      assert.deepEqual([refused[0]!.status, refused[0]!.body.code], [422, 'nothing_to_pay_out']);
      const statement = made[0]!.body.statement!;
      assert.deepEqual([statement.sales, statement.other, statement.fees, statement.amount], [300, -100, -1.5, 198.5]);
      assert.deepEqual(statement.lines.map((line) => [line.category, line.kind, line.amount]), [['fees', 'fee', -1.5], ['other', 'payment_debit', -100], ['sales', 'wallet_payment', 300]]);
      assertAddsUp(statement);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('holds offline sales captured within PAYOUT_HOLD_HOURS and pays them once the period is over', async () => {
      const s = server();
      clock.set(Date.now());
      const { merchant, key } = await shop(s, 100);
      await addAccount(s, key, bank());
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      const customer = uniqueHandle('tapper');
      await s.createWallet({ handle: customer, fund: 1000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const doc: OfflinePaymentDoc = { id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tag.body.tagId, amountMinor: 3000, currency: 'NGN', description: 'Suya', capturedAt: clock.now().toISOString(), status: 'queued', serverSeq: 0 };
      const settled = conflictsOf(await push(socket, [doc]));
      assert.equal(settled[0]!.status, 'accepted', JSON.stringify(settled));
      socket.disconnect();
      const balance = await s.request<Balance>('GET', '/api/merchant/payouts/balance', { headers: key });
      assert.deepEqual([balance.body.balance, balance.body.onHold, balance.body.available], [130, 30, 100]);
      const tooMuch = await payOut(s, key, { amount: 100.01 });
      assert.deepEqual([tooMuch.status, tooMuch.body.code], [422, 'amount_exceeds_available']);
      const first = await payOut(s, key);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([first.body.amount, first.body.statement!.sales, first.body.statement!.onHold], [100, 130, -30]);
      assert.deepEqual(first.body.statement!.lines.filter((line) => line.category === 'sales').map((line) => line.kind), ['offline_tap', 'wallet_payment']);
      assertAddsUp(first.body.statement!);
      const held = await payOut(s, key);
      assert.deepEqual([held.status, held.body.code], [422, 'nothing_to_pay_out']);
      assert.match(held.body.error ?? '', /on hold/);
      clock.advance(73 * HOUR_MS);
      const released = await payOut(s, key);
      assert.equal(released.status, 201, JSON.stringify(released.body));
      assert.deepEqual([released.body.amount, released.body.statement!.openingBalance, released.body.statement!.sales, released.body.statement!.onHold], [30, 30, 0, 0]);
      assertAddsUp(released.body.statement!);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the schedule pays each merchant once a day however often it runs, from the schedule hour, above the minimum; weekly on Mondays; manual never', async () => {
      const s = server();
      clock.set(new Date(`${clock.now().toISOString().slice(0, 10)}T05:00:00.000Z`));
      const daily = await shop(s, 80);
      await addAccount(s, daily.key, bank());
      const manual = await shop(s, 80);
      await addAccount(s, manual.key, bank());
      const settings = await s.request<{ schedule: string; minimumAmount: number; currency: string }>('PATCH', '/api/merchant/payout-settings', { headers: manual.key, body: { schedule: 'manual' } });
      assert.deepEqual([settings.status, settings.body.schedule, settings.body.currency], [200, 'manual', 'NGN']);
      const minimum = await shop(s, 80);
      await addAccount(s, minimum.key, bank());
      await s.request('PATCH', '/api/merchant/payout-settings', { headers: minimum.key, body: { minimumAmount: 100 } });
      const noAccount = await shop(s, 80);
      const mine = (run: { paid: string[] }, ids: string[]) => run.paid.filter((id) => ids.includes(id));
      const payoutsOf = async (key: Record<string, string>) => (await s.request<{ data: Payout[] }>('GET', '/api/merchant/payouts', { headers: key })).body.data;

      assert.deepEqual((await s.context.payoutJobs.runOnce()).paid, [], 'not before PAYOUT_SCHEDULE_HOUR_UTC');
      clock.advance(2 * HOUR_MS);
      const [one, two] = await Promise.all([s.context.payoutJobs.runOnce(), s.context.payoutJobs.runOnce()]);
      const three = await s.context.payoutJobs.runOnce();
      const made = await payoutsOf(daily.key);
      assert.equal(made.length, 1, 'one payout for the day');
      assert.deepEqual([made[0]!.trigger, made[0]!.amount], ['scheduled', 80]);
      assert.deepEqual([...mine(one, [made[0]!.id]), ...mine(two, [made[0]!.id]), ...mine(three, [made[0]!.id])], [made[0]!.id], 'made by exactly one run');
      assert.deepEqual(await payoutsOf(manual.key), [], 'manual: never automatic');
      assert.deepEqual(await payoutsOf(minimum.key), [], 'below the minimum: waits');
      assert.deepEqual(await payoutsOf(noAccount.key), [], 'no settlement account: nothing');
      // More money the same day: still one payout for the day.
      await paySale(s, daily.merchant.handle, 20);
      await s.context.payoutJobs.runOnce();
      assert.equal((await payoutsOf(daily.key)).length, 1);
      // The next day pays what came in since; the minimum is reached once more comes in.
      await paySale(s, minimum.merchant.handle, 30);
      clock.advance(24 * HOUR_MS);
      await s.context.payoutJobs.runOnce();
      const nextDay = await payoutsOf(daily.key);
      assert.deepEqual(nextDay.map((payout) => payout.amount), [20, 80]);
      assert.deepEqual((await payoutsOf(minimum.key)).map((payout) => payout.amount), [110]);
      // Weekly: only on a Monday.
      const weekly = await shop(s, 10);
      await addAccount(s, weekly.key, bank());
      await s.request('PATCH', '/api/merchant/payout-settings', { headers: weekly.key, body: { schedule: 'weekly' } });
      while (clock.now().getUTCDay() !== 0) clock.advance(24 * HOUR_MS);
      await s.context.payoutJobs.runOnce();
      assert.deepEqual(await payoutsOf(weekly.key), [], 'not on a Sunday');
      clock.advance(24 * HOUR_MS);
      await s.context.payoutJobs.runOnce();
      assert.deepEqual((await payoutsOf(weekly.key)).map((payout) => payout.amount), [10], 'on the Monday');
      clock.set(Date.now());
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('answers the payouts as CSV, masked, by status', async () => {
      const s = server();
      const { key } = await shop(s, 75.5);
      await addAccount(s, key, bank());
      const made = await payOut(s, key);
      assert.equal(made.status, 201);
      for (const path of ['/api/merchant/payouts.csv', '/api/merchant/payouts?format=csv']) {
        const csv = await s.request<string>('GET', path, { headers: key });
        assert.equal(csv.status, 200);
        assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
        const [header, row, ...rest] = csv.body.trim().split('\r\n');
        assert.match(header!, /^"id","createdAt","status","trigger","amount","currency","accountType","accountName","account"/);
        assert.ok(row!.startsWith(`"${made.body.id}"`));
        assert.ok(row!.includes('"pending","manual","75.5","NGN","bank","Sandbox Account 6789","••••••6789"'), row);
        assert.deepEqual(rest, []);
      }
      const none = await s.request<string>('GET', '/api/merchant/payouts.csv?status=paid', { headers: key });
      assert.equal(none.body.trim().split('\r\n').length, 1, 'the header only');
    });

    it('bad input is a 4xx with a clear code, never a 500; another merchant\'s payout, the other mode\'s, an unknown account are 404', async () => {
      const s = server();
      const { merchant, key } = await shop(s, 50);
      const none = await payOut(s, key);
      assert.deepEqual([none.status, none.body.code], [422, 'no_settlement_account']);
      await addAccount(s, key, bank());
      const cases: [unknown, number, string][] = [
        [{ amount: -5 }, 400, 'amount_must_be_positive'],
        [{ amount: 0 }, 400, 'amount_must_not_be_zero'],
        [{ amount: 1.234 }, 400, 'amount_too_many_decimals'],
        [{ amount: 1e13 }, 400, 'amount_too_large'],
        [{ amount: '10' }, 400, 'validation_failed'],
        [{ amount: 1e300 }, 400, 'validation_failed'],
        [{ amount: 60 }, 422, 'amount_exceeds_available'],
        [{ currency: 'KES' }, 422, 'no_settlement_account'],
        [{ currency: 'ZZZ' }, 400, 'currency_not_supported'],
        [{ settlementAccountId: 'sac_unknown' }, 404, 'settlement_account_not_found'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await payOut(s, key, body as Record<string, unknown>);
        assert.deepEqual([answer.status, answer.body.code], [status, code], JSON.stringify(body));
      }
      const noKey = await payOut(s, key, {}, null);
      assert.deepEqual([noKey.status, noKey.body.code], [400, 'idempotency_key_required']);
      await s.request('PATCH', '/api/merchant/payout-settings', { headers: key, body: { minimumAmount: 20 } });
      const small = await payOut(s, key, { amount: 10 });
      assert.deepEqual([small.status, small.body.code], [422, 'payout_below_minimum']);
      for (const [body, code] of [[{ minimumAmount: -1 }, 'validation_failed'], [{ schedule: 'hourly' }, 'validation_failed'], [{ minimumAmount: 0.001 }, 'amount_too_many_decimals'], [{ currency: 'ZZZ' }, 'currency_not_supported']] as const) {
        const answer = await s.request<{ code: string }>('PATCH', '/api/merchant/payout-settings', { headers: key, body });
        assert.deepEqual([answer.status, answer.body.code], [400, code], JSON.stringify(body));
      }
      const made = await payOut(s, key, { amount: 25 });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const other = await shop(s);
      for (const headers of [other.key, { 'x-merchant-api-key': merchant.liveKey }]) {
        const foreign = await s.request<Payout>('GET', `/api/merchant/payouts/${made.body.id}`, { headers });
        assert.deepEqual([foreign.status, foreign.body.code], [404, 'payout_not_found']);
      }
      const unknown = await s.request<Payout>('GET', '/api/merchant/payouts/po_unknown', { headers: key });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'payout_not_found']);
      const badQuery = await s.request<Payout>('GET', '/api/merchant/payouts?status=lost', { headers: key });
      assert.deepEqual([badQuery.status, badQuery.body.code], [400, 'validation_failed']);
      const unauthenticated = await s.request<Payout>('GET', '/api/merchant/payouts');
      assert.equal(unauthenticated.status, 401);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
