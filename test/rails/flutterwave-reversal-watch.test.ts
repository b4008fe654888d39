// A Flutterwave payout reversed after it succeeded, with every webhook lost (the fake calls back to
// an address where nothing listens): the scheduler's polls find it paid, then keep asking about the
// completed payout (the adapter's watchAfterCompletionMs), find it REVERSED, give the merchant the
// money back and emit payment.reversed; a payout nobody reverses stops being asked about once the
// watch is over. Live, over real HTTP to the fake, on both databases.
// Run: NODE_ENV=test TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx --test test/rails/flutterwave-reversal-watch.test.ts
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, balanceMinor, databaseTargets, freePort, useTestServer } from '@tapline/sync-server/testing';
import { type FlutterwaveFake, SCENARIOS, startFlutterwaveFake } from '../fakes/flutterwave/index.ts';
import { until } from './until.ts';

type Payment = { paymentId: string; status: string; failureReason?: string };

for (const target of await databaseTargets()) {
  describe(`a Flutterwave reversal whose webhook was lost is found by asking on ${target.name}`, async () => {
    const port = await freePort();
    // Nothing listens here: every webhook the fake sends is lost.
    const deadPort = await freePort();
    const clock = new ManualClock(Date.now());
    let fake: FlutterwaveFake;
    const env: Record<string, string> = {};
    before(async () => {
      // Real-time waits long enough that the payout is seen paid before the fake reverses it (it
      // settles 4 s after the request and reverses 6 s after that).
      fake = await startFlutterwaveFake({ callbackBase: `http://127.0.0.1:${deadPort}/api/rails/flutterwave/webhook`, delayScale: 2 });
      Object.assign(env, fake.env);
    });
    after(async () => fake.stop());
    const server = useTestServer(target, {
      port,
      now: clock.now,
      env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RAIL_ROUTES: 'bank_transfer:NG=flutterwave', RAIL_TIMEOUT_MS: '2000' },
      app: { providerEnv: env },
    });

    let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
    before(async () => {
      merchant = await server().createMerchant({});
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100_000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
    });

    const pay = async (scenario: 'success' | 'reversal_after_success') => {
      const created = await server().request<Payment>('POST', '/api/pay', {
        headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode: 'NG', rail: 'bank_transfer', amount: 5000, currency: 'NGN', receiver: SCENARIOS[scenario].receiver, receiverName: 'Ada Obi', senderName: 'Shop' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.paymentId;
    };
    const payment = async (id: string) => (await server().request<Payment>('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).body;
    const events = async (id: string) =>
      (await server().db.query<{ type: string; body: string; created_at: Date }>('SELECT type, body, created_at FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchant.id]))
        .filter((event) => (JSON.parse(event.body) as { paymentId?: string }).paymentId === id)
        .map((event) => `${event.type}`);
    const eventTimes = async (id: string) =>
      (await server().db.query<{ type: string; body: string; created_at: Date }>("SELECT type, body, created_at FROM events WHERE merchant_id = $1 ORDER BY created_at, id", [merchant.id]))
        .filter((event) => (JSON.parse(event.body) as { paymentId?: string }).paymentId === id)
        .map((event) => `${event.type}@${new Date(event.created_at).toISOString()}:${event.body.slice(0, 300)}`);
    const nextStep = async (id: string) => (await server().db.query<{ next_step_at: Date | null }>('SELECT next_step_at FROM payments WHERE id = $1', [id]))[0]!.next_step_at;
    /** Moves the clock `ms` on and runs what is due. */
    const step = async (ms: number) => {
      clock.advance(ms);
      await server().context.payments.runOnce();
    };
    const settle = (id: string, status: string, stepMs: number) =>
      until(`${id} ${status}`, async () => {
        const now = await payment(id);
        if (now.status === status) return now;
        await step(stepMs);
        return undefined;
      });

    it('finds the payout paid without a webhook, then finds the reversal by asking again: the merchant is refunded once, payment.reversed emitted', async () => {
      const before = await balanceMinor(server(), merchant.handle.slice(1), 'NGN', 'live');
      const id = await pay('reversal_after_success');
      await settle(id, 'completed', 60_000);
      assert.deepEqual(await events(id), ['payment.completed']);
      assert.ok(await nextStep(id), 'a completed Flutterwave payout is still asked about');
      // The fake reverses it shortly after paying; the watch's next asks find that.
      await until('the fake reversed it', async () => (fake.payouts().find((payout) => payout.key === server().context.rails.adapters.get('flutterwave')!.keyOf(id))?.status === 'REVERSED' ? true : undefined));
      const reversed = await settle(id, 'reversed', 30 * 60_000);
      assert.match(reversed.failureReason ?? '', /reversed/i);
      // payment.completed was already there before the reversal (asserted above); the two may carry
      // the same timestamp on the injected clock, so their order in the table is not compared.
      assert.deepEqual((await events(id)).sort(), ['payment.completed', 'payment.reversed'], JSON.stringify(await eventTimes(id)));
      assert.equal(await balanceMinor(server(), merchant.handle.slice(1), 'NGN', 'live'), before, 'the merchant has the money back, once');
      assert.equal(await nextStep(id), null, 'a reversed payout is final: nothing more is asked');
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a payout nobody reverses is asked about for three days, the asks thinning out, then no more', async () => {
      const id = await pay('success');
      await settle(id, 'completed', 60_000);
      const asks: number[] = [];
      let at = await nextStep(id);
      while (at) {
        asks.push(at.getTime());
        clock.set(at.getTime());
        await server().context.payments.runOnce();
        at = await nextStep(id);
        assert.ok(asks.length < 200, 'the watch ends');
      }
      const completedAt = asks[0]!;
      assert.ok(clock.now().getTime() - completedAt >= 3 * 24 * 3_600_000 - 6 * 3_600_000, 'asked about for about three days');
      assert.ok(clock.now().getTime() - completedAt <= 3 * 24 * 3_600_000 + 6 * 3_600_000, 'and no longer');
      const gaps = asks.slice(1).map((time, index) => time - asks[index]!);
      assert.ok(gaps.at(-1)! > gaps[0]!, 'the asks thin out');
      assert.ok(gaps.every((gap) => gap <= 6 * 3_600_000), 'at most six hours apart');
      assert.equal((await payment(id)).status, 'completed');
      assert.deepEqual(await events(id), ['payment.completed']);
    });
  });
}
