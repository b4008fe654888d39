// An agent's float in live mode through the Daraja (M-Pesa) fake, on both databases (docs/agents.md,
// "Funding and settling the float"): a float top-up is an M-Pesa Express STK push credited once on
// the fake's callback (a duplicate callback, the poll and a retry with the Idempotency-Key change
// nothing; a cancelled push credits nothing), and a settlement an M-Pesa B2C payout to the agent's
// registered number, paid once, declined (money back) or reversed after it was paid (money back).
// Live payouts' money in flight sits in M-Pesa's own rail clearing account (migration 044); the
// ledger check proves the books after each test.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { COLLECTION_SCENARIOS, SCENARIOS, startMpesaFake } from '../fakes/mpesa/index.ts';
import { until } from './until.ts';

const DELAY_SCALE = 0.05;

type TopUp = { id: string; status: string; amount: number; fee: number; total: number; provider: string; failureCode?: string };
type Settlement = { id: string; status: string; amount: number; fee: number; total: number; provider: string; providerReference: string | null; failureReason?: string; code?: string };

/** A live Kenyan agent, its float funded with `fund` shillings, signed in. */
async function kenyanAgent(s: TestServer, fund = 0) {
  const handle = uniqueHandle('agke');
  const created = await s.request<{ agentId: string; secret: string }>('POST', '/api/admin/agents', { headers: ADMIN, body: { name: 'Duka Agent', handle, country: 'KE', currency: 'KES', mode: 'live' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  if (fund) {
    const credited = await s.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: fund, currency: 'KES', mode: 'live' } });
    assert.equal(credited.status, 200, JSON.stringify(credited.body));
  }
  const session = await s.request<{ token: string }>('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: created.body.secret } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { handle, agentId: created.body.agentId, secret: created.body.secret, headers: { authorization: `Bearer agent.${session.body.token}` } };
}

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`an agent's float live through the Daraja (M-Pesa) fake on ${target.name}`, () => {
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    let fake: Awaited<ReturnType<typeof startMpesaFake>>;
    before(async () => {
      fake = await startMpesaFake({ callbackBase: publicBaseUrl, delayScale: DELAY_SCALE });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, {
      port,
      now: clock.now,
      env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '500', AGENT_FLOAT_TOP_UP_FEE_PCT: '2', AGENT_SETTLEMENT_FEE_PCT: '1' },
      app: { providerEnv: env },
    });
    const kinds = async (s: TestServer, headers: Record<string, string>) =>
      (await s.request<{ data: { kind: string }[] }>('GET', '/api/agent/notifications?limit=100', { headers })).body.data.map((note) => note.kind).sort();

    it('a float top-up is an STK push for amount + fee, credited once on the callback; a duplicate callback, the poll and a retry with the key change nothing', async () => {
      const s = server();
      const desk = await kenyanAgent(s);
      const quote = await s.request<{ provider: string; total: number }>('GET', '/api/agent/float/top-ups/quote?amount=1000', { headers: desk.headers });
      assert.deepEqual([quote.status, quote.body.provider, quote.body.total], [200, 'mpesa', 1020]);
      const clearing = await systemBalance(s, 'rail_clearing:mpesa', 'KES', 'live');
      const pushes = fake.collections().length;
      const key = randomUUID();
      const body = { amount: 1000, currency: 'KES', phone: COLLECTION_SCENARIOS.success.phone };
      const created = await s.request<TopUp>('POST', '/api/agent/float/top-ups', { headers: { ...desk.headers, 'idempotency-key': key }, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.provider, created.body.fee, created.body.total], ['mpesa', 20, 1020]);
      const read = async (id: string) => (await s.request<TopUp>('GET', `/api/agent/float/top-ups/${id}`, { headers: desk.headers })).body;
      await until('the STK callback', async () => ((await read(created.body.id)).status === 'completed' ? true : undefined));
      assert.equal(fake.collections().length, pushes + 1, 'one push');
      assert.equal(fake.collections().at(-1)!.amount, 1020, 'the phone is asked amount + fee');
      const retry = await s.request<TopUp>('POST', '/api/agent/float/top-ups', { headers: { ...desk.headers, 'idempotency-key': key }, body });
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
      await Promise.all([s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed' }), s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed' })]);
      clock.advance(10_000);
      await s.context.collections.runOnce();
      assert.equal(fake.collections().length, pushes + 1, 'never pushed twice');
      assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 100_000, 'credited once');
      assert.equal(await systemBalance(s, 'rail_clearing:mpesa', 'KES', 'live'), clearing - 102_000);
      assert.deepEqual(await kinds(s, desk.headers), ['agent.float.top_up.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a float top-up the agent cancels on the phone fails as declined and credits nothing', async () => {
      const s = server();
      const desk = await kenyanAgent(s);
      const created = await s.request<TopUp>('POST', '/api/agent/float/top-ups', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { amount: 500, currency: 'KES', phone: COLLECTION_SCENARIOS.cancelled.phone } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const failed = await until('the cancelled prompt', async () => {
        const now = (await s.request<TopUp>('GET', `/api/agent/float/top-ups/${created.body.id}`, { headers: desk.headers })).body;
        return now.status === 'failed' ? now : undefined;
      });
      assert.equal(failed.failureCode, 'declined');
      assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 0);
      assert.deepEqual(await kinds(s, desk.headers), ['agent.float.top_up.failed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    describe('settlements: an M-Pesa B2C payout to the registered number', () => {
      const registered = async (s: TestServer, phone: string) => {
        const desk = await kenyanAgent(s, 2000);
        const account = await s.request('PUT', `/api/admin/agents/${desk.agentId}/settlement-account`, { headers: ADMIN, body: { type: 'mobile_money', country: 'KE', phone, operator: 'M-Pesa', accountName: 'Duka Ltd' } });
        assert.equal(account.status, 200, JSON.stringify(account.body));
        return desk;
      };
      const settle = (s: TestServer, desk: { headers: Record<string, string>; secret: string }, key = randomUUID(), amount = 500) =>
        s.request<Settlement>('POST', '/api/agent/float/settlements', { headers: { ...desk.headers, 'idempotency-key': key }, body: { amount, secret: desk.secret } });
      const untilStatus = async (s: TestServer, headers: Record<string, string>, id: string, status: string) =>
        until(`${id} ${status}`, async () => {
          const now = (await s.request<Settlement>('GET', `/api/agent/float/settlements/${id}`, { headers })).body;
          if (now.status === status) return now;
          clock.advance(5 * 60_000);
          await s.context.payments.runOnce();
          return undefined;
        });
      const paidTimes = (s: TestServer, id: string) => fake.payouts().find((payout) => payout.key === s.context.rails.adapters.get('mpesa')!.keyOf(id))?.times ?? 0;

      it('paid once; a retry with the key pays nothing twice; the money in flight sits in M-Pesa\'s clearing', async () => {
        const s = server();
        const desk = await registered(s, SCENARIOS.success.phone);
        const key = randomUUID();
        const created = await settle(s, desk, key);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.deepEqual([created.body.provider, created.body.total], ['mpesa', 505]);
        assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 200_000 - 50_500);
        const retry = await settle(s, desk, key);
        assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
        const done = await untilStatus(s, desk.headers, created.body.id, 'completed');
        assert.ok(done.providerReference);
        assert.equal(paidTimes(s, created.body.id), 1);
        assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 200_000 - 50_500, 'debited once');
        const [postings] = await s.db.query<{ accounts: string[] }>(
          `SELECT array_agg(DISTINCT a.owner_id) AS accounts FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
           WHERE p.transfer_id LIKE $1 AND a.owner_type = 'system'`,
          [`${created.body.id}:%`],
        );
        assert.ok(postings!.accounts.includes('rail_clearing:mpesa'), `M-Pesa's own clearing: ${JSON.stringify(postings)}`);
        assert.deepEqual(await kinds(s, desk.headers), ['agent.float.settlement.paid']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('declined by the provider: failed with a reason, nothing paid, amount + fee back in the float', async () => {
        const s = server();
        const desk = await registered(s, SCENARIOS.failure.phone);
        const created = await settle(s, desk);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const failed = await untilStatus(s, desk.headers, created.body.id, 'failed');
        assert.ok(failed.failureReason && failed.failureReason.length > 5, failed.failureReason);
        assert.equal(paidTimes(s, created.body.id), 0);
        assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 200_000, 'refunded');
        assert.deepEqual(await kinds(s, desk.headers), ['agent.float.settlement.failed']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('reversed after it was paid: amount + fee come back to the float', async () => {
        const s = server();
        const desk = await registered(s, SCENARIOS.reversal_after_success.phone);
        const created = await settle(s, desk);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const reversed = await untilStatus(s, desk.headers, created.body.id, 'reversed');
        assert.ok(reversed.failureReason);
        assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 200_000, 'amount + fee back');
        assert.deepEqual(await kinds(s, desk.headers), ['agent.float.settlement.paid', 'agent.float.settlement.reversed']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('an amount with cents is refused before the secret and any debit (422 amount_not_payable)', async () => {
        const s = server();
        const desk = await registered(s, SCENARIOS.success.phone);
        const refused = await s.request<Settlement & { error: string }>('POST', '/api/agent/float/settlements', { headers: { ...desk.headers, 'idempotency-key': randomUUID() }, body: { amount: 500.5, secret: 'agsec_wrong' } });
        assert.deepEqual([refused.status, refused.body.code], [422, 'amount_not_payable'], JSON.stringify(refused.body));
        assert.match(refused.body.error, /whole shillings/);
        assert.equal(await balanceMinor(s, desk.handle, 'KES', 'live'), 200_000, 'nothing debited');
      });
    });
  });
}
