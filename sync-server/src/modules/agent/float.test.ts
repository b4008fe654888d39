// An agent's float through the rails in test mode (docs/agents.md, "Funding and settling the
// float") over real HTTP on both databases: top-ups from the agent's phone (the sandbox
// collection) completing, failing, a duplicate confirmation and a retry with the key harmless;
// settlements to the registered account (the sandbox payout) paid, declined and reversed with the
// money back in the float; confirmation with the agent's secret, limits and fees stated. The ledger
// check proves the books after each test. Live mode through the providers' fakes:
// test/rails/agent-float.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { checkLedger } from '../../ledger/check.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { agent } from '../../testing/gift-cards.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ManualClock } from '../../testing/receiver.ts';
import { ADMIN, type TestServer, useTestServer } from '../../testing/server.ts';

const STEP_MS = 1500;

type TopUp = { id: string; status: string; amount: number; fee: number; total: number; provider: string; failureCode?: string; code?: string; error?: string };
type Settlement = { id: string; status: string; amount: number; fee: number; total: number; rail: string; destination: Record<string, string>; provider: string; failureReason?: string; timeline: { status: string }[]; code?: string; error?: string };
type Quote = { fee: number; total: number; floatBalance: number; settlementAccount: { accountNumber: string | null; accountName: string } | null; limits: { perSettlement: number; daily: number; usedToday: number; remainingToday: number } };

async function notes(s: TestServer, headers: Record<string, string>): Promise<string[]> {
  const page = await s.request<{ data: { kind: string }[] }>('GET', '/api/agent/notifications?limit=100', { headers });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.data.map((note) => note.kind).sort();
}

function register(s: TestServer, agentId: string, body: Record<string, unknown>) {
  return s.request<Record<string, unknown> & { code?: string }>('PUT', `/api/admin/agents/${agentId}/settlement-account`, { headers: ADMIN, body });
}

for (const target of await databaseTargets()) {
  describe(`an agent's float top-ups in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), AGENT_FLOAT_TOP_UP_FEE_PCT: '1' } });
    const topUp = (s: TestServer, headers: Record<string, string>, body: Record<string, unknown>, key = randomUUID()) =>
      s.request<TopUp>('POST', '/api/agent/float/top-ups', { headers: { ...headers, 'idempotency-key': key }, body: { currency: 'NGN', ...body } });
    const read = async (s: TestServer, headers: Record<string, string>, id: string) => (await s.request<TopUp>('GET', `/api/agent/float/top-ups/${id}`, { headers })).body;

    it('states the fee, credits the float once when the phone approves; a duplicate confirmation and a retry with the key change nothing', async () => {
      const s = server();
      const desk = await agent(s, { fund: 10 });
      const quote = await s.request<{ fee: number; total: number; provider: string; floatBalance: number }>('GET', '/api/agent/float/top-ups/quote?amount=5000', { headers: desk.headers });
      assert.deepEqual([quote.status, quote.body.fee, quote.body.total, quote.body.provider, quote.body.floatBalance], [200, 50, 5050, 'sandbox', 10]);
      const funding = await systemBalance(s, 'funding', 'NGN');
      const fees = await systemBalance(s, 'fees', 'NGN');
      const key = randomUUID();
      const created = await topUp(s, desk.headers, { amount: 5000, phone: '0803 123 4567' }, key);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.amount, created.body.fee, created.body.total], ['pending', 5000, 50, 5050]);
      const retry = await topUp(s, desk.headers, { amount: 5000, phone: '0803 123 4567' }, key);
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id], 'the retry answers the same top-up');
      const rows = await s.db.query<{ purpose: string }>('SELECT purpose FROM pos_collections WHERE id = $1', [created.body.id]);
      assert.deepEqual(rows, [{ purpose: 'agent_float_top_up' }], 'one collection');
      clock.advance(STEP_MS);
      await Promise.all([s.context.collections.runOnce(), read(s, desk.headers, created.body.id)]);
      assert.equal((await read(s, desk.headers, created.body.id)).status, 'completed');
      assert.equal(await s.context.collections.applyCallback(created.body.id, 'sandbox', { status: 'completed' }), 'unchanged', 'a duplicate confirmation');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 501_000, 'credited once: 10 + 5000');
      assert.equal(await systemBalance(s, 'funding', 'NGN'), funding - 505_000);
      assert.equal(await systemBalance(s, 'fees', 'NGN'), fees + 5000);
      const [transfer] = await s.db.query<{ kind: string }>('SELECT kind FROM ledger_transfers WHERE id = $1', [`collection:${created.body.id}`]);
      assert.equal(transfer?.kind, 'agent_float_top_up');
      const listed = await s.request<{ data: TopUp[]; total: number }>('GET', '/api/agent/float/top-ups', { headers: desk.headers });
      assert.deepEqual([listed.body.total, listed.body.data[0]?.id], [1, created.body.id]);
      assert.deepEqual(await notes(s, desk.headers), ['agent.float.top_up.completed']);
      // Another agent, or a wallet's top-up read, cannot see it.
      const other = await agent(s);
      assert.equal((await s.request<TopUp>('GET', `/api/agent/float/top-ups/${created.body.id}`, { headers: other.headers })).body.code, 'top_up_not_found');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a declined top-up credits nothing and tells the agent; bad input is a 400', async () => {
      const s = server();
      const desk = await agent(s);
      const declined = await topUp(s, desk.headers, { amount: 100, phone: '08031230002' });
      assert.equal(declined.status, 201, JSON.stringify(declined.body));
      clock.advance(STEP_MS);
      const failed = await read(s, desk.headers, declined.body.id);
      assert.deepEqual([failed.status, failed.failureCode], ['failed', 'declined']);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 0);
      assert.deepEqual(await notes(s, desk.headers), ['agent.float.top_up.failed']);
      const wrongCurrency = await topUp(s, desk.headers, { amount: 100, phone: '08031234567', currency: 'KES' });
      assert.deepEqual([wrongCurrency.status, wrongCurrency.body.code], [400, 'currency_not_accepted']);
      const badPhone = await topUp(s, desk.headers, { amount: 100, phone: '12' });
      assert.deepEqual([badPhone.status, badPhone.body.code], [400, 'invalid_phone']);
      const noKey = await s.request<TopUp>('POST', '/api/agent/float/top-ups', { headers: desk.headers, body: { amount: 100, currency: 'NGN', phone: '08031234567' } });
      assert.equal(noKey.status, 400, 'an Idempotency-Key is required');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });

  describe(`an agent's float settlements in the sandbox on ${target.name}`, () => {
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20, env: { SANDBOX_STEP_MS: String(STEP_MS), AGENT_SETTLEMENT_FEE_PCT: '0.5', AGENT_SETTLEMENT_MAX_USD: '100', AGENT_SETTLEMENT_DAILY_USD: '150' } });
    const settle = (s: TestServer, desk: { headers: Record<string, string>; secret: string }, body: Record<string, unknown>, key = randomUUID()) =>
      s.request<Settlement>('POST', '/api/agent/float/settlements', { headers: { ...desk.headers, 'idempotency-key': key }, body: { secret: desk.secret, ...body } });
    const step = async (s: TestServer) => {
      clock.advance(STEP_MS);
      await s.context.payments.runOnce();
    };
    const read = async (s: TestServer, headers: Record<string, string>, id: string) => (await s.request<Settlement>('GET', `/api/agent/float/settlements/${id}`, { headers })).body;
    const quote = async (s: TestServer, headers: Record<string, string>) => (await s.request<Quote>('GET', '/api/agent/float/settlements/quote?amount=10000', { headers })).body;

    it('pays out to the registered account, confirmed with the agent\'s secret, fee and limits stated; a retry with the key pays nothing twice', async () => {
      const s = server();
      const desk = await agent(s, { fund: 200_000 });
      const none = await settle(s, desk, { amount: 10_000 });
      assert.deepEqual([none.status, none.body.code], [422, 'no_settlement_account']);
      assert.equal((await quote(s, desk.headers)).settlementAccount, null);
      const registered = await register(s, desk.agentId, { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123456789' });
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      assert.deepEqual([registered.body.accountNumber, registered.body.nameSource], ['••••••6789', 'sandbox']);
      const account = await s.request<{ accountName: string }>('GET', '/api/agent/float/settlement-account', { headers: desk.headers });
      assert.equal(account.body.accountName, 'Sandbox Account 6789');
      const stated = await quote(s, desk.headers);
      assert.deepEqual([stated.fee, stated.total, stated.floatBalance, stated.settlementAccount?.accountNumber], [50, 10_050, 200_000, '••••••6789']);
      assert.ok(stated.limits.perSettlement > 10_000 && stated.limits.daily > stated.limits.perSettlement, JSON.stringify(stated.limits));
      assert.deepEqual([stated.limits.usedToday, stated.limits.remainingToday], [0, stated.limits.daily]);

      const key = randomUUID();
      const wrong = await settle(s, { ...desk, secret: 'agsec_wrong' }, { amount: 10_000 }, key);
      assert.deepEqual([wrong.status, wrong.body.code], [403, 'wrong_agent_secret']);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000, 'nothing moved');
      // The same key with the right secret runs: a refused secret does not use the key up.
      const created = await settle(s, desk, { amount: 10_000 }, key);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.status, created.body.amount, created.body.fee, created.body.total, created.body.rail, created.body.destination.accountNumber], ['pending', 10_000, 50, 10_050, 'bank_transfer', '••••••6789']);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000 - 1_005_000, 'amount + fee debited at once');
      const retry = await settle(s, desk, { amount: 10_000 }, key);
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
      const replayWrong = await settle(s, { ...desk, secret: 'agsec_wrong' }, { amount: 10_000 }, key);
      assert.deepEqual([replayWrong.status, replayWrong.body.code], [403, 'wrong_agent_secret'], 'a replay asks for the secret again');
      await step(s);
      await step(s);
      const paid = await read(s, desk.headers, created.body.id);
      assert.deepEqual(paid.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      await step(s);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000 - 1_005_000, 'debited once');
      const [payment] = await s.db.query<{ kind: string; merchant_id: string | null }>('SELECT kind, merchant_id FROM payments WHERE id = $1', [created.body.id]);
      assert.deepEqual(payment, { kind: 'agent_settlement', merchant_id: null });
      assert.equal((await quote(s, desk.headers)).limits.usedToday, 10_000);
      const listed = await s.request<{ data: Settlement[]; total: number }>('GET', '/api/agent/float/settlements', { headers: desk.headers });
      assert.deepEqual([listed.body.total, listed.body.data[0]?.status], [1, 'completed']);
      assert.deepEqual(await notes(s, desk.headers), ['agent.float.settlement.paid']);
      const other = await agent(s);
      assert.equal((await s.request<Settlement>('GET', `/api/agent/float/settlements/${created.body.id}`, { headers: other.headers })).body.code, 'settlement_not_found');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('declined (0002) and reversed after paying (0005): amount + fee back in the float, the agent told; limits and balance refuse with 4xx', async () => {
      const s = server();
      const desk = await agent(s, { fund: 200_000 });
      assert.equal((await register(s, desk.agentId, { type: 'mobile_money', country: 'NG', phone: '08031230002', operator: 'MTN' })).status, 200);
      const declined = await settle(s, desk, { amount: 1000 });
      assert.equal(declined.status, 201, JSON.stringify(declined.body));
      assert.equal(declined.body.status, 'failed');
      assert.match(declined.body.failureReason ?? '', /declined/);
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000, 'declined: money back at once');
      assert.equal((await register(s, desk.agentId, { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123450005' })).status, 200, 'an administrator replaces the account');
      const reversed = await settle(s, desk, { amount: 2000 });
      assert.equal(reversed.status, 201, JSON.stringify(reversed.body));
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000 - 201_000);
      await step(s);
      assert.equal((await read(s, desk.headers, reversed.body.id)).status, 'reversed');
      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 20_000_000, 'reversed: amount + fee back');
      assert.deepEqual(await notes(s, desk.headers), ['agent.float.settlement.failed', 'agent.float.settlement.paid', 'agent.float.settlement.reversed']);
      const stated = await quote(s, desk.headers);
      assert.equal(stated.limits.usedToday, 0, 'failed and reversed settlements do not count');
      const over = await settle(s, desk, { amount: stated.limits.perSettlement + 1 });
      assert.deepEqual([over.status, over.body.code], [422, 'settlement_limit_exceeded']);
      const poor = await agent(s, { fund: 10 });
      assert.equal((await register(s, poor.agentId, { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123456789' })).status, 200);
      const broke = await settle(s, poor, { amount: 100 });
      assert.deepEqual([broke.status, broke.body.code], [422, 'insufficient_funds']);
      const ghana = await register(s, desk.agentId, { type: 'mobile_money', country: 'GH', phone: '+233241234567', operator: 'MTN' });
      assert.deepEqual([ghana.status, ghana.body.code], [400, 'destination_currency_mismatch']);
      const unknown = await register(s, 'agt_nobody', { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123456789' });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'agent_not_found']);
      const unresolved = await register(s, desk.agentId, { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123450009' });
      assert.deepEqual([unresolved.status, unresolved.body.code], [422, 'account_not_resolved']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('bad amounts and accounts in another currency are a 400 with its code, and move nothing', async () => {
      const s = server();
      const desk = await agent(s, { fund: 1000 });
      assert.equal((await register(s, desk.agentId, { type: 'bank', country: 'NG', bankCode: '058', accountNumber: '0123456789' })).status, 200);
      const settlementsOf = async () => Number((await s.db.query<{ n: number }>("SELECT count(*)::int AS n FROM payments WHERE kind = 'agent_settlement' AND source_wallet_id = (SELECT id FROM wallets WHERE handle = $1 AND mode = 'test')", [desk.handle]))[0]?.n);
      const cases: [unknown, string | undefined, string][] = [
        [0, undefined, 'amount_must_not_be_zero'],
        [-5, undefined, 'amount_must_be_positive'],
        [-0.01, undefined, 'amount_must_be_positive'],
        // NGN has two decimals (kobo): a third is more than the currency's minor units.
        [10.001, undefined, 'amount_too_many_decimals'],
        [0.001, undefined, 'amount_too_many_decimals'],
        [1e13, undefined, 'amount_too_large'],
        [10, 'KES', 'currency_not_accepted'],
        [10, 'ngn ', 'validation_failed'],
      ];
      for (const [amount, currency, code] of cases) {
        const refused = await settle(s, desk, { amount, ...(currency === undefined ? {} : { currency }) });
        assert.deepEqual([refused.status, refused.body.code], [400, code], `${String(amount)} ${currency ?? ''}: ${JSON.stringify(refused.body)}`);
        assert.ok(typeof refused.body.error === 'string' && refused.body.error.length > 0, JSON.stringify(refused.body));
      }
      for (const amount of ['abc', null, '10']) {
        const refused = await settle(s, desk, { amount });
        assert.deepEqual([refused.status, refused.body.code], [400, 'validation_failed'], `${JSON.stringify(amount)}: ${JSON.stringify(refused.body)}`);
      }
      const quoted = await s.request<{ code: string }>('GET', '/api/agent/float/settlements/quote?amount=0', { headers: desk.headers });
      assert.deepEqual([quoted.status, quoted.body.code], [400, 'amount_must_not_be_zero']);
      const quotedFraction = await s.request<{ code: string }>('GET', '/api/agent/float/settlements/quote?amount=1.234', { headers: desk.headers });
      assert.deepEqual([quotedFraction.status, quotedFraction.body.code], [400, 'amount_too_many_decimals']);

      // Accounts whose currency is not the float's: refused at registration, and the registered one is kept.
      for (const body of [
        { type: 'bank', country: 'GH', bankCode: '058', accountNumber: '0123456789' },
        { type: 'mobile_money', country: 'KE', phone: '+254712345678', operator: 'M-Pesa', accountName: 'Duka Ltd' },
      ]) {
        const refused = await register(s, desk.agentId, body);
        assert.deepEqual([refused.status, refused.body.code], [400, 'destination_currency_mismatch'], JSON.stringify(refused.body));
      }
      assert.equal((await s.request<{ currency: string }>('GET', '/api/agent/float/settlement-account', { headers: desk.headers })).body.currency, 'NGN');
      // A foreign number given for a Nigerian mobile money account: not a Nigerian phone.
      const foreignPhone = await register(s, desk.agentId, { type: 'mobile_money', country: 'NG', phone: '+254712345678', operator: 'MTN' });
      assert.equal(foreignPhone.status, 400, JSON.stringify(foreignPhone.body));
      assert.equal(foreignPhone.body.code, 'invalid_phone');
      // An account registered in another currency (the float's currency is checked again at settlement time).
      await s.db.query("UPDATE agent_settlement_accounts SET country = 'GH', currency = 'GHS' WHERE agent_id = $1", [desk.agentId]);
      const mismatch = await settle(s, desk, { amount: 10 });
      assert.deepEqual([mismatch.status, mismatch.body.code], [400, 'destination_currency_mismatch'], JSON.stringify(mismatch.body));

      assert.equal(await balanceMinor(s, desk.handle, 'NGN'), 100_000, 'nothing debited');
      assert.equal(await settlementsOf(), 0, 'no settlement recorded');
      assert.deepEqual(await notes(s, desk.headers), []);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
