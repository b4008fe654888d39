// Every route of the published API, called with malformed input by every kind of caller, answers a
// 4xx {error, code} and never a 5xx: the OpenAPI document is the list of routes, so a route added
// later is covered without touching this test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../testing/server.ts';

type OpenApi = { paths: Record<string, Record<string, unknown>> };

/** Bodies a careless or hostile client sends: wrong types, wrong shapes, out-of-range numbers. */
const BODIES: unknown[] = [
  {},
  [],
  'text',
  null,
  { amount: '12.50', currency: 42, handle: ['x'], items: 'none', code: {}, pin: 1234 },
  { amount: -1, currency: 'ZZZ', handle: '@@', tagId: 'TG', expiresInHours: 1e9, limit: -5 },
  { amount: 1e300, currency: 'NGN', rows: [{}], cards: [null], employees: [{ handle: 1 }], voucher: 'TLQ1.a.b', offlineLimits: { perPayment: -1 } },
];
const PARAMS = ['nope', '00000000-0000-4000-8000-000000000000', 'x'.repeat(300)];

function fill(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
}

for (const target of await databaseTargets()) {
  describe(`malformed input on every route on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 1000 });

    it('answers 4xx with {error, code}, never 5xx, to every caller', { timeout: 240_000 }, async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const handle = uniqueHandle('fuzz');
      await s.createWallet({ handle, fund: 10 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { name: 'Fuzz' } });
      const callers: Record<string, Record<string, string>> = {
        public: {},
        merchant: { 'x-merchant-api-key': merchant.testKey },
        wallet: { authorization: `Bearer wallet.${session.body.token}` },
        terminal: { authorization: `Bearer term.${terminal.body.token}` },
        admin: ADMIN,
        garbage: { authorization: 'Bearer ???' },
      };
      const document = await s.request<OpenApi>('GET', '/docs/json');
      assert.equal(document.status, 200);
      const failures: string[] = [];
      let calls = 0;
      for (const [path, operations] of Object.entries(document.body.paths)) {
        if (!path.startsWith('/api/')) continue;
        for (const method of Object.keys(operations)) {
          const verb = method.toUpperCase();
          if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(verb)) continue;
          for (const [who, headers] of Object.entries(callers)) {
            for (const param of PARAMS) {
              const url = `${fill(path, param)}${verb === 'GET' ? '?limit=abc&offset=-1&amount=x&from=ZZ&to=&code=%00' : ''}`;
              const bodies = verb === 'GET' || verb === 'DELETE' ? [undefined] : BODIES;
              for (const body of bodies) {
                calls += 1;
                const answer = await s.request(verb, url, { headers: { ...headers, 'idempotency-key': `fuzz-${calls}` }, ...(body === undefined ? {} : { rawBody: JSON.stringify(body) }), ...(body === undefined ? {} : { headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `fuzz-${calls}` } }) });
                const label = `${verb} ${url.slice(0, 120)} as ${who} with ${JSON.stringify(body)?.slice(0, 60)}`;
                if (answer.status >= 500) failures.push(`${label} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
                else if (answer.status >= 400) {
                  const error = answer.body as { error?: unknown; code?: unknown } | null;
                  if (typeof error?.error !== 'string' || typeof error.code !== 'string') failures.push(`${label} -> ${answer.status} without {error, code}: ${JSON.stringify(answer.body).slice(0, 200)}`);
                }
              }
            }
          }
        }
      }
      assert.ok(calls > 1000, `only ${calls} calls: the OpenAPI document lists too few routes`);
      assert.deepEqual(failures.slice(0, 20), [], `${failures.length} of ${calls} calls failed`);
    });
  });
}
