// The client's own rules, without a server: webhook signatures against the server's signer,
// Retry-After in both forms, which failures are retried, the browser rule for secret keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createHmac } from 'node:crypto';
import type { TaplineError} from '../src/index.ts';
import { ConnectionError, DEFAULT_RETRY_POLICY, Tapline, WebhookSignatureError, isValidWebhookSignature, retryAfterSeconds, signWebhookPayload, verifyWebhook } from '../src/index.ts';
import { errorFromAnswer } from '../src/errors.ts';
import { backoffMs, retryDelayMs } from '../src/retry.ts';

const SECRET = 'whsec_0123456789abcdef';

/** What the server's dispatcher sends (shared/src/webhook-signature.ts), written out with node:crypto. */
function signPayload(secret: string, body: string, format: 'hex' | 'sha256=' = 'hex'): string {
  const digest = createHmac('sha256', secret).update(body).digest('hex');
  return format === 'hex' ? digest : `sha256=${digest}`;
}

describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', event: 'payment.completed', paymentId: 'pay_1', timestamp: '2026-11-24T10:15:03.000Z' });

  it('accept what the server signs, in both forms, and nothing else', async () => {
    assert.equal(await signWebhookPayload(SECRET, body), signPayload(SECRET, body));
    assert.equal(await signWebhookPayload(SECRET, body, 'sha256='), signPayload(SECRET, body, 'sha256='));
    assert.equal(await isValidWebhookSignature(body, signPayload(SECRET, body), SECRET), true);
    assert.equal(await isValidWebhookSignature(new TextEncoder().encode(body), signPayload(SECRET, body, 'sha256='), SECRET), true);
    for (const wrong of [undefined, null, '', 'sha256=', signPayload('other', body), signPayload(SECRET, `${body} `), signPayload(SECRET, body).toUpperCase(), `${signPayload(SECRET, body)}00`]) {
      assert.equal(await isValidWebhookSignature(body, wrong, SECRET), false, String(wrong));
    }
    const event = await verifyWebhook<{ paymentId: string }>(body, signPayload(SECRET, body), SECRET);
    assert.equal(event.paymentId, 'pay_1');
    await assert.rejects(verifyWebhook(body, 'nonsense', SECRET), (error: unknown) => error instanceof WebhookSignatureError && error.code === 'signature_invalid');
  });

  it('check the signed timestamp only when asked, within the tolerance', async () => {
    const signature = signPayload(SECRET, body);
    const at = (iso: string) => () => new Date(iso);
    await verifyWebhook(body, signature, SECRET, { toleranceSeconds: 300, now: at('2026-11-24T10:19:00.000Z') });
    await verifyWebhook(body, signature, SECRET, { now: at('2030-01-01T00:00:00.000Z') });
    for (const now of ['2026-11-24T10:20:04.000Z', '2026-11-24T10:10:00.000Z']) {
      await assert.rejects(verifyWebhook(body, signature, SECRET, { toleranceSeconds: 300, now: at(now) }), (error: unknown) => (error as TaplineError).code === 'timestamp_outside_tolerance');
    }
  });
});

describe('retries', () => {
  const policy = DEFAULT_RETRY_POLICY;
  const answer = (status: number, code: string, headers: Record<string, string> = {}) => errorFromAnswer(status, new Headers(headers), { error: 'x', code });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': '7' })), 7);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': new Date(Date.UTC(2026, 10, 24, 10, 0, 30)).toUTCString() }), Date.UTC(2026, 10, 24, 10, 0, 0)), 30);
    assert.equal(retryAfterSeconds(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(retryAfterSeconds(new Headers()), undefined);
  });

  it('retries lost answers, idempotency_in_progress, 429 after Retry-After and 5xx; nothing else', () => {
    assert.ok(retryDelayMs(policy, new ConnectionError('reset', { code: 'connection_error' }), 0)! >= 250);
    assert.ok(retryDelayMs(policy, answer(409, 'idempotency_in_progress'), 0)! > 0);
    assert.equal(retryDelayMs(policy, answer(409, 'session_not_pending'), 0), undefined);
    assert.equal(retryDelayMs(policy, answer(429, 'rate_limited', { 'retry-after': '2' }), 0), 2050);
    assert.equal(retryDelayMs(policy, answer(429, 'rate_limited', { 'retry-after': '3600' }), 0), undefined, 'longer than maxRetryAfterSeconds');
    assert.equal(retryDelayMs(policy, answer(429, 'pin_attempts_exceeded', { 'retry-after': '1' }), 0), undefined, 'a locked PIN is not retried');
    assert.ok(retryDelayMs(policy, answer(503, 'database_unavailable'), 0)! > 0);
    for (const status of [400, 401, 403, 404, 410, 422]) assert.equal(retryDelayMs(policy, answer(status, 'x'), 0), undefined, String(status));
  });

  it('backs off exponentially up to its ceiling, with jitter', () => {
    assert.equal(backoffMs(policy, 0, () => 0), 250);
    assert.equal(backoffMs(policy, 0, () => 1), 500);
    assert.equal(backoffMs(policy, 3, () => 1), 4000);
    assert.equal(backoffMs(policy, 10, () => 1), 8000);
  });

  it('sends one Idempotency-Key per POST, the same on every attempt, and gives up after maxRetries', async () => {
    const keys: (string | null)[] = [];
    const failing: typeof fetch = async (_input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      throw new TypeError('fetch failed');
    };
    const client = new Tapline({ baseUrl: 'http://127.0.0.1:9', apiKey: `mk_test_${'a'.repeat(64)}`, fetch: failing, retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } });
    await assert.rejects(client.request('post', '/api/pos/sessions', { body: { amount: 1, currency: 'NGN' } }), (error: unknown) => error instanceof ConnectionError && error.code === 'connection_error');
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 1);
    await assert.rejects(client.request('get', '/api/merchant/balance'), ConnectionError);
    assert.equal(keys.at(-1), null, 'a GET carries no Idempotency-Key');
  });
});

describe('credentials', () => {
  it('refuses a secret key where a page could read it, and accepts a publishable key there', () => {
    const scope = globalThis as { window?: unknown; document?: unknown };
    scope.window = {};
    scope.document = {};
    try {
      assert.throws(() => new Tapline({ baseUrl: 'http://127.0.0.1:9', apiKey: `mk_live_${'a'.repeat(64)}` }), /never be used in a browser/);
      assert.ok(new Tapline({ baseUrl: 'http://127.0.0.1:9', apiKey: `pk_test_${'a'.repeat(32)}` }));
    } finally {
      delete scope.window;
      delete scope.document;
    }
    assert.ok(new Tapline({ baseUrl: 'http://127.0.0.1:9', apiKey: `mk_live_${'a'.repeat(64)}` }), 'on a server a secret key is fine');
  });
});
