// Wallet money in test mode over real HTTP, on both databases: a holder tops up her wallet from her
// phone (the sandbox collection) and withdraws to her phone or bank (the sandbox payout), each
// succeeding, failing at the provider, and retried with its Idempotency-Key without a double credit
// or a double payout; the ledger check proves the books after each test. Live mode through the
// providers' fakes: test/rails/wallet-money.test.ts.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/wallet-money/wallet-money.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

const STEP_MS = 1500;

type TopUp = { id: string; status: string; amount: number; fee: number; total: number; currency: string; phone: string; provider: string; failureCode?: string; failureReason?: string; expiresAt: string; createdAt: string; completedAt?: string; code?: string; error?: string };
type Withdrawal = { id: string; status: string; amount: number; fee: number; total: number; currency: string; rail: string; destination: Record<string, string>; provider: string; providerReference: string | null; failureReason?: string; timeline: { status: string }[]; code?: string; error?: string };
type Notification = { kind: string; title: string; body: string; data: Record<string, unknown> };

/** A funded test wallet and its session's Authorization header. */
async function holder(s: TestServer, fund = 0, fields: { currency?: string; country?: string } = {}) {
  const handle = uniqueHandle('wm');
  await s.createWallet({ handle, pin: '2468', currency: fields.currency ?? 'NGN', country: fields.country ?? 'NG', ...(fund ? { fund } : {}) });
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { handle, auth: { authorization: `Bearer wallet.${session.body.token}` } };
}

async function notifications(s: TestServer, auth: Record<string, string>): Promise<Notification[]> {
  const page = await s.request<{ data: Notification[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth });
  assert.equal(page.status, 200);
  return page.body.data.reverse();
}

for (const target of await databaseTargets()) {
  describe(`wallet top-ups in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), COLLECTION_TIMEOUT_SECONDS: '120', WALLET_TOP_UP_FEE_PCT: '1.5' } });
    const topUp = (s: TestServer, auth: Record<string, string>, body: unknown, key: string | null = randomUUID()) =>
      s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, ...(key ? { 'idempotency-key': key } : {}) }, body });

    it('states the fee up front, then credits amount once on completion (fee to fees); a retry with the key asks the phone nothing twice; a read racing the job credits once', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const quote = await s.request<{ amount: number; fee: number; total: number; currency: string; feePercent: string; provider: string }>('GET', '/api/wallet/top-ups/quote?amount=1000&currency=NGN', { headers: auth });
      assert.equal(quote.status, 200, JSON.stringify(quote.body));
      const { limits, ...costs } = quote.body as typeof quote.body & { limits: { tier: number; remainingIn: number; inLimitedBy: string } };
      assert.deepEqual(costs, { amount: 1000, fee: 15, total: 1015, currency: 'NGN', feePercent: '1.5', provider: 'sandbox' });
      // The wallet's verification tier (the default, 1) and what it may still receive (docs/wallet-tiers.md).
      assert.deepEqual([limits.tier, limits.inLimitedBy], [1, 'daily_in']);
      assert.ok(limits.remainingIn > 1000, JSON.stringify(limits));
      const funding = await systemBalance(s, 'funding', 'NGN');
      const fees = await systemBalance(s, 'fees', 'NGN');
      const key = randomUUID();
      const created = await topUp(s, auth, { amount: 1000, currency: 'NGN', phone: '0803 123 4567' }, key);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.amount, created.body.fee, created.body.total, created.body.provider], ['pending', 1000, 15, 1015, 'sandbox']);
      assert.equal(created.body.phone, '+234•••••••567');
      const retry = await topUp(s, auth, { amount: 1000, currency: 'NGN', phone: '0803 123 4567' }, key);
      assert.deepEqual([retry.status, retry.body.id, retry.headers.get('idempotent-replayed')], [201, created.body.id, 'true']);
      const rows = await s.db.query<{ purpose: string; merchant_id: string | null }>('SELECT purpose, merchant_id FROM pos_collections WHERE id = $1', [created.body.id]);
      assert.deepEqual(rows, [{ purpose: 'wallet_top_up', merchant_id: null }], 'one collection, a top-up of no merchant');

      clock.advance(STEP_MS);
      // The job and a read arrive together: one credit.
      const [, read] = await Promise.all([s.context.collections.runOnce(), s.request<TopUp>('GET', `/api/wallet/top-ups/${created.body.id}`, { headers: auth })]);
      assert.equal(read.status, 200);
      const done = (await s.request<TopUp>('GET', `/api/wallet/top-ups/${created.body.id}`, { headers: auth })).body;
      assert.equal(done.status, 'completed');
      assert.ok(done.completedAt);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 100_000);
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding - 101_500, 'the phone paid amount + fee');
      assert.equal(await systemBalance(s, 'fees', 'NGN'), fees + 1500);
      // A provider's duplicate confirmation, the job and another read change nothing more.
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'sandbox', { status: 'completed' }), 'unchanged');
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      assert.equal(await balanceMinor(s, handle, 'NGN'), 100_000, 'credited once');
      const notes = await notifications(s, auth);
      assert.deepEqual(notes.map((note) => note.kind), ['wallet.top_up.completed']);
      assert.equal(notes[0]!.data.topUpId, created.body.id);
      assert.equal(notes[0]!.data.amount, 1000);
      const list = await s.request<{ data: TopUp[]; total: number }>('GET', '/api/wallet/top-ups', { headers: auth });
      assert.deepEqual([list.body.total, list.body.data[0]!.id, list.body.data[0]!.status], [1, created.body.id, 'completed']);
      // The till's collections are the merchant's: a top-up is not one of them.
      const merchant = await s.createMerchant();
      const asTill = await s.request('GET', `/api/pos/collections/${created.body.id}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([asTill.status, asTill.body.code], [404, 'collection_not_found']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('fails at the provider (0002 declined, 0003 insufficient funds) and expires unanswered (0004): nothing credited, the holder told', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const declined = await topUp(s, auth, { amount: 50, currency: 'NGN', phone: '+2348031230002' });
      const short = await topUp(s, auth, { amount: 50, currency: 'NGN', phone: '08031230003' });
      const silent = await topUp(s, auth, { amount: 50, currency: 'NGN', phone: '08031230004' });
      for (const created of [declined, short, silent]) assert.equal(created.status, 201, JSON.stringify(created.body));
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      const read = async (id: string) => (await s.request<TopUp>('GET', `/api/wallet/top-ups/${id}`, { headers: auth })).body;
      assert.deepEqual([(await read(declined.body.id)).status, (await read(declined.body.id)).failureCode], ['failed', 'declined']);
      assert.deepEqual([(await read(short.body.id)).status, (await read(short.body.id)).failureCode], ['failed', 'insufficient_funds']);
      assert.equal((await read(silent.body.id)).status, 'pending');
      clock.advance(120_000);
      await s.context.collections.runOnce();
      const expired = await read(silent.body.id);
      assert.deepEqual([expired.status, expired.failureCode], ['expired', 'no_answer']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 0, 'nothing credited');
      const notes = await notifications(s, auth);
      assert.deepEqual(notes.map((note) => note.kind), ['wallet.top_up.failed', 'wallet.top_up.failed', 'wallet.top_up.failed']);
      assert.deepEqual(notes.map((note) => note.data.status).sort(), ['expired', 'failed', 'failed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('bad input is a 4xx with a clear code, never a 500; another wallet\'s top-up is a 404', async () => {
      const s = server();
      const { auth } = await holder(s);
      const cases: [unknown, number, string][] = [
        [{ amount: 10, currency: 'NGN', phone: 'call me' }, 400, 'invalid_phone'],
        [{ amount: 10, currency: 'KES', phone: '08031234567' }, 400, 'currency_not_accepted'],
        [{ amount: 0, currency: 'NGN', phone: '08031234567' }, 400, 'amount_must_not_be_zero'],
        [{ amount: 1.234, currency: 'NGN', phone: '08031234567' }, 400, 'amount_too_many_decimals'],
        [{ amount: 10, currency: 'NGN' }, 400, 'validation_failed'],
        [{ amount: '10', currency: 'NGN', phone: '08031234567' }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await topUp(s, auth, body);
        assert.deepEqual([answer.status, answer.body.code], [status, code], JSON.stringify([body, answer.body]));
      }
      const noKey = await topUp(s, auth, { amount: 10, currency: 'NGN', phone: '08031234567' }, null);
      assert.deepEqual([noKey.status, noKey.body.code], [400, 'idempotency_key_required']);
      const mine = await topUp(s, auth, { amount: 10, currency: 'NGN', phone: '08031234567' });
      const other = await holder(s);
      const foreign = await s.request<TopUp>('GET', `/api/wallet/top-ups/${mine.body.id}`, { headers: other.auth });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'top_up_not_found']);
      const anonymous = await s.request<TopUp>('GET', `/api/wallet/top-ups/${mine.body.id}`);
      assert.equal(anonymous.status, 401);
      const quote = await s.request<TopUp>('GET', '/api/wallet/top-ups/quote?amount=10&currency=GHS', { headers: auth });
      assert.deepEqual([quote.status, quote.body.code], [400, 'currency_not_accepted']);
      // Live mode without a provider that collects: a clear 422.
      const liveHandle = uniqueHandle('wmlive');
      await s.createWallet({ handle: liveHandle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const live = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: liveHandle, pin: '2468', mode: 'live' } });
      const liveTopUp = await topUp(s, { authorization: `Bearer wallet.${live.body.token}` }, { amount: 10, currency: 'NGN', phone: '08031234567' });
      assert.deepEqual([liveTopUp.status, liveTopUp.body.code], [422, 'top_up_unavailable']);
    });
  });

  describe(`wallet withdrawals in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, {
      now: clock.now,
      rateLimitScale: 20,
      // Wallets on tier 3 (docs/wallet-tiers.md), whose money out is far above the withdrawal limits these tests are about.
      env: { SANDBOX_STEP_MS: String(STEP_MS), WALLET_WITHDRAWAL_FEE_PCT: '1', WALLET_WITHDRAWAL_MAX_USD: '100', WALLET_WITHDRAWAL_DAILY_USD: '150', WALLET_TIER_DEFAULT: '3' },
    });
    const withdraw = (s: TestServer, auth: Record<string, string>, body: Record<string, unknown>, key: string = randomUUID()) =>
      s.request<Withdrawal>('POST', '/api/wallet/withdrawals', { headers: { ...auth, 'idempotency-key': key }, body: { walletPin: '2468', currency: 'NGN', ...body } });
    const step = async (s: TestServer) => {
      clock.advance(STEP_MS);
      await s.context.payments.runOnce();
    };
    const read = async (s: TestServer, auth: Record<string, string>, id: string) => (await s.request<Withdrawal>('GET', `/api/wallet/withdrawals/${id}`, { headers: auth })).body;
    const limitsOf = async (s: TestServer, auth: Record<string, string>) =>
      (await s.request<{ limits: { perWithdrawal: number; daily: number; usedToday: number; remainingToday: number }; balance: number; fee: number }>('GET', '/api/wallet/withdrawals/quote?amount=1000', { headers: auth })).body;

    it('pays out to a phone: fee and limits stated, debited amount + fee at once, paid after two steps; a retry with the key pays nothing twice', async () => {
      const s = server();
      const { handle, auth } = await holder(s, 100_000);
      const quote = await limitsOf(s, auth);
      assert.equal(quote.fee, 10);
      assert.equal(quote.balance, 100_000);
      assert.ok(quote.limits.perWithdrawal > 1000 && quote.limits.daily > quote.limits.perWithdrawal, JSON.stringify(quote.limits));
      assert.deepEqual([quote.limits.usedToday, quote.limits.remainingToday], [0, quote.limits.daily]);
      const key = randomUUID();
      const body = { amount: 1000, destination: { type: 'mobile_wallet', phone: '0803 123 4567', provider: 'MTN' } };
      const created = await withdraw(s, auth, body, key);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.amount, created.body.fee, created.body.total, created.body.rail, created.body.provider], ['pending', 1000, 10, 1010, 'mobile_money', 'sandbox']);
      assert.deepEqual(created.body.destination, { type: 'mobile_wallet', phone: '+234•••••••567', country: 'NG', provider: 'MTN' });
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000 - 101_000);
      const retry = await withdraw(s, auth, body, key);
      assert.deepEqual([retry.status, retry.body.id, retry.headers.get('idempotent-replayed')], [201, created.body.id, 'true']);
      const reused = await withdraw(s, auth, { ...body, amount: 2000 }, key);
      assert.deepEqual([reused.status, reused.body.code], [422, 'idempotency_key_reused']);
      assert.equal((await s.db.query('SELECT id FROM payments WHERE source_wallet_id = (SELECT id FROM wallets WHERE handle = $1)', [handle])).length, 1, 'one withdrawal for the key');
      await step(s);
      assert.equal((await read(s, auth, created.body.id)).status, 'processing');
      await step(s);
      const paid = await read(s, auth, created.body.id);
      assert.equal(paid.status, 'completed');
      assert.deepEqual(paid.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      await step(s);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000 - 101_000, 'debited once');
      const notes = await notifications(s, auth);
      assert.deepEqual(notes.map((note) => note.kind), ['wallet.withdrawal.paid']);
      assert.equal(notes[0]!.data.withdrawalId, created.body.id);
      const list = await s.request<{ data: Withdrawal[]; total: number }>('GET', '/api/wallet/withdrawals', { headers: auth });
      assert.deepEqual([list.body.total, list.body.data[0]!.id], [1, created.body.id]);
      assert.equal((await limitsOf(s, auth)).limits.usedToday, 1000);
      const events = await s.db.query('SELECT id FROM events WHERE body LIKE $1', [`%${created.body.id}%`]);
      assert.equal(events.length, 0, 'no merchant event for a holder\'s withdrawal');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('fails at the provider (0002) and is reversed after paying (0005): the money comes back, the holder told; a bank account and a saved destination work', async () => {
      const s = server();
      const { handle, auth } = await holder(s, 100_000);
      const failed = await withdraw(s, auth, { amount: 500, destination: { type: 'mobile_wallet', phone: '08031230002' } });
      assert.equal(failed.status, 201, JSON.stringify(failed.body));
      assert.equal(failed.body.status, 'failed');
      assert.match(failed.body.failureReason ?? '', /declined/);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000, 'refunded at once');
      const reversed = await withdraw(s, auth, { amount: 700, destination: { type: 'bank_account', accountNumber: '0123450005', bankCode: '058' } });
      assert.equal(reversed.status, 201, JSON.stringify(reversed.body));
      assert.deepEqual([reversed.body.rail, reversed.body.destination.accountNumber, reversed.body.destination.bankCode], ['bank_transfer', '••••••0005', '058']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000 - 70_700);
      await step(s);
      assert.equal((await read(s, auth, reversed.body.id)).status, 'reversed');
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000_000, 'reversed: amount and fee back');
      // A saved destination (Pay Identity).
      const saved = await s.request('PUT', '/api/wallet/destinations', { headers: auth, body: { destinations: [{ type: 'mobile_wallet', provider: 'Airtel', phone: '+2348021234567', country: 'NG', currency: 'NGN' }] } });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      const toSaved = await withdraw(s, auth, { amount: 300, destinationIndex: 0 });
      assert.equal(toSaved.status, 201, JSON.stringify(toSaved.body));
      assert.deepEqual(toSaved.body.destination, { type: 'mobile_wallet', phone: '+234•••••••567', country: 'NG', provider: 'Airtel' });
      await step(s);
      await step(s);
      assert.equal((await read(s, auth, toSaved.body.id)).status, 'completed');
      const notes = await notifications(s, auth);
      // The reversed one was paid first (told), then reversed (told again).
      assert.deepEqual(notes.map((note) => note.kind).sort(), ['wallet.withdrawal.failed', 'wallet.withdrawal.paid', 'wallet.withdrawal.paid', 'wallet.withdrawal.reversed']);
      assert.equal((await limitsOf(s, auth)).limits.usedToday, 300, 'failed and reversed withdrawals do not count');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the PIN confirms: a wrong one is a 403 that does not use the key up, five lock the wallet (429); nothing moves', async () => {
      const s = server();
      const { handle, auth } = await holder(s, 10_000);
      const key = randomUUID();
      const body = { amount: 100, destination: { type: 'mobile_wallet', phone: '08031234567' } };
      const wrong = await withdraw(s, auth, { ...body, walletPin: '0000' }, key);
      assert.deepEqual([wrong.status, wrong.body.code], [403, 'wrong_pin']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 1_000_000);
      const right = await withdraw(s, auth, body, key);
      assert.equal(right.status, 201, JSON.stringify(right.body));
      const replayWrong = await withdraw(s, auth, { ...body, walletPin: '0000' }, key);
      assert.deepEqual([replayWrong.status, replayWrong.body.code], [403, 'wrong_pin'], 'a replay asks for the PIN again');
      for (let attempt = 0; attempt < 4; attempt++) await withdraw(s, auth, { ...body, walletPin: '0000' });
      const locked = await withdraw(s, auth, body);
      assert.deepEqual([locked.status, locked.body.code], [429, 'pin_attempts_exceeded']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 1_000_000 - 10_100, 'only the one withdrawal');
      clock.advance(15 * 60_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('limits, balance and destinations answer clear 4xx codes; two withdrawals at once cannot pass the daily limit together', async () => {
      const s = server();
      const { handle, auth } = await holder(s, 10_000_000);
      const { limits } = await limitsOf(s, auth);
      const phone = { type: 'mobile_wallet', phone: '08031234567' };
      const over = await withdraw(s, auth, { amount: limits.perWithdrawal + 1, destination: phone });
      assert.deepEqual([over.status, over.body.code], [422, 'withdrawal_limit_exceeded']);
      // Two at once, each under the limit, together over the day's: one goes.
      const each = Math.floor((limits.daily * 0.6) / 100) * 100;
      assert.ok(each <= limits.perWithdrawal && 2 * each > limits.daily);
      const both = await Promise.all([withdraw(s, auth, { amount: each, destination: phone }), withdraw(s, auth, { amount: each, destination: phone })]);
      assert.deepEqual(both.map((answer) => answer.status).sort(), [201, 422], JSON.stringify(both.map((answer) => answer.body)));
      assert.equal(both.find((answer) => answer.status === 422)!.body.code, 'withdrawal_daily_limit_exceeded');
      const poor = await holder(s, 10);
      const broke = await withdraw(s, poor.auth, { amount: 10, destination: phone });
      assert.deepEqual([broke.status, broke.body.code], [422, 'insufficient_funds'], 'amount + fee is more than the balance');
      assert.equal(await balanceMinor(s, poor.handle, 'NGN'), 1000, 'never below zero');
      const cases: [Record<string, unknown>, number, string][] = [
        [{ amount: 10 }, 400, 'destination_required'],
        [{ amount: 10, destination: phone, destinationIndex: 0 }, 400, 'destination_required'],
        [{ amount: 10, destinationIndex: 3 }, 400, 'destination_not_found'],
        [{ amount: 10, destination: { type: 'mobile_wallet' } }, 400, 'destination_invalid'],
        [{ amount: 10, destination: { type: 'mobile_wallet', phone: 'nope' } }, 400, 'invalid_phone'],
        [{ amount: 10, destination: { type: 'bank_account', accountNumber: '12ab' } }, 400, 'destination_invalid'],
        [{ amount: 10, destination: { type: 'mobile_wallet', phone: '+254712345678' } }, 400, 'destination_currency_mismatch'],
        [{ amount: 10, currency: 'KES', destination: phone }, 400, 'currency_not_accepted'],
        [{ amount: -5, destination: phone }, 400, 'amount_must_be_positive'],
        [{ amount: 10, destination: { type: 'paypal' } }, 400, 'validation_failed'],
        [{ amount: 10, destination: phone, walletPin: 'x' }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const answer = await withdraw(s, auth, body);
        assert.deepEqual([answer.status, answer.body.code], [status, code], JSON.stringify([body, answer.body]));
      }
      const noKey = await s.request<Withdrawal>('POST', '/api/wallet/withdrawals', { headers: auth, body: { amount: 10, currency: 'NGN', walletPin: '2468', destination: phone } });
      assert.deepEqual([noKey.status, noKey.body.code], [400, 'idempotency_key_required']);
      const mine = (await s.request<{ data: Withdrawal[] }>('GET', '/api/wallet/withdrawals', { headers: auth })).body.data[0]!;
      const other = await holder(s);
      const foreign = await s.request<Withdrawal>('GET', `/api/wallet/withdrawals/${mine.id}`, { headers: other.auth });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'withdrawal_not_found']);
      // The day rolls on: 24 hours later the limit has room again.
      clock.advance(24 * 3600_000 + 1000);
      const again = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
      const later = await withdraw(s, { authorization: `Bearer wallet.${again.body.token}` }, { amount: each, destination: phone });
      assert.equal(later.status, 201, JSON.stringify(later.body));
      assert.ok((await balanceMinor(s, handle, 'NGN')) > 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
