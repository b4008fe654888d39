import { JSON_DEPTH_MAX } from '@tapline/shared/limits';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../testing/server.ts';
import { findUnstorableText } from './input-guard.ts';
import { findUnsafeNumber, jsonDeeperThan, unsafeNumberLiteral } from './json-body.ts';

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

describe('findUnsafeNumber', () => {
  it('judges integer literals by their digits and other literals by their magnitude', () => {
    for (const literal of ['9007199254740991', '-9007199254740991', '0', '-0', '12.50', '1e15', '9007199254740991.0', '1e-400', '0.000001']) assert.equal(unsafeNumberLiteral(literal), false, literal);
    for (const literal of ['9007199254740992', '9007199254740993', '-9007199254740993', '10000000000000000', '99999999999999999999', '1e20', '1e308', '1e999', '-1E+20', '9007199254740993.0']) {
      assert.equal(unsafeNumberLiteral(literal), true, literal);
    }
    // JSON.parse cannot tell these apart: the raw text can.
    assert.equal(JSON.parse('9007199254740993'), JSON.parse('9007199254740992'));
  });

  it('names the path of the first unsafe number, ignoring digits inside strings and keys', () => {
    assert.equal(findUnsafeNumber('{"limit":20,"offset":9007199254740993}'), 'offset');
    assert.equal(findUnsafeNumber('{"a":"99999999999999999999","b":[1,2,{"c":1e20}]}'), 'b.2.c');
    assert.equal(findUnsafeNumber('{"12345678901234567890":1,"x\\"y":{"z":[0, -1e308]}}'), 'x"y.z.1');
    assert.equal(findUnsafeNumber('[1,[2,3],4,1e20]'), '3');
    assert.equal(findUnsafeNumber('1e20'), '');
    assert.equal(findUnsafeNumber('{"amount":12.5,"items":[{"qty":9007199254740991}],"note":"1e400 \\" 1e400"}'), undefined);
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

    it('refuses numbers past the safe integer range anywhere in a JSON body with 400 validation_failed naming the field', async () => {
      const s = server();
      const handle = uniqueHandle('bignum');
      await s.createWallet({ handle, fund: 1 });
      const json = { 'content-type': 'application/json' };
      const body = (offset: string) => `{"buyerHandle":"${handle}","walletPin":"1234","offset":${offset}}`;
      for (const offset of ['1e20', '1e308', '9007199254740993', '9007199254740992', '-99999999999999999999']) {
        const answer = await s.request('POST', '/api/store/my-orders', { headers: json, rawBody: body(offset) });
        assert.equal(answer.status, 400, `${offset}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(answer.body, {
          error: 'Invalid body: offset must be between -9007199254740991 and 9007199254740991',
          code: 'validation_failed',
          details: [{ field: 'offset', message: 'must be between -9007199254740991 and 9007199254740991' }],
        }, offset);
      }
      const inside = await s.request('POST', '/api/pay', { headers: { ...json, 'x-merchant-api-key': (await s.createMerchant()).testKey, 'idempotency-key': randomUUID() }, rawBody: JSON.stringify({ ...PAYMENT, metadata: { n: 1 } }).replace('"n":1', '"n":[0,9007199254740993]') });
      assert.equal(inside.status, 400);
      assert.equal(inside.body.code, 'validation_failed');
      assert.deepEqual(inside.body.details, [{ field: 'metadata.n.1', message: 'must be between -9007199254740991 and 9007199254740991' }]);
      // The largest safe integer, and the same digits inside a string, are not refused by the guard.
      const largest = await s.request<unknown[]>('POST', '/api/store/my-orders', { headers: json, rawBody: body(String(Number.MAX_SAFE_INTEGER)) });
      assert.equal(largest.status, 200, JSON.stringify(largest.body));
      assert.deepEqual((largest.body as unknown as { data: unknown[] }).data, []);
      // An anonymous caller of a route that needs a credential still hears 401 first.
      const anonymous = await s.request('POST', '/api/pos/sessions', { headers: json, rawBody: '{"amount":1e20,"currency":"NGN"}' });
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
