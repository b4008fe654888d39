// The rails' common machinery, provider-neutral: the route table, callback tokens, the
// scheduler's lookup before any resend and the public callback route. Each provider's adapter
// is tested against its fake in test/rails/; this suite drives a scripted adapter whose
// "provider" is an in-memory ledger of payouts, so every path is reached on purpose.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../config.ts';
import { checkLedger } from '../ledger/check.ts';
import { databaseTargets } from '../testing/databases.ts';
import { ManualClock } from '../testing/receiver.ts';
import { ADMIN, type TestServer, useTestServer } from '../testing/server.ts';
import { callbackTokens } from './registry.ts';
import { DEFAULT_ROUTES, RouteConfigError, parseRoutes, providersFor } from './routing.ts';
import type { CallbackVerdict, PayoutRequest, PayoutUpdate, RailAdapter, RailAdapterModule } from './types.ts';

describe('the route table', () => {
  it('sends Kenyan mobile money to M-Pesa (then Paystack), MTN markets to MoMo, Nigerian banks to Paystack, the rest to Flutterwave', () => {
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'mobile_money', 'KE'), ['mpesa', 'paystack', 'flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'mobile_money', 'UG'), ['momo', 'flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'mobile_money', 'GH'), ['momo', 'paystack', 'flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'mobile_money', 'TZ'), ['flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'bank_transfer', 'NG'), ['paystack', 'flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'bank_transfer', 'EG'), ['flutterwave']);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'cash_pickup', 'NG'), [], 'cash pickup is paid by the agent network, not a provider');
    // Rails that never leave Tapline, and countries a rail is not offered in, have no provider.
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'wallet', 'NG'), []);
    assert.deepEqual(providersFor(DEFAULT_ROUTES, 'mobile_money', 'US'), []);
  });

  it('RAIL_ROUTES replaces the entries it names and keeps the rest', () => {
    const table = parseRoutes('mobile_money:KE=flutterwave; bank_transfer:*=flutterwave,paystack');
    assert.deepEqual(providersFor(table, 'mobile_money', 'KE'), ['flutterwave']);
    assert.deepEqual(providersFor(table, 'bank_transfer', 'EG'), ['flutterwave', 'paystack']);
    assert.deepEqual(providersFor(table, 'bank_transfer', 'NG'), ['paystack', 'flutterwave']);
    assert.deepEqual(providersFor(table, 'mobile_money', 'UG'), ['momo', 'flutterwave']);
  });

  it('refuses a malformed RAIL_ROUTES by name, at start', () => {
    for (const [text, says] of [
      ['mobile_money=KE', 'must read'],
      ['wallet:NG=paystack', 'not a rail providers pay out on'],
      ['mobile_money:US=momo', 'not offered in US'],
      ['mobile_money:KE=stripe', 'unknown provider "stripe"'],
    ] as const) {
      assert.throws(() => parseRoutes(text), (error: unknown) => error instanceof RouteConfigError && error.message.includes(says), text);
      assert.throws(() => loadConfig({ RAIL_ROUTES: text }), (error: unknown) => error instanceof ConfigError && error.message.includes('RAIL_ROUTES'), text);
    }
  });
});

describe('callback tokens', () => {
  it('verify for their own purpose and id only, and differ by server key', () => {
    const tokens = callbackTokens(Buffer.alloc(32, 7));
    const token = tokens.callbackToken('mpesa-b2c', 'pay_1');
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(tokens.verifyCallbackToken('mpesa-b2c', 'pay_1', token), true);
    assert.equal(tokens.verifyCallbackToken('mpesa-b2c', 'pay_2', token), false);
    assert.equal(tokens.verifyCallbackToken('momo-disbursement', 'pay_1', token), false);
    assert.equal(tokens.verifyCallbackToken('mpesa-b2c', 'pay_1', token.slice(1)), false);
    assert.equal(tokens.verifyCallbackToken('mpesa-b2c', 'pay_1', ''), false);
    assert.notEqual(callbackTokens(Buffer.alloc(32, 8)).callbackToken('mpesa-b2c', 'pay_1'), token);
  });
});

/**
 * A provider kept in memory: what it paid, per key. `loseNextAnswer` makes the next submit pay and
 * then throw (the answer lost on the way back), as a timeout after the provider acted does.
 */
class ScriptedProvider {
  readonly paid = new Map<string, { times: number; request: PayoutRequest }>();
  submits = 0;
  lookups = 0;
  loseNextAnswer = false;
  callbackSecret = 'right-secret';

  module(): RailAdapterModule<{ secret: string }> {
    return scriptedModule(this);
  }
}

function scriptedModule(provider: ScriptedProvider): RailAdapterModule<{ secret: string }> {
  return {
    name: 'mpesa',
    envVars: ['MPESA_TEST_SECRET'],
    configFromEnv: (env) => (env.MPESA_TEST_SECRET ? { secret: env.MPESA_TEST_SECRET } : undefined),
    create: (config): RailAdapter => ({
      name: 'mpesa',
      supports: (rail, country) => rail === 'mobile_money' && country === 'KE',
      keyOf: (id) => `k-${id}`,
      idOf: (key) => (key.startsWith('k-') ? key.slice(2) : undefined),
      async submit(request) {
        provider.submits += 1;
        const entry = provider.paid.get(request.paymentId);
        if (entry) entry.times += 1;
        else provider.paid.set(request.paymentId, { times: 1, request });
        if (provider.loseNextAnswer) {
          provider.loseNextAnswer = false;
          throw new Error('The operation was aborted due to timeout');
        }
        return { status: 'processing', providerReference: `MP-${request.paymentId.slice(-6)}` };
      },
      async poll(request) {
        return provider.paid.has(request.paymentId) ? { status: 'processing', providerReference: `MP-${request.paymentId.slice(-6)}` } : { status: 'failed', failureReason: 'unknown' };
      },
      async lookup(request) {
        provider.lookups += 1;
        return provider.paid.has(request.paymentId) ? { status: 'processing', providerReference: `MP-${request.paymentId.slice(-6)}` } : undefined;
      },
      async callback(inbound) {
        let verdict: CallbackVerdict;
        if (inbound.headers['x-test-secret'] !== config.secret) verdict = { kind: 'refused', reason: 'bad secret' };
        else {
          try {
            const body = JSON.parse(inbound.rawBody.toString('utf8')) as { paymentId: string; update: PayoutUpdate };
            verdict = { kind: 'payout', paymentId: body.paymentId, update: body.update };
          } catch {
            verdict = { kind: 'refused', reason: 'not JSON' };
          }
        }
        return { verdict, reply: { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } } };
      },
    }),
  };
}

const BODY = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1000, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };

for (const target of await databaseTargets()) {
  describe(`rails: live payouts through a provider adapter on ${target.name}`, () => {
    const provider = new ScriptedProvider();
    const clock = new ManualClock(Date.parse('2026-11-03T09:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now, app: { railModules: [provider.module()], providerEnv: { MPESA_TEST_SECRET: provider.callbackSecret } } });

    async function liveMerchant(fund: number) {
      const merchant = await server().createMerchant({ webhookUrl: 'https://example.com/hooks' });
      const credited = await server().request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: fund, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      return merchant;
    }
    const pay = (key: string, body: Record<string, unknown> = BODY) =>
      server().request<{ paymentId: string; status: string; providerReference: string | null; timeline: { status: string; note?: string }[] }>('POST', '/api/pay', {
        headers: { 'x-merchant-api-key': key, 'idempotency-key': randomUUID() },
        body,
      });
    const payment = (id: string, key: string) =>
      server().request<{ status: string; providerReference: string | null; failureReason?: string; timeline: { status: string; note?: string }[] }>('GET', `/api/payments/${id}`, {
        headers: { 'x-merchant-api-key': key },
      });
    const callback = (test: TestServer, body: unknown, secret = provider.callbackSecret, path = '/api/rails/mpesa/b2c/result/pay_x/token') =>
      test.request<Record<string, unknown>>('POST', path, { headers: { 'x-test-secret': secret }, body });

    it('readiness names the configured provider', async () => {
      const ready = await server().request<{ providers: string[] }>('GET', '/api/health/ready');
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body.providers, ['mpesa']);
    });

    it('a route with no configured provider is still a 422 rail_unavailable before any debit', async () => {
      const merchant = await liveMerchant(5_000);
      const refused = await pay(merchant.liveKey, { ...BODY, toCode: 'UG', receiver: '+256772123456' });
      assert.equal(refused.status, 422);
      assert.equal((refused.body as unknown as { code: string }).code, 'rail_unavailable');
    });

    it('a live bank transfer names its bank, and a Nigerian account is a 10-digit NUBAN (400 before any debit)', async () => {
      const merchant = await liveMerchant(5_000);
      const bank = (receiver: unknown) => pay(merchant.liveKey, { ...BODY, toCode: 'NG', rail: 'bank_transfer', receiver });
      for (const [receiver, says] of [
        ['0123456789', 'needs the bank'],
        [{ accountNumber: '0123456789' }, 'needs the bank'],
        [{ accountNumber: '012345678', bankCode: '058' }, '10-digit NUBAN'],
      ] as const) {
        const refused = await bank(receiver);
        assert.equal(refused.status, 400, JSON.stringify(receiver));
        const body = refused.body as unknown as { code: string; error: string };
        assert.equal(body.code, 'receiver_invalid');
        assert.match(body.error, new RegExp(says));
      }
      // Complete, it passes the receiver check and meets the route table: no provider pays NG banks here.
      const complete = await bank({ accountNumber: '0123456789', bankCode: '058', branchCode: '001', accountType: 'current' });
      assert.equal(complete.status, 422);
      assert.equal((complete.body as unknown as { code: string }).code, 'rail_unavailable');
      const balance = await server().request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(balance.body.balances.find((entry) => entry.currency === 'NGN')?.available, 5_000);
    });

    it('an answer lost after the provider paid: the retry asks first and never pays twice; the callback completes it', async () => {
      const merchant = await liveMerchant(20_000);
      provider.loseNextAnswer = true;
      const created = await pay(merchant.liveKey);
      assert.equal(created.status, 201);
      assert.equal(created.body.status, 'pending', 'the provider answer was lost: still pending');
      const id = created.body.paymentId;
      assert.equal(provider.paid.get(id)?.times, 1);
      const lookupsBefore = provider.lookups;
      clock.advance(10 * 60_000);
      await server().context.payments.runOnce();
      assert.equal(provider.lookups, lookupsBefore + 1, 'asked the provider before any resend');
      assert.equal(provider.paid.get(id)?.times, 1, 'paid once');
      const processing = await payment(id, merchant.liveKey);
      assert.equal(processing.body.status, 'processing');
      assert.equal(processing.body.providerReference, `MP-${id.slice(-6)}`);
      assert.match(processing.body.timeline.at(-1)!.note ?? '', new RegExp(`Accepted by mpesa \\(reference MP-${id.slice(-6)}\\)`));

      const done = { paymentId: id, update: { status: 'completed', providerReference: `MP-${id.slice(-6)}` } };
      const first = await callback(server(), done);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, { ResultCode: 0, ResultDesc: 'Accepted' });
      const again = await callback(server(), done);
      assert.equal(again.status, 200, 'a duplicate is answered as the first');
      const completed = await payment(id, merchant.liveKey);
      assert.equal(completed.body.status, 'completed');
      assert.deepEqual(completed.body.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      const events = await server().db.query<{ type: string }>(`SELECT type FROM events WHERE merchant_id = $1 ORDER BY created_at`, [merchant.id]);
      assert.deepEqual(events.map((event) => event.type), ['payment.completed'], 'one event for two callbacks');

      // The provider reverses it later: the ledger transfer is reversed and payment.reversed emitted.
      const reversed = await callback(server(), { paymentId: id, update: { status: 'reversed', failureReason: 'Reversed by M-Pesa: wrong recipient' } });
      assert.equal(reversed.status, 200);
      const after = await payment(id, merchant.liveKey);
      assert.equal(after.body.status, 'reversed');
      assert.equal(after.body.failureReason, 'Reversed by M-Pesa: wrong recipient');
      const types = await server().db.query<{ type: string }>(`SELECT type FROM events WHERE merchant_id = $1 ORDER BY created_at`, [merchant.id]);
      assert.deepEqual(types.map((event) => event.type), ['payment.completed', 'payment.reversed']);
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('a callback before the submit\'s answer is recorded; the late answer changes nothing', async () => {
      const merchant = await liveMerchant(20_000);
      provider.loseNextAnswer = true;
      const created = await pay(merchant.liveKey);
      const id = created.body.paymentId;
      const failed = await callback(server(), { paymentId: id, update: { status: 'failed', failureReason: 'The M-Pesa account is not registered' } });
      assert.equal(failed.status, 200);
      clock.advance(10 * 60_000);
      await server().context.payments.runOnce();
      const final = await payment(id, merchant.liveKey);
      assert.equal(final.body.status, 'failed');
      assert.equal(final.body.failureReason, 'The M-Pesa account is not registered');
      // A contradicting late success does not undo a final state (reconciliation reports it).
      const late = await callback(server(), { paymentId: id, update: { status: 'completed' } });
      assert.equal(late.status, 200);
      assert.equal((await payment(id, merchant.liveKey)).body.status, 'failed');
      assert.deepEqual((await checkLedger(server().db)).violations, []);
    });

    it('refuses forged callbacks (401, counted) and answers 404 for a provider that is not configured', async () => {
      const merchant = await liveMerchant(5_000);
      const created = await pay(merchant.liveKey);
      const forged = await callback(server(), { paymentId: created.body.paymentId, update: { status: 'completed' } }, 'wrong-secret');
      assert.equal(forged.status, 401);
      assert.equal(forged.body.code, 'callback_refused');
      const garbage = await server().request<Record<string, unknown>>('POST', '/api/rails/mpesa/b2c/result/pay_x/token', { headers: { 'x-test-secret': provider.callbackSecret, 'content-type': 'text/plain' }, rawBody: 'not json' });
      assert.equal(garbage.status, 401);
      assert.notEqual((await payment(created.body.paymentId, merchant.liveKey)).body.status, 'completed');
      const other = await callback(server(), {}, provider.callbackSecret, '/api/rails/paystack/webhook');
      assert.equal(other.status, 404);
      assert.equal(other.body.code, 'rail_provider_not_configured');
      const metrics = await server().request<string>('GET', '/metrics', { headers: ADMIN });
      assert.match(String(metrics.body), /tapline_rail_callbacks_total\{provider="mpesa",verdict="refused"\} [1-9]/);
    });

    it('callbacks are not rate-limited per IP: a provider delivers every merchant\'s from a few addresses', async () => {
      const answers = await Promise.all(
        Array.from({ length: 150 }, () => callback(server(), { paymentId: 'pay_none', update: { status: 'completed' } }, 'wrong-secret')),
      );
      assert.deepEqual([...new Set(answers.map((answer) => answer.status))], [401], '150 refused as forged, none 429');
    });

    it('a payout still open past RAIL_ATTENTION_HOURS is listed for an operator and counted', async () => {
      const merchant = await liveMerchant(5_000);
      const created = await pay(merchant.liveKey);
      assert.equal(created.body.status, 'processing');
      const list = () =>
        server().request<{ data: { paymentId: string; merchantId: string; provider: string; status: string }[]; total: number }>('GET', '/api/admin/payments/attention?limit=100', { headers: ADMIN });
      assert.equal((await list()).body.data.some((row) => row.paymentId === created.body.paymentId), false, 'not yet');
      clock.advance(25 * 3_600_000);
      const listed = await list();
      assert.equal(listed.status, 200);
      const row = listed.body.data.find((entry) => entry.paymentId === created.body.paymentId);
      assert.deepEqual(row && { merchantId: row.merchantId, provider: row.provider, status: row.status }, { merchantId: merchant.id, provider: 'mpesa', status: 'processing' });
      assert.ok(listed.body.total >= 1);
      const metrics = await server().request<string>('GET', '/metrics', { headers: ADMIN });
      const counted = /tapline_payments_needing_attention (\d+)/.exec(String(metrics.body));
      assert.equal(Number(counted?.[1]), listed.body.total);
      const refused = await server().request<{ code: string }>('GET', '/api/admin/payments/attention', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(refused.status, 403);
    });
  });
}
