// Verification tiers (docs/wallet-tiers.md) over real HTTP on both databases: each limit refusing with
// its code and a sentence saying what is left, two top-ups at once at the edge, a top-up confirmed
// after its hold lapsed credited and flagged, an administrator raising a tier, refunds never blocked,
// and bad input answered 4xx; the ledger check after each test.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/wallets/tiers.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config.ts';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { agent } from '../../testing/gift-cards.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { ADMIN, type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

const STEP_MS = 1000;
type Tier = {
  tier: number;
  name: string;
  currency: string;
  limits: { maxBalance: number | null; dailyIn: number | null; dailyOut: number | null };
  balance: number;
  usedToday: { in: number; out: number; pendingIn: number };
  remaining: { in: number | null; out: number | null; inLimitedBy: string | null };
  changedAt: string | null;
};
type Answer = { code?: string; error?: string; details?: { tier: number; limit: number; remaining: number; currency: string }[]; id?: string; status?: string };

const ENV = {
  SANDBOX_STEP_MS: String(STEP_MS),
  COLLECTION_TIMEOUT_SECONDS: '60',
  WALLET_TIER1_MAX_BALANCE_USD: '100',
  WALLET_TIER1_DAILY_IN_USD: '40',
  WALLET_TIER1_DAILY_OUT_USD: '30',
  WALLET_TIER2_MAX_BALANCE_USD: '1000',
  WALLET_TIER2_DAILY_IN_USD: '500',
  WALLET_TIER2_DAILY_OUT_USD: '500',
};

async function person(s: TestServer, fund = 0) {
  const handle = uniqueHandle('tier');
  await s.createWallet({ handle, pin: '2468', ...(fund ? { fund } : {}) });
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { handle, auth: { authorization: `Bearer wallet.${session.body.token}` } };
}

async function tierOf(s: TestServer, auth: Record<string, string>): Promise<Tier> {
  const answer = await s.request<Tier>('GET', '/api/wallet/tier', { headers: auth });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const setTier = (s: TestServer, handle: string, body: Record<string, unknown>) => s.request<Tier & Answer & { previousTier: number; handle: string }>('PUT', `/api/admin/wallets/${handle}/tier`, { headers: ADMIN, body });

for (const target of await databaseTargets()) {
  describe(`verification tiers on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: ENV });
    const topUp = (s: TestServer, auth: Record<string, string>, amount: number, phone = '08031234567') =>
      s.request<Answer>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { amount, currency: 'NGN', phone } });
    const withdraw = (s: TestServer, auth: Record<string, string>, amount: number, phone = '08031234567') =>
      s.request<Answer>('POST', '/api/wallet/withdrawals', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { amount, currency: 'NGN', walletPin: '2468', destination: { type: 'mobile_wallet', phone } } });
    const pay = (s: TestServer, auth: Record<string, string>, to: string, amount: number) =>
      s.request<Answer>('POST', '/api/wallet/pay', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { to, amount } });

    it('a new wallet has the default tier; money in is refused past the day\'s limit and past the maximum balance, with what is left; an administrator raising the tier lets it through', async () => {
      const s = server();
      const { handle, auth } = await person(s);
      const start = await tierOf(s, auth);
      assert.deepEqual([start.tier, start.currency, start.changedAt, start.balance, start.usedToday], [1, 'NGN', null, 0, { in: 0, out: 0, pendingIn: 0 }]);
      const { maxBalance, dailyIn, dailyOut } = start.limits;
      assert.ok(maxBalance! > dailyIn! && dailyIn! > dailyOut! && dailyOut! > 0, JSON.stringify(start.limits));
      assert.deepEqual(start.remaining, { in: dailyIn, out: dailyOut, inLimitedBy: 'daily_in' });
      // Agent cash-in up to the day's money in, then one naira more is refused.
      const desk = await agent(s, { fund: maxBalance! * 3 });
      const cashIn = (amount: number) => s.request<Answer>('POST', '/api/agent/cash-in', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle, amount } });
      assert.equal((await cashIn(dailyIn! - 1)).status, 201);
      const over = await cashIn(2);
      assert.deepEqual([over.status, over.body.code], [422, 'tier_daily_in_limit_exceeded'], JSON.stringify(over.body));
      assert.match(over.body.error!, /tier 1 wallet may receive at most NGN [\d,]+ in 24 hours; NGN 1 is left/);
      assert.deepEqual(over.body.details, [{ tier: 1, currency: 'NGN', limit: dailyIn, remaining: 1 }]);
      assert.equal(await balanceMinor(s, handle, 'NGN'), (dailyIn! - 1) * 100, 'nothing of the refused cash-in moved');
      // An operator's credit is never refused: it takes the wallet to its maximum balance.
      const credit = await s.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: maxBalance! - dailyIn! + 1, currency: 'NGN' } });
      assert.equal(credit.status, 200, JSON.stringify(credit.body));
      // A day later the day's money in is back, but the wallet is full.
      clock.advance(24 * 3600_000 + 1000);
      const again = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468' } });
      const auth2 = { authorization: `Bearer wallet.${again.body.token}` };
      const desk2 = await agent(s, { fund: maxBalance! });
      const full = await s.request<Answer>('POST', '/api/agent/cash-in', { headers: { ...desk2.headers, 'idempotency-key': randomUUID() }, body: { handle, amount: 1 } });
      assert.deepEqual([full.status, full.body.code], [422, 'tier_balance_limit_exceeded'], JSON.stringify(full.body));
      assert.match(full.body.error!, /may hold at most NGN [\d,]+; it holds NGN [\d,]+, so at most NGN 0 more can come in/);
      const quote = await s.request<{ limits: { tier: number; remainingIn: number; inLimitedBy: string } }>('GET', '/api/wallet/top-ups/quote?amount=10', { headers: auth2 });
      assert.deepEqual(quote.body.limits, { tier: 1, remainingIn: 0, inLimitedBy: 'max_balance' });
      const refusedTopUp = await topUp(s, auth2, 10);
      assert.deepEqual([refusedTopUp.status, refusedTopUp.body.code], [422, 'tier_balance_limit_exceeded']);
      // The administrator raises the tier: the same cash-in goes through, and the holder is told.
      const raised = await setTier(s, handle, { tier: 2, reason: 'BVN verified' });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));
      assert.deepEqual([raised.body.handle, raised.body.previousTier, raised.body.tier, raised.body.changedAt], [`@${handle}`, 1, 2, clock.now().toISOString()]);
      assert.ok(raised.body.limits.maxBalance! > maxBalance!);
      const through = await s.request<Answer>('POST', '/api/agent/cash-in', { headers: { ...desk2.headers, 'idempotency-key': randomUUID() }, body: { handle, amount: 1 } });
      assert.equal(through.status, 201, JSON.stringify(through.body));
      const mine = await tierOf(s, auth2);
      assert.deepEqual([mine.tier, mine.usedToday.in, mine.balance], [2, 1, maxBalance! + 1]);
      const notes = await s.request<{ data: { kind: string; body: string; data: Record<string, unknown> }[] }>('GET', '/api/wallet/notifications', { headers: auth2 });
      const note = notes.body.data.find((entry) => entry.kind === 'wallet.tier.changed');
      assert.deepEqual(note?.data, { from: 1, to: 2, reason: 'BVN verified' });
      assert.match(note!.body, /Tier 2/);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('money out (withdrawals, agent cash-out, payments to people) shares the day\'s limit; paying a merchant does not count; a failed withdrawal gives its room and its money back', async () => {
      const s = server();
      const { handle, auth } = await person(s);
      const { limits } = await tierOf(s, auth);
      const dailyOut = limits.dailyOut!;
      // Funded by an operator (never refused), above the tier's maximum balance.
      await s.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: limits.maxBalance! * 2, currency: 'NGN' } });
      const third = Math.floor(dailyOut / 4);
      const friend = await person(s);
      assert.equal((await withdraw(s, auth, third)).status, 201);
      const desk = await agent(s);
      const cashOut = await s.request<Answer>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle, amount: third, walletPin: '2468' } });
      assert.equal(cashOut.status, 201, JSON.stringify(cashOut.body));
      assert.equal((await pay(s, auth, friend.handle, third)).status, 201);
      const left = dailyOut - 3 * third;
      const quote = await s.request<{ limits: { remainingToday: number; tier: number; tierDailyOut: number; tierRemainingOut: number } }>('GET', '/api/wallet/withdrawals/quote?amount=1', { headers: auth });
      assert.deepEqual([quote.body.limits.tier, quote.body.limits.tierDailyOut, quote.body.limits.tierRemainingOut, quote.body.limits.remainingToday], [1, dailyOut, left, left]);
      for (const refused of [
        await withdraw(s, auth, left + 1),
        await s.request<Answer>('POST', '/api/agent/cash-out', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle, amount: left + 1, walletPin: '2468' } }),
        await pay(s, auth, friend.handle, left + 1),
      ]) {
        assert.deepEqual([refused.status, refused.body.code], [422, 'tier_daily_out_limit_exceeded'], JSON.stringify(refused.body));
        assert.match(refused.body.error!, new RegExp(`send or withdraw at most NGN [\\d,]+ in 24 hours; NGN ${left.toLocaleString('en-US')} is left`));
      }
      // A merchant is paid beyond the day's money out: spending is not limited by the tier.
      const shop = (await s.createMerchant()).handle;
      const spent = await pay(s, auth, shop, dailyOut);
      assert.equal(spent.status, 201, JSON.stringify(spent.body));
      // A withdrawal that fails at the provider returns its money (never blocked, though the wallet is above its maximum) and its room.
      const before = await balanceMinor(s, handle, 'NGN');
      const failed = await withdraw(s, auth, left, '08031230002');
      assert.deepEqual([failed.status, failed.body.status], [201, 'failed'], JSON.stringify(failed.body));
      assert.equal(await balanceMinor(s, handle, 'NGN'), before, 'the money is back');
      assert.equal((await tierOf(s, auth)).remaining.out, left, 'the room is back');
      assert.equal((await withdraw(s, auth, left)).status, 201);
      assert.equal((await tierOf(s, auth)).remaining.out, 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a payment from another person counts against the recipient\'s tier, told to the payer without her balance', async () => {
      const s = server();
      const payer = await person(s);
      const { limits } = await tierOf(s, payer.auth);
      await setTier(s, payer.handle, { tier: 2 });
      await s.request('POST', `/api/admin/wallets/${payer.handle}/credit`, { headers: ADMIN, body: { amount: limits.maxBalance!, currency: 'NGN' } });
      const payee = await person(s);
      assert.equal((await pay(s, payer.auth, payee.handle, limits.dailyIn!)).status, 201);
      const refused = await pay(s, payer.auth, payee.handle, 1);
      assert.deepEqual([refused.status, refused.body.code], [422, 'recipient_tier_limit_exceeded'], JSON.stringify(refused.body));
      assert.doesNotMatch(refused.body.error!, /\d/, 'nothing of the recipient\'s amounts');
      assert.equal(refused.body.details, undefined);
      const payee2 = await tierOf(s, payee.auth);
      assert.deepEqual([payee2.usedToday.in, payee2.remaining.in, payee2.balance], [limits.dailyIn, 0, limits.dailyIn]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('two top-ups at once cannot pass the day\'s money in together; a pending top-up holds its room; one confirmed after its hold lapsed is credited and flagged', async () => {
      const s = server();
      const { handle, auth } = await person(s);
      const { limits } = await tierOf(s, auth);
      const each = Math.floor(limits.dailyIn! * 0.6);
      const both = await Promise.all([topUp(s, auth, each), topUp(s, auth, each)]);
      assert.deepEqual(both.map((answer) => answer.status).sort(), [201, 422], JSON.stringify(both.map((answer) => answer.body)));
      const refused = both.find((answer) => answer.status === 422)!;
      assert.equal(refused.body.code, 'tier_daily_in_limit_exceeded');
      assert.match(refused.body.error!, new RegExp(`NGN ${(limits.dailyIn! - each).toLocaleString('en-US')} is left`));
      const pending = await tierOf(s, auth);
      assert.deepEqual([pending.usedToday.pendingIn, pending.remaining.in], [each, limits.dailyIn! - each]);
      clock.advance(STEP_MS);
      await s.context.collections.runOnce();
      assert.equal(await balanceMinor(s, handle, 'NGN'), each * 100, 'the top-up that went through is credited');
      const counted = await tierOf(s, auth);
      assert.deepEqual([counted.usedToday.in, counted.usedToday.pendingIn], [each, 0]);
      // A top-up nobody answers (0004) holds its room until it expires, then gives it back.
      const rest = limits.dailyIn! - each;
      const silent = await topUp(s, auth, rest, '08031230004');
      assert.equal(silent.status, 201, JSON.stringify(silent.body));
      assert.equal((await tierOf(s, auth)).remaining.in, 0);
      assert.equal((await topUp(s, auth, 1)).body.code, 'tier_daily_in_limit_exceeded');
      clock.advance(61_000);
      await s.context.collections.runOnce();
      assert.equal((await s.request<Answer>('GET', `/api/wallet/top-ups/${silent.body.id}`, { headers: auth })).body.status, 'expired');
      assert.equal((await tierOf(s, auth)).remaining.in, rest, 'the expired top-up gave its room back');
      // Meanwhile an agent's cash-in takes that room; then the provider confirms the expired top-up after all.
      const desk = await agent(s, { fund: rest });
      assert.equal((await s.request('POST', '/api/agent/cash-in', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { handle, amount: rest } })).status, 201);
      assert.equal(await s.context.collections.applyCallback(silent.body.id!, 'sandbox', { status: 'completed' }), 'applied');
      assert.equal(await balanceMinor(s, handle, 'NGN'), (each + 2 * rest) * 100, 'money the holder paid is never lost');
      const rows = await s.db.query<{ state: string; beyond_limit: boolean }>('SELECT state, beyond_limit FROM wallet_tier_movements WHERE id = $1', [silent.body.id!]);
      assert.deepEqual(rows, [{ state: 'counted', beyond_limit: true }]);
      assert.equal((await tierOf(s, auth)).remaining.in, 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('bad input is a clear 4xx: an unknown tier, an unknown wallet, a merchant\'s wallet, no admin token', async () => {
      const s = server();
      const { handle } = await person(s);
      const shop = (await s.createMerchant()).handle;
      const cases: [string, Record<string, unknown>, number, string][] = [
        [handle, { tier: 4 }, 400, 'unknown_tier'],
        [handle, { tier: 0 }, 400, 'unknown_tier'],
        [handle, { tier: 'two' }, 400, 'validation_failed'],
        [handle, { tier: 1.5 }, 400, 'validation_failed'],
        [handle, {}, 400, 'validation_failed'],
        [handle, { tier: 2, mode: 'sandbox' }, 400, 'validation_failed'],
        [handle, { tier: 2, mode: 'live' }, 404, 'wallet_not_found'],
        ['nobody_has_this_one', { tier: 2 }, 404, 'wallet_not_found'],
        [shop.replace('@', ''), { tier: 2 }, 400, 'wallet_not_tiered'],
      ];
      for (const [who, body, status, code] of cases) {
        const answer = await setTier(s, who, body);
        assert.deepEqual([answer.status, answer.body.code], [status, code], JSON.stringify([who, body, answer.body]));
      }
      const anonymous = await s.request<Answer>('PUT', `/api/admin/wallets/${handle}/tier`, { body: { tier: 2 } });
      assert.equal(anonymous.status, 401);
      const unknown = await s.request<Answer>('GET', '/api/admin/wallets/nobody_has_this_one/tier', { headers: ADMIN });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'wallet_not_found']);
      const read = await s.request<Tier>('GET', `/api/admin/wallets/${handle}/tier`, { headers: ADMIN });
      assert.deepEqual([read.status, read.body.tier], [200, 1]);
      assert.equal((await s.request('GET', '/api/wallet/tier')).status, 401);
    });
  });
}

describe('the tiers\' configuration', () => {
  it('has documented defaults, overridable per tier and limit ("none": no limit), and refuses nonsense', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.walletTiers, {
      1: { maxBalanceUsd: 200, dailyInUsd: 50, dailyOutUsd: 50 },
      2: { maxBalanceUsd: 400, dailyInUsd: 150, dailyOutUsd: 150 },
      3: { maxBalanceUsd: null, dailyInUsd: 3500, dailyOutUsd: 3500 },
    });
    assert.equal(defaults.walletTierDefault, 1);
    const changed = loadConfig({ WALLET_TIER2_DAILY_OUT_USD: 'none', WALLET_TIER3_MAX_BALANCE_USD: '50000', WALLET_TIER_DEFAULT: '2' });
    assert.deepEqual([changed.walletTiers[2].dailyOutUsd, changed.walletTiers[3].maxBalanceUsd, changed.walletTierDefault], [null, 50000, 2]);
    assert.throws(() => loadConfig({ WALLET_TIER1_DAILY_IN_USD: 'lots' }), /WALLET_TIER1_DAILY_IN_USD must be an integer/);
    assert.throws(() => loadConfig({ WALLET_TIER_DEFAULT: '4' }), /WALLET_TIER_DEFAULT must be an integer from 1 to 3/);
  });
});
