// The verification tiers where money comes into a person's wallet from a merchant, and where a
// promise of money out is made (docs/wallet-tiers.md), over real HTTP on both databases: a payout
// (POST /api/pay to a handle) and a payroll item into a person's wallet are checked against her
// maximum balance and day's money in before any debit (422 recipient_tier_limit_exceeded for the
// payer, nothing of her figures told), counted when they pass and given back when a payout fails;
// a one-time cash-out code is checked against the day's money out when it is made. checkLedger after each.
// Run: NODE_ENV=test TEST_DATABASE_URL=... node --import tsx --test sync-server/src/modules/wallets/tier-gaps.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { holder } from '../../testing/gift-cards.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { type TestServer, useTestServer } from '../../testing/server.ts';

const STEP_MS = 1000;
const ENV = { SANDBOX_STEP_MS: String(STEP_MS), WALLET_TIER1_MAX_BALANCE_USD: '100', WALLET_TIER1_DAILY_IN_USD: '40', WALLET_TIER1_DAILY_OUT_USD: '30' };

type Answer = { code?: string; error?: string; details?: unknown[]; paymentId?: string; status?: string };
type Tier = { limits: { dailyIn: number; dailyOut: number }; remaining: { in: number; out: number }; usedToday: { in: number; out: number } };
type Item = { id: string; handle?: string; amount: number; status: string; failureReason?: string };

async function tierOf(s: TestServer, headers: Record<string, string>): Promise<Tier> {
  const answer = await s.request<Tier>('GET', '/api/wallet/tier', { headers });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

async function movements(s: TestServer, handle: string): Promise<{ kind: string; state: string; amount: number }[]> {
  const rows = await s.db.query<{ kind: string; state: string; amount: string | number }>(
    `SELECT m.kind, m.state, m.amount FROM wallet_tier_movements m JOIN wallets w ON w.id = m.wallet_id WHERE w.handle = $1 ORDER BY m.created_at, m.kind`,
    [handle],
  );
  return rows.map((row) => ({ kind: row.kind, state: row.state, amount: Number(row.amount) }));
}

for (const target of await databaseTargets()) {
  describe(`tier checks on merchants' payouts, payroll and cash-out codes on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: ENV });
    const pay = (s: TestServer, apiKey: string, body: Record<string, unknown>) =>
      s.request<Answer>('POST', '/api/pay', { headers: { 'x-merchant-api-key': apiKey, 'idempotency-key': randomUUID() }, body: { fromCode: 'NG', toCode: 'NG', rail: 'wallet', currency: 'NGN', ...body } });
    const merchantBalance = async (s: TestServer, apiKey: string) =>
      (await s.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': apiKey } })).body.balances.find((b) => b.currency === 'NGN')?.available ?? 0;

    it('a payout into a person\'s wallet past her tier is refused before any debit (recipient_tier_limit_exceeded); one within it is counted; a failed one gives the room back', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const person = await holder(s, { prefix: 'payee' });
      const room = (await tierOf(s, person.headers)).remaining.in;
      assert.ok(room > 1000, JSON.stringify(room));
      // Settles the sandbox float first, so the balance below is what the refusal must leave.
      const first = await pay(s, merchant.testKey, { receiver: `@${person.handle}`, amount: 1000, reference: 'test_success' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const before = await merchantBalance(s, merchant.testKey);
      const over = await pay(s, merchant.testKey, { receiver: `@${person.handle}`, amount: room, reference: 'test_success' });
      assert.deepEqual([over.status, over.body.code, over.body.details], [422, 'recipient_tier_limit_exceeded', undefined], JSON.stringify(over.body));
      assert.equal(over.body.error, 'The recipient\'s wallet cannot receive this amount now: it would pass the limits of its verification tier');
      assert.equal(await merchantBalance(s, merchant.testKey), before, 'nothing debited');
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 100_000);
      assert.deepEqual(await movements(s, person.handle), [{ kind: 'payout_in', state: 'counted', amount: 100_000 }]);
      assert.equal((await tierOf(s, person.headers)).remaining.in, room - 1000);
      // A payout that fails at the (sandbox) rail never reached her: its room comes back.
      const failing = await pay(s, merchant.testKey, { receiver: `@${person.handle}`, amount: 500, reference: 'test_failure' });
      assert.equal(failing.status, 201, JSON.stringify(failing.body));
      assert.equal(failing.body.status, 'failed');
      assert.deepEqual((await movements(s, person.handle)).map((m) => [m.kind, m.state, m.amount]), [['payout_in', 'counted', 100_000], ['payout_in', 'released', 50_000]]);
      assert.equal((await tierOf(s, person.headers)).remaining.in, room - 1000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a payroll item into a person\'s wallet past her tier fails before any debit; the items that fit are paid and counted', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const person = await holder(s, { prefix: 'staff' });
      const room = (await tierOf(s, person.headers)).remaining.in;
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const run = await s.request<{ id: string }>('POST', '/api/payroll/runs', { headers, body: { currency: 'NGN', items: [{ handle: person.handle, amount: 1000, externalRef: 'A' }, { handle: person.handle, amount: room - 500, externalRef: 'B' }] } });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const submitted = await s.request<{ status: string; counts: Record<string, number>; paidAmount: number }>('POST', `/api/payroll/runs/${run.body.id}/submit`, { headers });
      assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
      assert.deepEqual(submitted.body.counts, { pending: 0, paid: 1, failed: 1 });
      assert.equal(submitted.body.paidAmount, 1000);
      const items = (await s.request<{ data: Item[] }>('GET', `/api/payroll/items?runId=${run.body.id}&limit=10`, { headers })).body.data;
      const failed = items.find((item) => item.status === 'failed')!;
      assert.equal(failed.amount, room - 500);
      assert.match(failed.failureReason ?? '', /cannot receive this amount now.*\(recipient_tier_limit_exceeded\)$/);
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 100_000);
      assert.deepEqual(await movements(s, person.handle), [{ kind: 'payroll_in', state: 'counted', amount: 100_000 }]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a cash-out code past the day\'s money out is refused when it is made (before the PIN), not at the agent\'s counter', async () => {
      const s = server();
      const person = await holder(s, { fund: 200_000, pin: '2580', prefix: 'cashout' });
      const tier = await tierOf(s, person.headers);
      const make = (amount: number, walletPin = '2580') => s.request<Answer & { id?: string }>('POST', '/api/wallet/cash-out-codes', { headers: person.headers, body: { amount, walletPin } });
      const over = await make(tier.remaining.out + 1, '0000');
      assert.deepEqual([over.status, over.body.code], [422, 'tier_daily_out_limit_exceeded'], JSON.stringify(over.body));
      assert.match(over.body.error ?? '', /^A tier 1 wallet may send or withdraw at most NGN [\d,]+ in 24 hours; NGN [\d,]+ is left$/);
      assert.deepEqual(over.body.details, [{ tier: 1, currency: 'NGN', limit: tier.limits.dailyOut, remaining: tier.remaining.out }]);
      const within = await make(tier.remaining.out);
      assert.equal(within.status, 201, JSON.stringify(within.body));
      assert.deepEqual(await movements(s, person.handle), [], 'a code moves and counts nothing by itself');
    });
  });
}
