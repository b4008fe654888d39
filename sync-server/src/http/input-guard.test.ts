import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../testing/server.ts';
import { findUnstorableText } from './input-guard.ts';
import { JSON_DEPTH_MAX, jsonDeeperThan } from './json-body.ts';

const PAYMENT = { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 1, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiku Kamau' };

describe('jsonDeeperThan', () => {
  it('counts nesting in one pass, ignoring brackets inside strings', () => {
    assert.equal(jsonDeeperThan('{"a":[1,{"b":2}]}', 3), false);
    assert.equal(jsonDeeperThan('{"a":[1,{"b":2}]}', 2), true);
    assert.equal(jsonDeeperThan('{"a":"[[[[{{{{"}', 1), false);
    assert.equal(jsonDeeperThan('{"a":"\\"[[[["}', 1), false);
    assert.equal(jsonDeeperThan('['.repeat(1_000_000), JSON_DEPTH_MAX), true);
  });
});

describe('findUnstorableText', () => {
  it('names the first string, key or value, with NUL or an unpaired surrogate', () => {
    assert.equal(findUnstorableText({ a: 'ok', b: ['fine 🎉', { c: 'x\u0000' }] }), 'b.1.c');
    assert.equal(findUnstorableText({ ['k\ud800']: 1 }), 'k\ud800');
    assert.equal(findUnstorableText('\udc00'), '');
    assert.equal(findUnstorableText({ a: 'line\nbreak', b: 'tab\t', c: 1, d: null, e: '😀' }), undefined);
    let deep: unknown = 'x\u0000';
    for (let level = 0; level < 100_000; level++) deep = [deep];
    assert.equal(findUnstorableText(deep)?.split('.').length, 100_000);
  });
});

for (const target of await databaseTargets()) {
  describe(`input the database cannot store on ${target.name}`, () => {
    const server = useTestServer(target);

    it('refuses NUL and unpaired surrogates in any text with 400 invalid_text naming the field, and stores nothing', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const idempotencyKey = randomUUID();
      const nul = await s.request('POST', '/api/pay', { headers: { ...key, 'idempotency-key': idempotencyKey }, body: { ...PAYMENT, reference: 'order\u00001' } });
      assert.equal(nul.status, 400);
      assert.deepEqual(nul.body, {
        error: 'Invalid text in body.reference: NUL characters and unpaired UTF-16 surrogates are refused',
        code: 'invalid_text',
        details: [{ field: 'body.reference', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' }],
      });
      const surrogate = await s.request('POST', '/api/pay', { headers: { ...key, 'idempotency-key': randomUUID() }, body: { ...PAYMENT, note: 'thanks \ud83d' } });
      assert.equal(surrogate.status, 400);
      assert.equal(surrogate.body.code, 'invalid_text');
      assert.deepEqual(surrogate.body.details, [{ field: 'body.note', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' }]);
      const lowHalf = await s.request('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 5, currency: 'NGN', message: '\udc00 happy birthday' } });
      assert.equal(lowHalf.body.code, 'invalid_text');
      const inKey = await s.request('POST', '/api/pos/sessions', { headers: key, body: { amount: 1, currency: 'NGN', description: 'ok', ['x\u0000']: 1 } });
      assert.equal(inKey.body.code, 'invalid_text');
      const inQuery = await s.request('GET', '/api/store/products?search=ank%00ara');
      assert.equal(inQuery.status, 400);
      assert.deepEqual(inQuery.body.details, [{ field: 'querystring.search', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' }]);
      // A whole emoji (a surrogate pair) and other text are fine.
      const fine = await s.request<{ paymentId: string }>('POST', '/api/pay', { headers: { ...key, 'idempotency-key': randomUUID() }, body: { ...PAYMENT, reference: 'order 🎉 1', note: 'line\nbreak\ttab' } });
      assert.equal(fine.status, 201, JSON.stringify(fine.body));
      const [stored] = await s.db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM payments WHERE merchant_id = $1 AND reference LIKE 'order%'", [merchant.id]);
      assert.equal(stored?.n, 1);
      // The refused key was not spent: the same key with good text goes through.
      assert.equal((await s.request('POST', '/api/pay', { headers: { ...key, 'idempotency-key': idempotencyKey }, body: { ...PAYMENT, reference: 'order 2' } })).status, 201);
    });

    it('refuses control characters in path ids and numbers past the safe integer range in queries and paths with 400 invalid_parameter', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      for (const id of ['pay_%00x', '%0A', 'x%7F']) {
        const answer = await s.request('GET', `/api/payments/${id}`, { headers: key });
        assert.equal(answer.status, 400, id);
        assert.equal(answer.body.code, 'invalid_parameter', id);
      }
      const offset = await s.request('GET', '/api/payments?offset=99999999999999999999', { headers: key });
      assert.equal(offset.status, 400);
      assert.deepEqual(offset.body, {
        error: 'Invalid querystring.offset: must be between -9007199254740991 and 9007199254740991',
        code: 'invalid_parameter',
        details: [{ field: 'querystring.offset', message: 'must be between -9007199254740991 and 9007199254740991' }],
      });
      const largest = await s.request('GET', `/api/payments?offset=${Number.MAX_SAFE_INTEGER}`, { headers: key });
      assert.equal(largest.status, 200);
      assert.deepEqual(largest.body.data, []);
      const amount = await s.request('GET', '/api/fx/quote?from=NGN&to=KES&amount=1e300', { headers: key });
      assert.equal(amount.body.code, 'invalid_parameter');
      // An unauthenticated caller of a route that needs a credential still hears 401 first.
      const anonymous = await s.request('GET', '/api/pos/sessions/%00');
      assert.equal(anonymous.status, 401, JSON.stringify(anonymous.body));
    });

    it(`refuses a body nested deeper than ${JSON_DEPTH_MAX} levels before parsing it, Idempotency-Key or not`, async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const headers = { 'x-merchant-api-key': merchant.testKey, 'idempotency-key': randomUUID(), 'content-type': 'application/json' };
      const nested = (depth: number) => `{"reference":"x","metadata":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      const tooDeep = await s.request('POST', '/api/pay', { headers, rawBody: nested(20_000) });
      assert.equal(tooDeep.status, 400);
      assert.deepEqual(tooDeep.body, { error: `The request body nests arrays and objects deeper than ${JSON_DEPTH_MAX} levels`, code: 'body_too_deep' });
      assert.equal((await s.request('POST', '/api/pay', { headers, rawBody: nested(JSON_DEPTH_MAX + 1) })).body.code, 'body_too_deep');
      // At the limit the body is parsed and judged by the route's schema as usual.
      const atLimit = await s.request('POST', '/api/pay', { headers, rawBody: nested(JSON_DEPTH_MAX) });
      assert.equal(atLimit.status, 400);
      assert.equal(atLimit.body.code, 'validation_failed');
      const bracketsInText = await s.request('POST', '/api/pay', { headers: { ...headers, 'idempotency-key': randomUUID() }, body: { ...PAYMENT, note: '['.repeat(400) } });
      assert.equal(bracketsInText.status, 201);
    });

    it('takes a missing or empty body as {} where the route requires no field, and still refuses it where one is required', async () => {
      const s = server();
      for (const options of [{}, { headers: { 'content-type': 'application/json' }, rawBody: '' }, { headers: { 'content-type': 'application/json' }, rawBody: ' \n' }]) {
        const seeded = await s.request<{ created: number }>('POST', '/api/admin/store/seed', { ...options, headers: { ...ADMIN, ...options.headers } });
        assert.ok(seeded.status === 200 || seeded.status === 201, JSON.stringify(seeded.body));
      }
      const [products] = await s.db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM store_products WHERE mode = 'test'");
      assert.equal(products?.n, 9, 'seeding is idempotent: 9 sample products');
      const merchant = await s.createMerchant();
      const rotated = await s.request('POST', '/api/merchant/keys/rotate', { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const required = await s.request('POST', '/api/admin/wallets', { headers: ADMIN });
      assert.equal(required.status, 400);
      assert.equal(required.body.code, 'validation_failed');
      const noFields = await s.request('PATCH', '/api/admin/store/products/00000000-0000-4000-8000-000000000000', { headers: ADMIN });
      assert.equal(noFields.status, 400, 'a PATCH needs at least one field');
      const handle = uniqueHandle('empty');
      assert.equal((await s.request('POST', '/api/admin/wallets', { headers: ADMIN, body: { handle, country: 'NG', currency: 'NGN', pin: '1234' } })).status, 201);
    });
  });
}
