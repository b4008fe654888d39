// Wallet money in live mode through the providers' fakes, on both databases: a holder's top-up is an
// M-Pesa Express STK push (Daraja fake) and her withdrawal an M-Pesa B2C payout, over real HTTP, the
// fake's callbacks back to /api/rails/mpesa/..., the jobs' polls and lookups. Each flow succeeds,
// fails at the provider, and is retried with its Idempotency-Key; the fake counts what it paid, so
// "never twice" is checked where the money leaves, and the ledger check proves the books.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { COLLECTION_SCENARIOS, SCENARIOS, startMpesaFake } from '../fakes/mpesa/index.ts';

const DELAY_SCALE = 0.05;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ceilingMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + ceilingMs; ; ) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `waited for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type TopUp = { id: string; status: string; amount: number; fee: number; total: number; provider: string; failureCode?: string; failureReason?: string };
type Withdrawal = { id: string; status: string; amount: number; fee: number; total: number; provider: string; providerReference: string | null; failureReason?: string };

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`wallet money live through the Daraja (M-Pesa) fake on ${target.name}`, () => {
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
      env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '500', WALLET_TOP_UP_FEE_PCT: '2', WALLET_WITHDRAWAL_FEE_PCT: '1' },
      app: { providerEnv: env },
    });

    /** A live KES wallet in Kenya with its session. */
    const holder = async (s: TestServer, fund = 0) => {
      const handle = uniqueHandle('wmke');
      await s.createWallet({ handle, pin: '2468', currency: 'KES', country: 'KE', mode: 'live', ...(fund ? { fund } : {}) });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      return { handle, auth: { authorization: `Bearer wallet.${session.body.token}` } };
    };
    const kinds = async (s: TestServer, auth: Record<string, string>) =>
      (await s.request<{ data: { kind: string }[] }>('GET', '/api/wallet/notifications?limit=100', { headers: auth })).body.data.map((note) => note.kind).sort();

    it('a top-up is an STK push for amount + fee, credited amount once on Daraja\'s callback; a duplicate callback, the poll and a retry with the key change nothing', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const quote = await s.request<{ provider: string; total: number }>('GET', '/api/wallet/top-ups/quote?amount=100', { headers: auth });
      assert.deepEqual([quote.status, quote.body.provider, quote.body.total], [200, 'mpesa', 102]);
      const clearing = await systemBalance(s, 'rail_clearing', 'KES', 'live');
      const key = randomUUID();
      const body = { amount: 100, currency: 'KES', phone: COLLECTION_SCENARIOS.success.phone };
      const created = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': key }, body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual([created.body.provider, created.body.fee, created.body.total], ['mpesa', 2, 102]);
      const read = async (id: string) => (await s.request<TopUp>('GET', `/api/wallet/top-ups/${id}`, { headers: auth })).body;
      await until('the STK callback', async () => ((await read(created.body.id)).status === 'completed' ? true : undefined));
      assert.equal(fake.collections().length, 1, 'one push');
      assert.equal(fake.collections()[0]!.amount, 102, 'the phone is asked amount + fee');
      assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 10_000);
      assert.equal(await systemBalance(s, 'rail_clearing', 'KES', 'live'), clearing - 10_200);
      // The retry, the provider's duplicate callback and a poll racing it: still one credit.
      const retry = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': key }, body });
      assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
      await Promise.all([s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed' }), s.context.collections.applyCallback(created.body.id, 'mpesa', { status: 'completed' })]);
      clock.advance(10_000);
      await s.context.collections.runOnce();
      assert.equal(fake.collections().length, 1, 'never pushed twice');
      assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 10_000, 'credited once');
      assert.deepEqual(await kinds(s, auth), ['wallet.top_up.completed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a top-up the customer cancels fails as declined; one whose callback is lost is found by the poll; nothing is credited twice', async () => {
      const s = server();
      const { handle, auth } = await holder(s);
      const read = async (id: string) => (await s.request<TopUp>('GET', `/api/wallet/top-ups/${id}`, { headers: auth })).body;
      const cancelled = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { amount: 50, currency: 'KES', phone: COLLECTION_SCENARIOS.cancelled.phone } });
      assert.equal(cancelled.status, 201, JSON.stringify(cancelled.body));
      const failed = await until('the cancelled prompt', async () => {
        const now = await read(cancelled.body.id);
        return now.status === 'failed' ? now : undefined;
      });
      assert.equal(failed.failureCode, 'declined', failed.failureReason);
      const lost = await s.request<TopUp>('POST', '/api/wallet/top-ups', { headers: { ...auth, 'idempotency-key': randomUUID() }, body: { amount: 50, currency: 'KES', phone: COLLECTION_SCENARIOS.callback_lost.phone } });
      assert.equal(lost.status, 201, JSON.stringify(lost.body));
      await until('the poll', async () => {
        clock.advance(10_000);
        await s.context.collections.runOnce();
        return (await read(lost.body.id)).status === 'completed' ? true : undefined;
      });
      assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 5000, 'only the paid one, once');
      assert.deepEqual(await kinds(s, auth), ['wallet.top_up.completed', 'wallet.top_up.failed']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    describe('withdrawals: an M-Pesa B2C payout from the wallet', () => {
      const withdraw = (s: TestServer, auth: Record<string, string>, phone: string, key = randomUUID()) =>
        s.request<Withdrawal>('POST', '/api/wallet/withdrawals', { headers: { ...auth, 'idempotency-key': key }, body: { amount: 500, currency: 'KES', walletPin: '2468', destination: { type: 'mobile_wallet', phone, provider: 'M-Pesa' } } });
      const settle = async (s: TestServer, auth: Record<string, string>, id: string, status: string) =>
        until(`${id} ${status}`, async () => {
          const now = (await s.request<Withdrawal>('GET', `/api/wallet/withdrawals/${id}`, { headers: auth })).body;
          if (now.status === status) return now;
          clock.advance(5 * 60_000);
          await s.context.payments.runOnce();
          return undefined;
        });
      const paidTimes = (s: TestServer, id: string) => fake.payouts().find((payout) => payout.key === s.context.rails.adapters.get('mpesa')!.keyOf(id))?.times ?? 0;

      it('paid once; a retry with the key pays nothing twice', async () => {
        const s = server();
        const { handle, auth } = await holder(s, 2000);
        const key = randomUUID();
        const created = await withdraw(s, auth, SCENARIOS.success.phone, key);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.deepEqual([created.body.provider, created.body.total], ['mpesa', 505]);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000 - 50_500);
        const retry = await withdraw(s, auth, SCENARIOS.success.phone, key);
        assert.deepEqual([retry.status, retry.body.id], [201, created.body.id]);
        const done = await settle(s, auth, created.body.id, 'completed');
        assert.ok(done.providerReference);
        assert.equal(paidTimes(s, created.body.id), 1);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000 - 50_500, 'debited once');
        assert.deepEqual(await kinds(s, auth), ['wallet.withdrawal.paid']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('declined by the provider: failed with a reason, nothing paid, amount + fee back in the wallet', async () => {
        const s = server();
        const { handle, auth } = await holder(s, 2000);
        const created = await withdraw(s, auth, SCENARIOS.failure.phone);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const failed = await settle(s, auth, created.body.id, 'failed');
        assert.ok(failed.failureReason && failed.failureReason.length > 5, failed.failureReason);
        assert.equal(paidTimes(s, created.body.id), 0);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000, 'refunded');
        assert.deepEqual(await kinds(s, auth), ['wallet.withdrawal.failed']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('no answer in time: the retry asks the provider first and the phone is paid exactly once', async () => {
        const s = server();
        const { handle, auth } = await holder(s, 2000);
        const created = await withdraw(s, auth, SCENARIOS.no_answer.phone);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.status, 'pending', 'the submit timed out: nothing is known yet');
        await until('the fake paid', async () => (paidTimes(s, created.body.id) > 0 ? true : undefined));
        await settle(s, auth, created.body.id, 'completed');
        assert.equal(paidTimes(s, created.body.id), 1);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000 - 50_500);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });

      it('reversed after it was paid: the money comes back to the wallet', async () => {
        const s = server();
        const { handle, auth } = await holder(s, 2000);
        const created = await withdraw(s, auth, SCENARIOS.reversal_after_success.phone);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const reversed = await settle(s, auth, created.body.id, 'reversed');
        assert.ok(reversed.failureReason);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000, 'amount + fee back');
        assert.deepEqual(await kinds(s, auth), ['wallet.withdrawal.paid', 'wallet.withdrawal.reversed']);
        assert.deepEqual((await checkLedger(s.db)).violations, []);
      });
    });
  });
}
