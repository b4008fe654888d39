import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, useTestServer } from '../testing/server.ts';

for (const target of await databaseTargets()) {
  describe(`errors, limits and documents on ${target.name}`, () => {
    const server = useTestServer(target, { env: { BODY_LIMIT_BYTES: '4096' } });

    it('answers 401 for a missing, malformed, unknown or wrong-kind credential', async () => {
      const { request } = server();
      const none = await request('GET', '/api/merchant/balance');
      assert.equal(none.status, 401);
      assert.deepEqual(none.body, { error: 'This endpoint needs a credential: a merchant API key', code: 'authentication_required' });
      const malformed = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': 'mk_test_123' } });
      assert.equal(malformed.status, 401);
      assert.equal(malformed.body.code, 'invalid_api_key');
      const unknown = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': `mk_live_${'a'.repeat(64)}` } });
      assert.equal(unknown.status, 401);
      assert.deepEqual(unknown.body, { error: 'Unknown API key', code: 'invalid_api_key' });
      const gibberish = await request('GET', '/api/merchant/balance', { headers: { authorization: 'Bearer hello' } });
      assert.equal(gibberish.status, 401);
      assert.equal(gibberish.body.code, 'invalid_credential');
      const badAdmin = await request('GET', '/api/admin/merchants', { headers: { authorization: 'Bearer admin.wrong' } });
      assert.equal(badAdmin.status, 401);
      assert.equal(badAdmin.body.code, 'invalid_admin_token');
    });

    it('answers 403 for a valid credential that may not call the route', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const response = await request('GET', '/api/admin/merchants', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, { error: 'A merchant credential cannot call this endpoint; it needs the admin token', code: 'credential_not_allowed' });
    });

    it('answers 400 with details for schema failures, malformed JSON and 413 for oversized bodies', async () => {
      const { request } = server();
      const invalid = await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle: 'x', country: 'NG', currency: 'NGN', pin: '12' } });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'validation_failed');
      assert.ok(Array.isArray(invalid.body.details) && invalid.body.details.length >= 1);
      const malformed = await request('POST', '/api/admin/wallets', { headers: { ...ADMIN, 'content-type': 'application/json' }, rawBody: '{"handle": ' });
      assert.equal(malformed.status, 400);
      assert.deepEqual(malformed.body, { error: 'The request body is not valid JSON', code: 'invalid_json' });
      const big = await request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle: 'x'.repeat(5000) } });
      assert.equal(big.status, 413);
      assert.deepEqual(big.body, { error: 'The request body is too large', code: 'payload_too_large' });
      const text = await request('POST', '/api/admin/wallets', { headers: { ...ADMIN, 'content-type': 'text/plain' }, rawBody: 'hi' });
      assert.equal(text.status, 415);
      assert.equal(text.body.code, 'unsupported_media_type');
    });

    it('answers 404 for unknown routes and unknown ids, with rate-limit headers', async () => {
      const { request } = server();
      const route = await request('GET', '/api/does-not-exist?x=1');
      assert.equal(route.status, 404);
      assert.deepEqual(route.body, { error: 'No route GET /api/does-not-exist', code: 'route_not_found' });
      assert.equal(route.headers.get('x-ratelimit-limit'), '120');
      const merchant = await request('GET', '/api/admin/merchants/mer_nope', { headers: ADMIN });
      assert.equal(merchant.status, 404);
      assert.equal(merchant.body.code, 'merchant_not_found');
    });

    it('puts X-RateLimit headers on /api answers and 429 with Retry-After past the limit', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey };
      const first = await request('GET', '/api/merchant/balance', { headers });
      assert.equal(first.headers.get('x-ratelimit-limit'), '120');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '119');
      const reset = Number(first.headers.get('x-ratelimit-reset'));
      assert.ok(reset > 0 && reset <= 60, `reset ${reset}`);
      const answers = await Promise.all(Array.from({ length: 125 }, () => request('GET', '/api/merchant/balance', { headers })));
      const limited = answers.filter((answer) => answer.status === 429);
      assert.equal(limited.length, 6);
      const sample = limited[0]!;
      assert.equal(sample.body.code, 'rate_limited');
      assert.equal(typeof sample.body.error, 'string');
      assert.ok(Number(sample.headers.get('retry-after')) >= 1);
      assert.equal(sample.headers.get('x-ratelimit-remaining'), '0');
      // The live key is another key: its own window.
      const live = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.liveKey } });
      assert.equal(live.status, 200);
      assert.equal(live.headers.get('x-ratelimit-remaining'), '119');
    });

    it('multiplies a merchant\'s limits by its rateLimitMultiplier', async () => {
      const { request, createMerchant } = server();
      const merchant = await createMerchant();
      const patched = await request('PATCH', `/api/admin/merchants/${merchant.id}`, { headers: ADMIN, body: { rateLimitMultiplier: 10 } });
      assert.equal(patched.body.rateLimitMultiplier, 10);
      const answer = await request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(answer.headers.get('x-ratelimit-limit'), '1200');
      const tooBig = await request('PATCH', `/api/admin/merchants/${merchant.id}`, { headers: ADMIN, body: { rateLimitMultiplier: 1001 } });
      assert.equal(tooBig.status, 400);
    });

    it('serves health, the OpenAPI document and Swagger UI', async () => {
      const { request } = server();
      const health = await request('GET', '/api/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.ok, true);
      assert.equal(typeof health.body.uptime, 'number');
      assert.ok(typeof health.body.dbLatency === 'number' && health.body.dbLatency >= 0);
      const doc = await request<{ openapi: string; paths: Record<string, unknown> }>('GET', '/docs/json');
      assert.equal(doc.status, 200);
      assert.equal(doc.body.openapi, '3.1.0');
      for (const path of ['/api/admin/merchants', '/api/merchant/keys/rotate', '/api/wallet/sessions', '/api/health']) assert.ok(path in doc.body.paths, path);
      const ui = await fetch(`${server().baseUrl}/docs/`);
      assert.equal(ui.status, 200);
      assert.match(await ui.text(), /swagger/i);
    });

    it('limits repeated invalid admin tokens per IP but never a valid admin', async () => {
      const { request } = server();
      const answers = await Promise.all(Array.from({ length: 125 }, () => request('GET', '/api/admin/merchants', { headers: { authorization: 'Bearer admin.guess' } })));
      assert.ok(answers.some((answer) => answer.status === 429));
      assert.ok(answers.filter((answer) => answer.status === 401).length <= 120);
      const valid = await request('GET', '/api/admin/merchants', { headers: ADMIN });
      assert.equal(valid.status, 200);
    });

    it('never limits liveness and readiness, even once the public budget of their address is spent', async () => {
      const { request } = server();
      // Every anonymous caller at this address (127.0.0.1: all visitors behind one proxy) spends one budget.
      let spent = false;
      for (let index = 0; index < 130 && !spent; index++) spent = (await request('GET', '/api/store/products')).status === 429;
      assert.ok(spent, 'the public budget of 120 a minute was spent');
      const limited = await request('GET', '/api/store/products');
      assert.equal(limited.status, 429);
      assert.equal(limited.body.code, 'rate_limited');
      for (let index = 0; index < 3; index++) {
        const live = await request('GET', '/api/health');
        assert.equal(live.status, 200, JSON.stringify(live.body));
        assert.equal(live.body.ok, true);
        assert.equal(live.headers.get('x-ratelimit-limit'), null, 'not counted');
        const ready = await request('GET', '/api/health/ready?probe=1');
        assert.equal(ready.status, 200, JSON.stringify(ready.body));
        assert.equal(ready.body.ready, true);
      }
      // The probes did not lift the limit for the rest of the API either.
      assert.equal((await request('GET', '/api/store/products')).status, 429);
    });
  });
}
