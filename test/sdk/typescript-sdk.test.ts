// The TypeScript SDK (sdk/typescript) against a real server over HTTP, on each database: a
// sandbox payment whose answer is lost and retried without a second charge, polled to its end;
// its webhook received and verified; a POS session paid by a tag tap; pages iterated; a 429
// waited out after its Retry-After; typed errors carrying the API's code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ADMIN,
  type TestServer,
  WebhookReceiver,
  balanceMinor,
  databaseTargets,
  uniqueHandle,
  useTestServer,
} from '@tapline/sync-server/testing';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  RateLimitError,
  type RetryEvent,
  Tapline,
  WebhookSignatureError,
  verifyWebhook,
} from '../../sdk/typescript/src/index.ts';
import { heldBiller } from './held-biller.ts';

/** Every limit is 1 per 2-second window, so one merchant meets 429s; the others get a multiplier. */
const SERVER = {
  backgroundJobs: true,
  rateLimitScale: 0.001,
  env: { SANDBOX_STEP_MS: '100', SCHEDULER_POLL_MS: '20', WEBHOOK_POLL_MS: '50', RATE_LIMIT_WINDOW_SECONDS: '2', POS_SWEEP_INTERVAL_MS: '0' },
};
const FAST_RETRIES = { initialDelayMs: 20, maxDelayMs: 200 };

/** A merchant whose key is not slowed by the suite's tiny rate limits. */
async function merchantWithRoom(s: TestServer, webhookUrl?: string) {
  const merchant = await s.createMerchant(webhookUrl ? { webhookUrl } : {});
  const raised = await s.request('PATCH', `/api/admin/merchants/${merchant.id}`, { headers: ADMIN, body: { rateLimitMultiplier: 1000 } });
  assert.equal(raised.status, 200);
  return merchant;
}

for (const target of await databaseTargets()) {
  describe(`TypeScript SDK against the server on ${target.name}`, () => {
    const biller = heldBiller();
    const server = useTestServer(target, { ...SERVER, app: { billerProviders: [biller.provider] } });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await receiver.close();
    });

    it('a sandbox payment: its answer lost, retried with the same Idempotency-Key, charged once, polled to completed, its webhook verified', async () => {
      const s = server();
      const merchant = await merchantWithRoom(s, receiver.url);
      const before = await balanceMinor(s, merchant.handle, 'NGN');
      let lost: { id: string } | undefined;
      const sentKeys: string[] = [];
      // The first POST /api/pay reaches the server and is answered, but the answer never comes
      // back: the connection drops, as a mobile network does.
      const losingFetch: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === 'POST' && String(input).endsWith('/api/pay')) {
          sentKeys.push(new Headers(init.headers).get('idempotency-key') ?? '');
          if (!lost) {
            lost = (await response.json()) as { id: string };
            throw new TypeError('fetch failed: socket hang up');
          }
        }
        return response;
      };
      const retries: RetryEvent[] = [];
      const client = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey, fetch: losingFetch, retry: FAST_RETRIES, onRetry: (event) => retries.push(event) });
      const answer = await client.raw('post', '/api/pay', {
        body: { fromCode: 'NG', toCode: 'NG', rail: 'mobile_money', amount: 2500, currency: 'NGN', receiver: '+2348012345678', reference: 'sdk-order-1' },
      });
      assert.equal(answer.status, 201);
      assert.equal(answer.attempts, 2);
      assert.equal(answer.headers.get('idempotent-replayed'), 'true');
      assert.equal(retries.length, 1);
      assert.equal(retries[0]!.error.code, 'connection_error');
      assert.equal(sentKeys.length, 2);
      assert.equal(sentKeys[0], sentKeys[1], 'the retry carries the same Idempotency-Key');
      assert.match(sentKeys[0]!, /^[0-9a-f-]{36}$/);
      const payment = answer.data;
      assert.equal(payment.id, lost!.id, 'the retry answers the payment the lost answer carried');
      // One charge: amount + fee, once.
      const charged = before - (await balanceMinor(s, merchant.handle, 'NGN'));
      assert.equal(charged, Math.round((payment.amount + payment.fee) * 100));
      const list = await client.payments.list();
      assert.equal(list.total, 1);

      const updates: string[] = [];
      const completed = await client.payments.waitForOutcome(payment.id, { intervalMs: 50, timeoutMs: 20_000, onUpdate: (p) => updates.push(p.status) });
      assert.equal(completed.status, 'completed');
      assert.deepEqual(completed.timeline.map((entry) => entry.status), ['pending', 'processing', 'completed']);
      assert.equal(updates.at(-1), 'completed');

      // Its payment.completed event, verified on the raw body with the merchant's secret.
      const deadline = Date.now() + 60_000;
      let delivery: (typeof receiver.received)[number] | undefined;
      while (!delivery && Date.now() < deadline) {
        delivery = receiver.received.find((request) => request.rawBody.toString().includes(payment.id) && request.rawBody.toString().includes('"payment.completed"'));
        if (!delivery) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(delivery, 'payment.completed was delivered');
      const signature = delivery.headers['x-service-signature'] as string;
      const event = await verifyWebhook<{ id: string; event: string; paymentId: string; status: string; timestamp: string }>(delivery.rawBody, signature, merchant.webhookSecret, { toleranceSeconds: 300 });
      assert.equal(event.event, 'payment.completed');
      assert.equal(event.paymentId, payment.id);
      assert.match(event.id, /^evt_/);
      const viaClient = await client.webhooks.verify(delivery.rawBody.toString('utf8'), signature, merchant.webhookSecret);
      assert.equal(viaClient.id, event.id);
      const tampered = delivery.rawBody.toString('utf8').replace('"completed"', '"failed"');
      await assert.rejects(verifyWebhook(tampered, signature, merchant.webhookSecret), (error: unknown) => error instanceof WebhookSignatureError && error.code === 'signature_invalid');
      await assert.rejects(verifyWebhook(delivery.rawBody, signature, 'whsec_not_the_secret'), WebhookSignatureError);
      const tomorrow = () => new Date(Date.parse(event.timestamp) + 86_400_000);
      await assert.rejects(verifyWebhook(delivery.rawBody, signature, merchant.webhookSecret, { toleranceSeconds: 300, now: tomorrow }), (error: unknown) => (error as WebhookSignatureError).code === 'timestamp_outside_tolerance');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a bill payment still running when its retry arrives: 409 idempotency_in_progress is retried with the same key until the first answer, charged once', async () => {
      const s = server();
      const merchant = await merchantWithRoom(s);
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 5000, currency: 'KES', mode: 'live' } });
      assert.equal(credited.status, 200);
      const held = biller.holdNext();
      const callsBefore = biller.calls();
      const sent: { key: string; status?: number; code?: string }[] = [];
      let first: Promise<Response> | undefined;
      // The first attempt reaches the server, which claims its Idempotency-Key and waits on the
      // biller; the client gives up on it (its connection drops) while it is still running.
      const droppingFetch: typeof fetch = async (input, init) => {
        const isBill = init?.method === 'POST' && String(input).endsWith('/api/bills/pay');
        if (isBill && !first) {
          sent.push({ key: new Headers(init.headers).get('idempotency-key') ?? '' });
          first = fetch(input, init);
          await held.entered;
          throw new TypeError('fetch failed: connection reset');
        }
        const response = await fetch(input, init);
        if (isBill) sent.push({ key: new Headers(init.headers).get('idempotency-key') ?? '', status: response.status, code: response.status === 409 ? ((await response.clone().json()) as { code: string }).code : undefined });
        return response;
      };
      const retries: RetryEvent[] = [];
      const client = new Tapline({
        baseUrl: s.baseUrl,
        apiKey: merchant.liveKey,
        fetch: droppingFetch,
        retry: { ...FAST_RETRIES, maxRetries: 8 },
        onRetry: (event) => {
          retries.push(event);
          // The first attempt finishes once its retry has been told it is still in progress.
          if (event.error.code === 'idempotency_in_progress') held.release();
        },
      });
      const answer = await client.raw('post', '/api/bills/pay', { body: { billType: 'electricity', billerId: 'kplc-prepaid', accountRef: '14123456789', amount: 1000 } });
      assert.equal(answer.status, 201);
      assert.equal(answer.headers.get('idempotent-replayed'), 'true', 'the retry answers the first request\'s result');
      // A dropped connection, then one or more 409s (the first attempt may take a moment to finish once released), then the answer.
      const codes = retries.map((event) => event.error.code);
      assert.equal(codes[0], 'connection_error');
      assert.ok(codes.length >= 2 && codes.slice(1).every((code) => code === 'idempotency_in_progress'), codes.join(', '));
      assert.equal(answer.attempts, codes.length + 1);
      assert.deepEqual(sent.map((attempt) => [attempt.status, attempt.code]), [[undefined, undefined], ...codes.slice(1).map(() => [409, 'idempotency_in_progress']), [201, undefined]]);
      assert.equal(new Set(sent.map((attempt) => attempt.key)).size, 1, 'every attempt carries the same Idempotency-Key');
      const original = await first!;
      assert.equal(original.status, 201);
      const bill = (await original.json()) as { id: string; status: string };
      assert.equal(answer.data.id, bill.id);
      assert.equal(answer.data.status, 'completed');
      // Charged once: the biller was asked once, the wallet debited amount + fee once.
      assert.equal(biller.calls() - callsBefore, 1);
      const balance = await s.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(balance.body.balances.find((entry) => entry.currency === 'KES')?.available, 5000 - 1000 - (answer.data.fee ?? 0));
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a POS session paid by a tag tap: the outcome by polling and by the signed callback', async () => {
      const s = server();
      const merchant = await merchantWithRoom(s);
      const handle = uniqueHandle('ada');
      await s.createWallet({ handle, fund: 100 });
      const client = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey, keyHeader: 'authorization', retry: FAST_RETRIES });
      const tag = await client.request('post', '/api/wearables', { body: { handle, tagType: 'ring', displayName: 'Ada ring' } });
      assert.match(tag.tagId, /^TG[0-9A-F]{8}$/);

      const outcomes: string[] = [];
      const session = await client.pos.charge(
        { amount: 12.5, currency: 'NGN', description: 'Suya', callbackUrl: `${receiver.url}/pos` },
        {
          intervalMs: 50,
          // The terminal's reader sees the ring: the tap is posted while charge() polls.
          onCreated: (created) => void client.pos.tap(created.sessionId, { tagId: tag.tagId }),
          onOutcome: (ended) => outcomes.push(ended.status),
        },
      );
      assert.equal(session.status, 'completed');
      assert.equal(session.payerHandle, `@${handle}`);
      assert.deepEqual(outcomes, ['completed']);
      assert.equal(await balanceMinor(s, handle, 'NGN'), 10_000 - 1250);
      const again = await client.pos.waitForOutcome(session.sessionId, { intervalMs: 50 });
      assert.equal(again.walletRef, session.walletRef);

      const deadline = Date.now() + 60_000;
      let callback: (typeof receiver.received)[number] | undefined;
      while (!callback && Date.now() < deadline) {
        callback = receiver.received.find((request) => request.path === '/hooks/pos' && request.rawBody.toString().includes(session.sessionId));
        if (!callback) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(callback, 'the session\'s callbackUrl was called');
      const signature = callback.headers['x-service-signature'] as string;
      assert.match(signature, /^sha256=[0-9a-f]{64}$/);
      const event = await verifyWebhook<{ event: string; sessionId: string; payerHandle: string }>(callback.rawBody, signature, merchant.webhookSecret);
      assert.equal(event.event, 'pos.session.completed');
      assert.equal(event.sessionId, session.sessionId);

      // A tap of another tag on the settled session: 409 session_not_pending, typed.
      await assert.rejects(client.pos.tap(session.sessionId, { tagId: 'TG00000000' }), (error: unknown) => error instanceof ConflictError && error.code === 'session_not_pending' && error.status === 409);
    });

    it('iterates pages of a list', async () => {
      const s = server();
      const merchant = await merchantWithRoom(s);
      let gets = 0;
      const counting: typeof fetch = (input, init) => {
        if ((init?.method ?? 'GET') === 'GET') gets += 1;
        return fetch(input, init);
      };
      const client = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey, fetch: counting });
      const created: string[] = [];
      for (let index = 0; index < 5; index += 1) created.push((await client.pos.createSession({ amount: 1 + index, currency: 'NGN' })).sessionId);
      const seen: string[] = [];
      for await (const session of client.paginate('/api/pos/sessions', { pageSize: 2 })) seen.push(session.sessionId);
      assert.equal(gets, 3, 'pages of 2, 2 and 1');
      assert.deepEqual([...seen].sort(), [...created].sort());
      assert.deepEqual(seen, [...created].reverse(), 'newest first');
    });

    it('waits out a 429 for its Retry-After and carries on; throws RateLimitError when told not to retry', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const retries: RetryEvent[] = [];
      const client = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey, onRetry: (event) => retries.push(event) });
      const started = Date.now();
      for (let index = 0; index < 3; index += 1) {
        const balance = await client.request('get', '/api/merchant/balance');
        assert.equal(balance.handle, merchant.handle);
      }
      const limited = retries.filter((event) => event.error.status === 429);
      assert.ok(limited.length >= 1, 'the limit was met');
      for (const event of limited) {
        assert.equal(event.error.code, 'rate_limited');
        const retryAfter = Number(event.error.headers?.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 2, `Retry-After ${retryAfter}`);
        assert.ok(event.delayMs >= retryAfter * 1000, `waited ${event.delayMs} ms for Retry-After ${retryAfter}`);
      }
      assert.ok(Date.now() - started >= 1000);
      await client.request('get', '/api/merchant/balance', { maxRetries: 0 }).catch(() => undefined);
      await assert.rejects(client.request('get', '/api/merchant/balance', { maxRetries: 0 }), (error: unknown) => error instanceof RateLimitError && error.code === 'rate_limited' && (error.retryAfterSeconds ?? 0) >= 1);
    });

    it('answers typed errors carrying the API\'s code; both key headers work', async () => {
      const s = server();
      const merchant = await merchantWithRoom(s);
      const viaHeader = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey });
      const viaBearer = new Tapline({ baseUrl: s.baseUrl, apiKey: merchant.testKey, keyHeader: 'authorization' });
      assert.equal((await viaHeader.request('get', '/api/merchant/balance')).handle, merchant.handle);
      assert.equal((await viaBearer.request('get', '/api/merchant/balance')).handle, merchant.handle);
      await assert.rejects(viaHeader.payments.retrieve('pay_unknown'), (error: unknown) => error instanceof NotFoundError && error.code === 'payment_not_found');
      const stranger = new Tapline({ baseUrl: s.baseUrl, apiKey: `mk_test_${'0'.repeat(64)}` });
      await assert.rejects(stranger.request('get', '/api/merchant/balance'), (error: unknown) => error instanceof AuthenticationError && error.code === 'invalid_api_key');
      // Two concurrent calls with one Idempotency-Key: one payment, the same answer to both.
      const body = { fromCode: 'NG', toCode: 'NG', rail: 'mobile_money', amount: 10, currency: 'NGN', receiver: '+2348012345678' } as const;
      const [first, second] = await Promise.all([
        viaHeader.payments.create(body, { idempotencyKey: 'sdk-concurrent-1' }),
        viaBearer.payments.create(body, { idempotencyKey: 'sdk-concurrent-1' }),
      ]);
      assert.equal(first.id, second.id);
      assert.equal((await viaHeader.payments.list()).total, 1);
    });
  });
}
