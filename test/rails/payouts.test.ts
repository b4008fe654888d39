// Merchant payouts in live mode through Paystack's fake, on both databases: the settlement account's
// holder resolved by Paystack's GET /bank/resolve, a payout on demand paid over real HTTP (the
// fake's callback back to /api/rails/paystack/webhook, the scheduler's polls), one failing at the
// provider with its money back in the wallet once, the schedule paying once however often it runs,
// and a SIGKILL of the server while the provider holds the transfer request, then a restart:
// exactly one payout at the fake. The fake counts what it paid, so "never twice" is checked where
// the money leaves; the ledger check proves the books after each test.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, useTestServer } from '@tapline/sync-server/testing';
import { SCENARIOS } from '../fakes/paystack/index.ts';
import { type ServerProcess, serverProcess } from '../e2e/server-process.ts';
import { PROVIDERS, type RunningFake } from './providers.ts';
import { until } from './until.ts';

const DELAY_SCALE = 0.05;
const RAIL_TIMEOUT_MS = 500;
const paystack = PROVIDERS.find((provider) => provider.name === 'paystack')!;

type Account = { id: string; accountName: string; nameSource: string; accountNumber: string; code?: string; error?: string };
type Payout = { id: string; status: string; amount: number; provider: string; providerReference: string | null; failureReason?: string; code?: string; error?: string };

/** The Paystack fake's bank account of a scenario, as a settlement account. */
const bankOf = (scenario: keyof typeof SCENARIOS) => {
  const receiver = SCENARIOS[scenario]!.receiver as { accountNumber: string; bankCode: string };
  return { type: 'bank', country: 'NG', bankCode: receiver.bankCode, accountNumber: receiver.accountNumber };
};

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`live merchant payouts through the Paystack fake on ${target.name}`, () => {
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const clock = new ManualClock(Date.now());
    let fake: RunningFake;
    const env: Record<string, string> = {};
    before(async () => {
      fake = await paystack.start(publicBaseUrl, DELAY_SCALE);
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const server = useTestServer(target, {
      port,
      now: clock.now,
      env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: String(RAIL_TIMEOUT_MS), PAYOUT_JOB_INTERVAL_MS: '0', PAYOUT_SCHEDULE_HOUR_UTC: '0' },
      app: { providerEnv: env },
    });

    /** A merchant with `fund` NGN in its live wallet and a live settlement account of the scenario. */
    async function liveShop(s: TestServer, fund: number, scenario: keyof typeof SCENARIOS) {
      const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const key = { 'x-merchant-api-key': merchant.liveKey };
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: fund, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      const account = await s.request<Account>('POST', '/api/merchant/settlement-accounts', { headers: key, body: bankOf(scenario) });
      assert.equal(account.status, 201, JSON.stringify(account.body));
      return { merchant, key, account: account.body };
    }
    const read = async (s: TestServer, key: Record<string, string>, id: string) => (await s.request<Payout>('GET', `/api/merchant/payouts/${id}`, { headers: key })).body;
    const eventTypes = async (s: TestServer, merchantId: string) =>
      (await s.db.query<{ type: string }>("SELECT type FROM events WHERE merchant_id = $1 AND type LIKE 'payout.%'", [merchantId])).map((row) => row.type).sort();
    /** What the fake paid to this account: the times per idempotency key of its transfers. */
    const paidTo = (payoutIds: readonly string[]) => [...fake.paidTimes().entries()].filter(([key]) => payoutIds.some((id) => key.includes(id.slice(3)))).map(([, times]) => times);

    it('resolves the holder with Paystack GET /bank/resolve; an account Paystack cannot find is 422 account_not_resolved; a rail without a provider is 422 rail_unavailable', async () => {
      const s = server();
      const { account, key } = await liveShop(s, 10, 'success');
      assert.deepEqual([account.accountName, account.nameSource, account.accountNumber], ['TAPLINE TEST 0001', 'provider', '••••••0001']);
      const unknown = await s.request<Account>('POST', '/api/merchant/settlement-accounts', { headers: key, body: bankOf('invalid_account') });
      assert.deepEqual([unknown.status, unknown.body.code], [422, 'account_not_resolved']);
      assert.ok(!unknown.body.error!.includes('0000000004'), 'the whole number is never echoed');
      const noProvider = await s.request<Account>('POST', '/api/merchant/settlement-accounts', { headers: key, body: { type: 'mobile_money', country: 'UG', phone: '+256772123456', operator: 'MTN', accountName: 'Shop' } });
      assert.deepEqual([noProvider.status, noProvider.body.code], [422, 'rail_unavailable']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('pays out on demand through Paystack: paid once at the provider, payout.paid; a retry with the key pays nothing twice', async () => {
      const s = server();
      const { merchant, key } = await liveShop(s, 500, 'success');
      const idem = randomUUID();
      const created = await s.request<Payout>('POST', '/api/merchant/payouts', { headers: { ...key, 'idempotency-key': idem }, body: { amount: 200 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.provider, 'paystack');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), 30_000);
      const paid = await until('the payout to be paid', async () => {
        const payout = await read(s, key, created.body.id);
        return payout.status === 'paid' ? payout : undefined;
      });
      assert.ok(paid.providerReference);
      const retry = await s.request<Payout>('POST', '/api/merchant/payouts', { headers: { ...key, 'idempotency-key': idem }, body: { amount: 200 } });
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
      clock.advance(60_000);
      await s.context.payments.runOnce();
      assert.deepEqual(paidTo([created.body.id]), [1], 'one transfer at Paystack, paid once');
      assert.deepEqual(await eventTypes(s, merchant.id), ['payout.created', 'payout.paid']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('fails at Paystack: the money is back in the wallet once, payout.failed', async () => {
      const s = server();
      const { merchant, key } = await liveShop(s, 90, 'failure');
      const created = await s.request<Payout>('POST', '/api/merchant/payouts', { headers: { ...key, 'idempotency-key': randomUUID() }, body: {} });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.amount, 90);
      const failed = await until('the payout to fail', async () => {
        const payout = await read(s, key, created.body.id);
        return payout.status === 'failed' ? payout : undefined;
      });
      assert.ok(failed.failureReason);
      clock.advance(60_000);
      await s.context.payments.runOnce();
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), 9_000, 'returned once');
      assert.deepEqual(await eventTypes(s, merchant.id), ['payout.created', 'payout.failed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('the schedule pays a live merchant once through Paystack however often it runs', async () => {
      const s = server();
      const { merchant, key } = await liveShop(s, 70, 'success');
      await Promise.all([s.context.payoutJobs.runOnce(), s.context.payoutJobs.runOnce()]);
      await s.context.payoutJobs.runOnce();
      const list = await s.request<{ data: Payout[] }>('GET', '/api/merchant/payouts', { headers: key });
      assert.equal(list.body.data.length, 1);
      const id = list.body.data[0]!.id;
      await until('the scheduled payout to be paid', async () => ((await read(s, key, id)).status === 'paid' ? true : undefined));
      assert.deepEqual(paidTo([id]), [1]);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });

  describe(`a crash while Paystack holds a merchant payout, on ${target.name}`, () => {
    let server: ServerProcess;
    let restartFake: RunningFake | undefined;
    before(async () => {
      server = await serverProcess(target, (baseUrl) => ({
        ...restartFake?.env,
        PUBLIC_BASE_URL: baseUrl,
        // A 1 s request timeout makes a claim's lease 10 s: the restarted scheduler takes over soon.
        RAIL_TIMEOUT_MS: '1000',
        RAIL_POLL_MS: '1000',
        SCHEDULER_POLL_MS: '200',
        // Only the payout asked for: the daily schedule would pay the rest of the wallet meanwhile.
        PAYOUT_JOB_INTERVAL_MS: '0',
      }));
      // no_answer holds a request 30 s × 0.2: the server is killed while it waits.
      restartFake = await paystack.start(server.baseUrl, 0.2);
      await server.start();
    });
    after(async () => {
      await server?.dispose();
      await restartFake?.stop();
    });

    it('pays exactly once after a SIGKILL between asking Paystack and recording its answer', async () => {
      const merchant = await server.createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const key = { 'x-merchant-api-key': merchant.liveKey };
      const credited = await server.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      const account = await server.request<Account>('POST', '/api/merchant/settlement-accounts', { headers: key, body: bankOf('no_answer') });
      assert.equal(account.status, 201, JSON.stringify(account.body));
      const answer = server
        .request<Payout>('POST', '/api/merchant/payouts', { headers: { ...key, 'idempotency-key': randomUUID() }, body: { amount: 400 } })
        .then(
          (response) => response,
          () => undefined,
        );
      await until('Paystack to receive the transfer', async () => (restartFake!.transferRequests() > 0 ? true : undefined), 180_000);
      await server.stop('SIGKILL');
      await answer;
      await server.start();
      const payouts = await until(
        'the payout to be final',
        async () => {
          const list = await server.request<{ data: Payout[] }>('GET', '/api/merchant/payouts', { headers: key });
          const row = list.body.data[0];
          return row && row.status === 'paid' ? list.body.data : undefined;
        },
        180_000,
      );
      assert.equal(payouts.length, 1);
      assert.deepEqual([...restartFake!.paidTimes().values()], [1], 'one transfer at Paystack, paid once');
      const balance = await server.request<{ balance: number; available: number }>('GET', '/api/merchant/payouts/balance', { headers: key });
      assert.deepEqual([balance.body.balance, balance.body.available], [600, 600]);
      assert.equal(await server.stop('SIGTERM'), 0);
      const db = await server.openDatabase();
      try {
        assert.deepEqual((await checkLedger(db)).violations, []);
        const rows = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM payments WHERE kind = 'settlement'");
        assert.equal(Number(rows[0]!.n), 1);
      } finally {
        await db.close();
      }
    });
  });
}
