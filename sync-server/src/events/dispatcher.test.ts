import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '@tapline/shared/webhook-signature';
import { databaseTargets } from '../testing/databases.ts';
import { ManualClock, WebhookReceiver } from '../testing/receiver.ts';
import { ADMIN, TEST_SECRETS_KEY_HEX, type TestServer, useTestServer } from '../testing/server.ts';
import { DELIVERY_ATTEMPTS_MAX, EventDispatcher, WEBHOOK_RETRY_DELAYS_MS, scaledRetryDelays } from './dispatcher.ts';
import { enqueueEvent } from './outbox.ts';

const MINUTE = 60_000;

async function emit(server: TestServer, merchantId: string, at: Date, fields: { mode?: 'test' | 'live'; type?: string; data?: Record<string, unknown>; targets?: { url: string; signatureFormat: 'hex' | 'sha256=' }[]; includeWebhook?: boolean } = {}) {
  return server.db.transaction((tx) =>
    enqueueEvent(tx, {
      merchantId,
      mode: fields.mode ?? 'test',
      type: fields.type ?? 'payment.completed',
      data: fields.data ?? { paymentId: 'pay_test', status: 'completed', amount: 12.5, currency: 'NGN' },
      at,
      ...(fields.targets ? { targets: fields.targets } : {}),
      ...(fields.includeWebhook === false ? { includeWebhook: false } : {}),
    }),
  );
}

async function deliveriesOf(server: TestServer, key: string, query = '') {
  const response = await server.request<{ data: Record<string, unknown>[]; total: number }>('GET', `/api/merchant/webhook-deliveries${query}`, { headers: { 'x-merchant-api-key': key } });
  assert.equal(response.status, 200);
  return response.body;
}

for (const target of await databaseTargets()) {
  describe(`event dispatcher on ${target.name}`, () => {
    const clock = new ManualClock(Date.parse('2026-10-01T08:00:00.000Z'));
    const server = useTestServer(target, { now: clock.now });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await receiver.close();
    });

    it('POSTs the exact stored body signed with the merchant secret; a receiver verifies it on the raw bytes', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const before = receiver.received.length;
      const event = await emit(server(), merchant.id, clock.now(), { data: { paymentId: 'pay_abc', status: 'completed', amount: 1234.5, currency: 'NGN', reference: 'naïve ✓' } });
      assert.match(event.id, /^evt_/);
      assert.equal(await server().context.events.runOnce(), 1);
      assert.equal(receiver.received.length, before + 1);
      const request = receiver.received.at(-1)!;
      assert.equal(request.method, 'POST');
      assert.equal(request.headers['content-type'], 'application/json');
      const signature = String(request.headers['x-service-signature']);
      assert.match(signature, /^[0-9a-f]{64}$/);
      // The receiver's check: HMAC over the raw bytes, constant-time, before parsing.
      assert.equal(verifySignature(merchant.webhookSecret, request.rawBody, signature), true);
      assert.equal(verifySignature('whsec_wrong', request.rawBody, signature), false);
      assert.equal(verifySignature(merchant.webhookSecret, Buffer.concat([request.rawBody, Buffer.from(' ')]), signature), false);
      assert.equal(request.rawBody.toString('utf8'), event.body);
      const body = JSON.parse(request.rawBody.toString('utf8'));
      assert.deepEqual(body, { id: event.id, event: 'payment.completed', paymentId: 'pay_abc', status: 'completed', amount: 1234.5, currency: 'NGN', reference: 'naïve ✓', timestamp: clock.now().toISOString() });

      const list = await deliveriesOf(server(), merchant.testKey);
      assert.equal(list.total, 1);
      const delivery = list.data[0]!;
      assert.equal(delivery.state, 'succeeded');
      assert.equal(delivery.eventId, event.id);
      assert.equal(delivery.event, 'payment.completed');
      assert.equal(delivery.attemptCount, 1);
      assert.equal(delivery.nextAttemptAt, null);
      assert.equal(delivery.payload, event.body);
      const attempts = delivery.attempts as { attempt: number; status: number; error: string | null }[];
      assert.deepEqual(attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.error]), [[1, 200, null]]);
      // Nothing is due any more.
      assert.equal(await server().context.events.runOnce(), 0);
    });

    it('retries a receiver that fails twice on the schedule; it gets the same event id three times', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const start = receiver.received.length;
      receiver.respond((n) => (n <= start + 2 ? (n === start + 1 ? 500 : 503) : 200));
      const event = await emit(server(), merchant.id, clock.now());
      const events = server().context.events;
      assert.equal(await events.runOnce(), 1);
      // The first retry is due one minute later, not before.
      clock.advance(MINUTE - 1);
      assert.equal(await events.runOnce(), 0);
      clock.advance(1);
      assert.equal(await events.runOnce(), 1);
      clock.advance(5 * MINUTE - 1);
      assert.equal(await events.runOnce(), 0);
      clock.advance(1);
      assert.equal(await events.runOnce(), 1);
      receiver.respond(() => 200);
      const got = receiver.received.slice(start);
      assert.equal(got.length, 3);
      const ids = got.map((request) => JSON.parse(request.rawBody.toString('utf8')).id);
      assert.deepEqual(ids, [event.id, event.id, event.id]);
      assert.ok(got.every((request) => request.rawBody.toString('utf8') === event.body));
      assert.ok(got.every((request) => verifySignature(merchant.webhookSecret, request.rawBody, String(request.headers['x-service-signature']))));
      const [delivery] = (await deliveriesOf(server(), merchant.testKey)).data;
      assert.equal(delivery!.state, 'succeeded');
      assert.equal(delivery!.attemptCount, 3);
      assert.deepEqual((delivery!.attempts as { status: number; error: string }[]).map((attempt) => [attempt.status, attempt.error]), [
        [500, 'http_status_500'],
        [503, 'http_status_503'],
        [200, null],
      ]);
    });

    it('gives up after the first attempt and 5 retries (1 min, 5 min, 30 min, 2 h, 24 h) and marks the delivery failed', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      receiver.respond(() => 500);
      const start = receiver.received.length;
      await emit(server(), merchant.id, clock.now());
      const events = server().context.events;
      assert.equal(await events.runOnce(), 1);
      for (const delay of WEBHOOK_RETRY_DELAYS_MS) {
        clock.advance(delay - 1);
        assert.equal(await events.runOnce(), 0, `not before ${delay} ms`);
        clock.advance(1);
        assert.equal(await events.runOnce(), 1, `after ${delay} ms`);
      }
      clock.advance(7 * 24 * 3600_000);
      assert.equal(await events.runOnce(), 0);
      receiver.respond(() => 200);
      assert.equal(receiver.received.length - start, DELIVERY_ATTEMPTS_MAX);
      const [delivery] = (await deliveriesOf(server(), merchant.testKey, '?state=failed')).data;
      assert.equal(delivery!.state, 'failed');
      assert.equal(delivery!.attemptCount, 6);
      assert.equal(delivery!.nextAttemptAt, null);
      assert.equal(delivery!.lastStatus, 500);
      const attemptTimes = (delivery!.attempts as { attemptedAt: string }[]).map((attempt) => Date.parse(attempt.attemptedAt));
      const gaps = attemptTimes.slice(1).map((time, index) => time - attemptTimes[index]!);
      assert.deepEqual(gaps, [...WEBHOOK_RETRY_DELAYS_MS]);
    });

    it('redelivers one delivery on request: a new attempt now, same event id; other merchants and modes get 404', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const other = await server().createMerchant({ webhookUrl: receiver.url });
      const event = await emit(server(), merchant.id, clock.now());
      await server().context.events.runOnce();
      const [delivery] = (await deliveriesOf(server(), merchant.testKey)).data;
      const start = receiver.received.length;
      const redelivered = await server().request('POST', `/api/merchant/webhook-deliveries/${delivery!.id}/redeliver`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(redelivered.status, 200);
      assert.equal(redelivered.body.attemptCount, 2);
      assert.equal(redelivered.body.state, 'succeeded');
      assert.equal((redelivered.body.attempts as unknown[]).length, 2);
      assert.equal(receiver.received.length, start + 1);
      assert.equal(JSON.parse(receiver.received.at(-1)!.rawBody.toString('utf8')).id, event.id);
      for (const key of [other.testKey, merchant.liveKey]) {
        const refused = await server().request('POST', `/api/merchant/webhook-deliveries/${delivery!.id}/redeliver`, { headers: { 'x-merchant-api-key': key } });
        assert.equal(refused.status, 404);
        assert.equal(refused.body.code, 'delivery_not_found');
        const read = await server().request('GET', `/api/merchant/webhook-deliveries/${delivery!.id}`, { headers: { 'x-merchant-api-key': key } });
        assert.equal(read.status, 404);
      }
      const anonymous = await server().request('GET', '/api/merchant/webhook-deliveries');
      assert.equal(anonymous.status, 401);
      assert.equal((await deliveriesOf(server(), other.testKey)).total, 0);
      assert.equal((await deliveriesOf(server(), merchant.liveKey)).total, 0);
    });

    it('signs with the current secret after a rotation and a POS callback target with sha256=', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      await emit(server(), merchant.id, clock.now(), { type: 'pos.session.completed', targets: [{ url: receiver.url, signatureFormat: 'sha256=' }], includeWebhook: false });
      const rotated = await server().request('PATCH', '/api/merchant/settings', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { rotateWebhookSecret: true } });
      const secret = String(rotated.body.webhookSecret);
      assert.notEqual(secret, merchant.webhookSecret);
      const start = receiver.received.length;
      assert.equal(await server().context.events.runOnce(), 1);
      const request = receiver.received[start]!;
      const signature = String(request.headers['x-service-signature']);
      assert.match(signature, /^sha256=[0-9a-f]{64}$/);
      assert.equal(verifySignature(secret, request.rawBody, signature), true);
      assert.equal(verifySignature(merchant.webhookSecret, request.rawBody, signature), false);
    });

    it('live mode refuses a private address: the attempt is recorded as failed and no request is made', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const start = receiver.received.length;
      await emit(server(), merchant.id, clock.now(), { mode: 'live' });
      assert.equal(await server().context.events.runOnce(), 1);
      assert.equal(receiver.received.length, start);
      const [delivery] = (await deliveriesOf(server(), merchant.liveKey)).data;
      assert.equal(delivery!.state, 'pending');
      assert.match(String(delivery!.lastError), /^address_not_allowed: 127\.0\.0\.1/);
      assert.equal((delivery!.attempts as unknown[]).length, 1);
      assert.equal(delivery!.nextAttemptAt, new Date(clock.now().getTime() + MINUTE).toISOString());
      // Out of the way of the tests that follow and move the clock.
      await server().db.query(`UPDATE event_deliveries SET state = 'failed' WHERE id = $1`, [String(delivery!.id)]);
    });

    it('a dispatcher that dies mid-delivery loses nothing: its claim runs out and another one delivers the same event', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const event = await emit(server(), merchant.id, clock.now());
      const timeoutMs = 10_000;
      // The first dispatcher's request never comes back: it is as good as dead once it has claimed.
      let claimedByFirst = false;
      const hangingFetch = (() => {
        claimedByFirst = true;
        return new Promise<Response>(() => undefined);
      }) as typeof fetch;
      const first = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: clock.now, retryDelaysMs: scaledRetryDelays(1), timeoutMs: 60 * MINUTE, pollIntervalMs: 1000, fetch: hangingFetch });
      void first.runOnce();
      while (!claimedByFirst) await new Promise((resolve) => setImmediate(resolve));
      const second = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: clock.now, retryDelaysMs: scaledRetryDelays(1), timeoutMs, pollIntervalMs: 1000 });
      // Claimed: another dispatcher leaves it alone while the claim lasts...
      assert.equal(await second.runOnce(), 0);
      const [claimed] = (await deliveriesOf(server(), merchant.testKey)).data;
      assert.equal(claimed!.state, 'delivering');
      // ...and takes it over once the claim has run out.
      clock.advance(60 * MINUTE + 5_000);
      const start = receiver.received.length;
      assert.equal(await second.runOnce(), 1);
      assert.equal(receiver.received.length, start + 1);
      assert.equal(JSON.parse(receiver.received.at(-1)!.rawBody.toString('utf8')).id, event.id);
      const [delivered] = (await deliveriesOf(server(), merchant.testKey)).data;
      assert.equal(delivered!.state, 'succeeded');
      assert.equal(delivered!.attemptCount, 1);
    });

    if (target.name === 'postgres') {
      it('a dispatcher process killed (SIGKILL) while its receiver holds the request loses nothing', async () => {
        const merchant = await server().createMerchant({ webhookUrl: receiver.url });
        const event = await emit(server(), merchant.id, new Date());
        const start = receiver.received.length;
        receiver.respond((n) => (n === start + 1 ? 'hang' : 200));
        const script = fileURLToPath(new URL('../testing/dispatcher-process.ts', import.meta.url));
        const child = spawn(process.execPath, ['--import', 'tsx', script, target.connectionString!, '10000'], { stdio: 'ignore', env: { ...process.env, SECRETS_KEY: TEST_SECRETS_KEY_HEX } });
        const exited = new Promise((resolve) => child.once('exit', resolve));
        await receiver.waitFor(start + 1);
        child.kill('SIGKILL');
        await exited;
        const [claimed] = (await deliveriesOf(server(), merchant.testKey)).data;
        assert.equal(claimed!.state, 'delivering');
        assert.equal(claimed!.attemptCount, 0);
        // The dead process's claim (real clock + 10 s + margin) runs out; a new dispatcher delivers.
        const restarted = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: () => new Date(Date.now() + 16_000), retryDelaysMs: scaledRetryDelays(1), timeoutMs: 10_000, pollIntervalMs: 1000 });
        assert.equal(await restarted.runOnce(), 1);
        receiver.respond(() => 200);
        assert.equal(receiver.received.length, start + 2);
        const ids = receiver.received.slice(start).map((request) => JSON.parse(request.rawBody.toString('utf8')).id);
        assert.deepEqual(ids, [event.id, event.id]);
        const [delivered] = (await deliveriesOf(server(), merchant.testKey)).data;
        assert.equal(delivered!.state, 'succeeded');
        assert.equal(delivered!.attemptCount, 1);
      });
    }

    it('times out a receiver that does not answer within the timeout and schedules the retry', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      await emit(server(), merchant.id, clock.now());
      const start = receiver.received.length;
      receiver.respond((n) => (n === start + 1 ? 'hang' : 200));
      const quick = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: clock.now, retryDelaysMs: scaledRetryDelays(0.001), timeoutMs: 200, pollIntervalMs: 1000 });
      assert.equal(await quick.runOnce(), 1);
      receiver.respond(() => 200);
      const [delivery] = (await deliveriesOf(server(), merchant.testKey)).data;
      assert.equal(delivery!.state, 'pending');
      assert.match(String(delivery!.lastError), /^timeout/);
      assert.equal(delivery!.nextAttemptAt, new Date(clock.now().getTime() + 60).toISOString());
      clock.advance(60);
      // The retry to a receiver that answers, with a timeout no loaded machine reaches (200 ms could be).
      const patient = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: clock.now, retryDelaysMs: scaledRetryDelays(0.001), timeoutMs: 60_000, pollIntervalMs: 1000 });
      assert.equal(await patient.runOnce(), 1);
      const [after] = (await deliveriesOf(server(), merchant.testKey)).data;
      assert.equal(after!.state, 'succeeded');
    });

    it('start() polls in the background until stop(), which waits for the run in flight', async () => {
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      const start = receiver.received.length;
      const background = new EventDispatcher({ db: server().db, secrets: server().context.secrets, now: clock.now, retryDelaysMs: scaledRetryDelays(1), timeoutMs: 1000, pollIntervalMs: 20 });
      await emit(server(), merchant.id, clock.now());
      background.start();
      await receiver.waitFor(start + 1);
      await background.stop();
      assert.equal(receiver.received.length, start + 1);
      const admin = await server().request('GET', `/api/admin/merchants/${merchant.id}`, { headers: ADMIN });
      assert.equal(admin.status, 200);
    });
  });
}

for (const target of await databaseTargets()) {
  describe(`webhook retries on a scaled schedule, in the background, on ${target.name}`, () => {
    // WEBHOOK_RETRY_SCALE=0.0001 turns 1 min, 5 min, 30 min... into 6 ms, 30 ms, 180 ms...
    const server = useTestServer(target, { backgroundJobs: true, env: { WEBHOOK_RETRY_SCALE: '0.0001', WEBHOOK_POLL_MS: '10', WEBHOOK_TIMEOUT_MS: '2000' } });
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(async () => {
      await receiver.close();
    });

    it('the app\'s dispatcher retries a receiver that fails twice and delivers the same event id on the third attempt', async () => {
      assert.deepEqual(scaledRetryDelays(server().config.webhookRetryScale), [6, 30, 180, 720, 8640]);
      const merchant = await server().createMerchant({ webhookUrl: receiver.url });
      receiver.respond((n) => (n <= 2 ? 500 : 204));
      const event = await emit(server(), merchant.id, new Date());
      await receiver.waitFor(3);
      const ids = receiver.bodies<{ id: string }>().map((body) => body.id);
      assert.deepEqual(ids, [event.id, event.id, event.id]);
      let delivery: Record<string, unknown> | undefined;
      for (const deadline = Date.now() + 60_000; delivery?.state !== 'succeeded' && Date.now() < deadline; ) {
        delivery = (await deliveriesOf(server(), merchant.testKey)).data[0];
        if (delivery?.state !== 'succeeded') await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(delivery!.state, 'succeeded');
      assert.deepEqual((delivery!.attempts as { status: number }[]).map((attempt) => attempt.status), [500, 500, 204]);
    });
  });
}
