// Live payouts end to end, per provider and on both databases: POST /api/pay with a live key,
// through the route table to the provider's adapter, over real HTTP to the provider's local fake,
// its callbacks back to /api/rails/<provider>/..., the scheduler's polls and lookups. The fakes
// count what they paid, so "never twice" is checked where the money leaves.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, ManualClock, type TestServer, databaseTargets, freePort, useTestServer } from '@tapline/sync-server/testing';
import { PROVIDERS, type RunningFake, type ScenarioName } from './providers.ts';
import { until } from './until.ts';

/** The fakes' waits scaled down: settling ~50 ms, no_answer holds ~1.5 s; the adapters give up after 500 ms. */
const DELAY_SCALE = 0.05;
const RAIL_TIMEOUT_MS = 500;

type Payment = { paymentId: string; status: string; providerReference: string | null; failureReason?: string; timeline: { status: string; note?: string }[] };

for (const target of await databaseTargets()) {
  for (const provider of PROVIDERS) {
    const port = await freePort();
    describe(`live payouts through ${provider.name} (its fake) on ${target.name}`, () => {
      const publicBaseUrl = `http://127.0.0.1:${port}`;
      const clock = new ManualClock(Date.now());
      // Every (rail, country) of the fake's scenarios goes to this provider.
      const routes = [...new Set(Object.values(provider.scenarios).map((scenario) => `${scenario.rail}:${scenario.toCode}`))].map((key) => `${key}=${provider.name}`).join(';');
      let fake: RunningFake;
      const env: Record<string, string> = {};
      before(async () => {
        fake = await provider.start(publicBaseUrl, DELAY_SCALE);
        Object.assign(env, fake.env);
      });
      after(async () => {
        await fake.stop();
      });
      const server = useTestServer(target, {
        port,
        now: clock.now,
        env: { PUBLIC_BASE_URL: publicBaseUrl, RAIL_ROUTES: routes, RAIL_TIMEOUT_MS: String(RAIL_TIMEOUT_MS) },
        app: { providerEnv: env },
      });

      let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
      before(async () => {
        merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
        for (const currency of ['NGN', 'KES']) {
          const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1_000_000, currency, mode: 'live' } });
          assert.equal(credited.status, 200);
        }
      });

      const pay = async (scenario: ScenarioName) => {
        const { rail, toCode, receiver } = provider.scenarios[scenario];
        const created = await server().request<Payment>('POST', '/api/pay', {
          headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
          body: { fromCode: 'NG', toCode, rail, amount: 5000, currency: provider.payCurrency, receiver, receiverName: 'Ada Obi', senderName: 'Shop' },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      };
      const payment = async (id: string) => (await server().request<Payment>('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).body;
      /** Polls and lookups are due again: the clock moves past the next poll and any backoff. */
      const step = async () => {
        clock.advance(5 * 60_000);
        await server().context.payments.runOnce();
      };
      /** Steps the scheduler until the payment is in `status` (callbacks may get there first). */
      const settle = (id: string, status: string) =>
        until(`${id} ${status}`, async () => {
          const now = await payment(id);
          if (now.status === status) return now;
          await step();
          return undefined;
        });
      /** Callbacks from this provider the server took in (applied, or unchanged: a duplicate), from its metrics. */
      const callbacksHeard = async () => {
        const metrics = String((await server().request<string>('GET', '/metrics', { headers: ADMIN })).body);
        return ['applied', 'unchanged']
          .map((verdict) => metrics.split('\n').find((line) => line.startsWith(`tapline_rail_callbacks_total{provider="${provider.name}",verdict="${verdict}"}`)))
          .reduce((sum, line) => sum + (line ? Number(line.split(' ').pop()) : 0), 0);
      };
      const keyOf = (id: string) => server().context.rails.adapters.get(provider.name)!.keyOf(id);
      const paid = (id: string) => fake.paidTimes().get(keyOf(id)) ?? 0;
      const events = async (id: string) =>
        (await server().db.query<{ type: string; body: string }>(`SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at`, [merchant.id]))
          .filter((event) => (JSON.parse(event.body) as { paymentId?: string }).paymentId === id)
          .map((event) => event.type);

      it('readiness names the provider', async () => {
        const ready = await server().request<{ providers: string[] }>('GET', '/api/health/ready');
        assert.deepEqual(ready.body.providers, [provider.name]);
      });

      it('success: paid once at the provider, completed, one payment.completed, the reference on the timeline', async () => {
        const created = await pay('success');
        const done = await settle(created.paymentId, 'completed');
        assert.equal(paid(created.paymentId), 1);
        assert.ok(done.providerReference, 'the provider reference is recorded');
        assert.ok(done.timeline.some((entry) => entry.note?.includes(`(reference ${done.providerReference})`)), JSON.stringify(done.timeline));
        assert.deepEqual(await events(created.paymentId), ['payment.completed']);
      });

      it('failure and an invalid account: failed with a reason, nothing paid, the merchant refunded', async () => {
        for (const scenario of ['failure', 'invalid_account'] as const) {
          const created = await pay(scenario);
          const failed = await settle(created.paymentId, 'failed');
          assert.ok(failed.failureReason && failed.failureReason.length > 5, `${scenario}: ${failed.failureReason}`);
          assert.equal(paid(created.paymentId), 0, scenario);
          assert.deepEqual(await events(created.paymentId), ['payment.failed']);
        }
      });

      it('no answer in time: the outcome is unknown, the retry asks the provider first, paid exactly once', async () => {
        const created = await pay('no_answer');
        assert.equal(created.status, 'pending', 'the submit timed out: nothing is known yet');
        // The fake pays once it has held the request; then the scheduler's retry looks it up.
        await until('the fake paid', async () => (paid(created.paymentId) > 0 ? true : undefined));
        const done = await settle(created.paymentId, 'completed');
        assert.equal(paid(created.paymentId), 1);
        assert.equal(done.status, 'completed');
      });

      it('a 5xx, then success: paid exactly once', async () => {
        const created = await pay('error_then_success');
        await settle(created.paymentId, 'completed');
        assert.equal(paid(created.paymentId), 1);
      });

      it('the callback lost: polling finds the outcome', async () => {
        const created = await pay('callback_lost');
        await settle(created.paymentId, 'completed');
        assert.equal(paid(created.paymentId), 1);
      });

      it('a duplicate callback changes nothing', async () => {
        const heardBefore = await callbacksHeard();
        const created = await pay('duplicate_callback');
        await settle(created.paymentId, 'completed');
        // Both callbacks have been taken in (applied, or unchanged when a poll got there first); still one event.
        await until('both callbacks heard', async () => ((await callbacksHeard()) >= heardBefore + 2 ? true : undefined));
        assert.deepEqual(await events(created.paymentId), ['payment.completed']);
        assert.equal(paid(created.paymentId), 1);
      });

      it('a reversal after success reverses the ledger transfer and emits payment.reversed', async () => {
        const created = await pay('reversal_after_success');
        const reversed = await settle(created.paymentId, 'reversed');
        assert.ok(reversed.failureReason);
        assert.deepEqual(await events(created.paymentId), ['payment.completed', 'payment.reversed']);
        assert.deepEqual((await checkLedger(server().db)).violations, []);
      });

      it('a forged callback is refused and changes nothing', async () => {
        const created = await pay('callback_lost');
        const forged = await server().request<{ code: string }>('POST', `/api/rails/${provider.name}/webhook`, {
          headers: { 'x-paystack-signature': 'f'.repeat(128), 'verif-hash': 'wrong' },
          body: { event: 'transfer.success', data: { reference: keyOf(created.paymentId), status: 'success' } },
        });
        assert.equal(forged.status, 401);
        assert.equal(forged.body.code, 'callback_refused');
        assert.notEqual((await payment(created.paymentId)).status, 'completed');
        assert.deepEqual((await checkLedger(server().db)).violations, []);
      });
    });
  }
}
