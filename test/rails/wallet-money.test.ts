// Wallet money in live mode through the providers' fakes, on both databases: a holder's top-up is an
// M-Pesa Express STK push (Daraja fake) and her withdrawal an M-Pesa B2C payout, over real HTTP, the
// fake's callbacks back to /api/rails/mpesa/..., the jobs' polls and lookups. Each flow succeeds,
// fails at the provider, and is retried with its Idempotency-Key; the fake counts what it paid, so
// "never twice" is checked where the money leaves, and the ledger check proves the books.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, systemBalance, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { COLLECTION_SCENARIOS, SCENARIOS, startMpesaFake } from '../fakes/mpesa/index.ts';
import { until } from './until.ts';

const DELAY_SCALE = 0.05;

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
      const clearing = await systemBalance(s, 'rail_clearing:mpesa', 'KES', 'live');
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
      assert.equal(await systemBalance(s, 'rail_clearing:mpesa', 'KES', 'live'), clearing - 10_200);
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

    it('an FX payout to M-Pesa that converts to shillings with cents is refused before any debit (422 amount_not_payable); one that converts to whole shillings is paid', async () => {
      const s = server();
      const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const key = { 'x-merchant-api-key': merchant.liveKey };
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200, JSON.stringify(credited.body));
      type Quote = { quoteId: string; rate: number; receive: number };
      const quote = async (amount: number) => {
        const answer = await s.request<Quote>('GET', `/api/fx/quote?from=NGN&to=KES&amount=${amount}&rail=mobile_money`, { headers: key });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
      const hasCents = (receive: number) => Math.round(receive * 100) % 100 !== 0;
      const pay = (amount: number, quoteId: string) =>
        s.request<{ code?: string; error?: string; paymentId?: string; destinationAmount?: number; destinationCurrency?: string }>('POST', '/api/pay', {
          headers: { ...key, 'idempotency-key': randomUUID() },
          body: { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount, currency: 'NGN', receiver: SCENARIOS.success.phone, quoteId },
        });
      const sent = () => fake.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/b2c/v3/paymentrequest').length;
      const balance = await balanceMinor(s, merchant.handle, 'NGN', 'live');
      const before = sent();

      let withCents: { amount: number; quote: Quote } | undefined;
      for (let amount = 1000; !withCents && amount < 1010; amount += 1) {
        const q = await quote(amount);
        if (hasCents(q.receive)) withCents = { amount, quote: q };
      }
      assert.ok(withCents, 'an NGN amount that converts to KES with cents');
      const refused = await pay(withCents.amount, withCents.quote.quoteId);
      assert.deepEqual([refused.status, refused.body.code], [422, 'amount_not_payable'], JSON.stringify(refused.body));
      assert.match(refused.body.error ?? '', /whole shillings/);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN', 'live'), balance, 'nothing debited');
      assert.equal(sent(), before, 'nothing sent to M-Pesa');

      // The amount that converts to the next whole shilling at the same rate.
      const shillings = Math.ceil(withCents.quote.receive) + 1;
      let whole: { amount: number; quote: Quote } | undefined;
      for (let kobo = Math.ceil((shillings / withCents.quote.rate) * 100); !whole && kobo < Math.ceil((shillings / withCents.quote.rate) * 100) + 20; kobo += 1) {
        const q = await quote(kobo / 100);
        if (!hasCents(q.receive)) whole = { amount: kobo / 100, quote: q };
      }
      assert.ok(whole, 'an NGN amount that converts to whole shillings');
      const paid = await pay(whole.amount, whole.quote.quoteId);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.deepEqual([paid.body.destinationCurrency, paid.body.destinationAmount], ['KES', whole.quote.receive]);
      assert.ok(!hasCents(paid.body.destinationAmount!), 'whole shillings');
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

      it('an amount with cents is refused before the PIN and any debit (422 amount_not_payable): M-Pesa pays whole shillings only', async () => {
        const s = server();
        const { handle, auth } = await holder(s, 2000);
        const sent = () => fake.requests().filter((request) => request.method === 'POST' && request.path === '/mpesa/b2c/v3/paymentrequest').length;
        const before = sent();
        // A wrong PIN too: the amount is refused first, so no PIN attempt is spent on a withdrawal that could not go.
        const refused = await s.request<{ code: string; error: string }>('POST', '/api/wallet/withdrawals', {
          headers: { ...auth, 'idempotency-key': randomUUID() },
          body: { amount: 500.5, currency: 'KES', walletPin: '0000', destination: { type: 'mobile_wallet', phone: SCENARIOS.success.phone, provider: 'M-Pesa' } },
        });
        assert.deepEqual([refused.status, refused.body.code], [422, 'amount_not_payable'], JSON.stringify(refused.body));
        assert.match(refused.body.error, /whole shillings/);
        assert.equal(await balanceMinor(s, handle, 'KES', 'live'), 200_000, 'nothing debited');
        assert.equal(sent(), before, 'nothing sent to M-Pesa');
        const whole = await withdraw(s, auth, SCENARIOS.success.phone);
        assert.equal(whole.status, 201, 'the PIN still works: no attempt was spent');
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
