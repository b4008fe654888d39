// Every route of the published API, called with malformed input by every kind of caller, answers a
// 4xx {error, code} and never a 5xx: the OpenAPI document is the list of routes, so a route added
// later is covered without touching this test.
import { JSON_DEPTH_MAX } from '@tapline/shared/limits';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { databaseTargets } from '../testing/databases.ts';
import { ADMIN, type TestServer, uniqueHandle, useTestServer } from '../testing/server.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
}
interface Operation {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: { 'application/json'?: { schema?: Schema } } };
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

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

/**
 * Path ids a broken or hostile client sends, already percent-encoded: NUL, other control
 * characters, a number past the safe integer range, and bytes that are not UTF-8 (a lone
 * surrogate's encoding, an overlong NUL).
 */
const RAW_PARAMS = ['fuzz%00id', '%01', 'id%0Aline', '99999999999999999999', '%ED%A0%80', '%C0%80'];

/** Text PostgreSQL cannot store, appended to every free-text string of a plausible body or query. */
const POISONS = { nul: '\u0000', surrogate: '\ud800' } as const;

const nest = (depth: number, open: string, close: string) => `${open.repeat(depth)}${close.repeat(depth)}`;

function fill(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
}

function fillRaw(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

/**
 * A body (or query value) that a route's schema accepts as far as this generator can tell: real
 * handles, ISO codes and numbers in range, so input reaches the handler and its SQL. `poison`,
 * when given, is appended to every string whose schema still accepts it (free text); `number`
 * replaces every number.
 */
function plausible(schema: Schema | undefined, field: string, context: { handle: string; tagId: string }, options: { poison?: string; number?: number } = {}): unknown {
  if (!schema) return undefined;
  if (schema.anyOf) return plausible(schema.anyOf[0], field, context, options);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) value[name] = plausible(property, name, context, options);
      return value;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => plausible(schema.items, field, context, options));
    case 'integer':
    case 'number':
      return options.number ?? Math.min(Math.max(schema.minimum ?? 1, 1), schema.maximum ?? Number.MAX_SAFE_INTEGER);
    case 'boolean':
      return false;
    case 'string': {
      const value = plausibleText(schema, field, context);
      if (!options.poison || schema.format) return value;
      const poisoned = value + options.poison;
      const fits = (!schema.pattern || new RegExp(schema.pattern).test(poisoned)) && (schema.maxLength === undefined || poisoned.length <= schema.maxLength);
      return fits ? poisoned : value;
    }
    default:
      return undefined;
  }
}

/** Values by field name, used where the schema accepts them. */
function hintFor(field: string, context: { handle: string; tagId: string }): string | undefined {
  const hints: [RegExp, string][] = [
    [/handle$|^to$/i, context.handle],
    [/tagId/i, context.tagId],
    [/receiver|phone/i, '+2348031234567'],
    [/accountNumber/i, '0123456789'],
    [/currency/i, 'NGN'],
    [/country|Code$/, 'NG'],
    [/email/i, 'fuzz@example.com'],
    [/url$/i, 'https://shop.example/fuzz'],
  ];
  return hints.find(([pattern]) => pattern.test(field))?.[1];
}

function plausibleText(schema: Schema, field: string, context: { handle: string; tagId: string }): string {
  if (schema.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
  if (schema.format === 'uuid') return randomUUID();
  const fits = (candidate: string) =>
    (!schema.pattern || new RegExp(schema.pattern).test(candidate)) && candidate.length >= (schema.minLength ?? 0) && candidate.length <= (schema.maxLength ?? Infinity);
  const hint = hintFor(field, context);
  if (hint !== undefined && fits(hint)) return hint;
  const candidates = ['Fuzz text', 'NGN', 'NG', '1234', '+2348031234567', '0123456789', 'https://shop.example/logo.png', '#336699', `gc_${'a'.repeat(64)}`, 'fuzz-item', 'fuzz@example.com', '/images/fuzz.png', 'CODE123'];
  return candidates.find(fits) ?? 'x'.repeat(Math.max(1, schema.minLength ?? 1));
}

/** Number literals past the safe integer range, as raw JSON text: 2^53+1 parses to 2^53 and only the text tells. */
const UNSAFE_NUMBERS = ['1e20', '1e308', '9007199254740993'];
const NUMBER_MARK = '__fuzz_number__';

/**
 * The paths (as keys and array indexes) of every numeric field of the body `plausible` makes for
 * `schema`: a field is numeric when its schema, or one of its anyOf choices, is a number or an integer.
 */
function numericPaths(schema: Schema | undefined, path: (string | number)[] = []): (string | number)[][] {
  if (!schema || path.length > 16) return [];
  const numeric = (candidate: Schema | undefined) => candidate?.type === 'integer' || candidate?.type === 'number';
  if (numeric(schema) || schema.anyOf?.some(numeric)) return [path];
  if (schema.anyOf) return numericPaths(schema.anyOf[0], path);
  if (schema.const !== undefined || schema.enum) return [];
  if (schema.type === 'object') return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => numericPaths(property, [...path, name]));
  if (schema.type === 'array') return numericPaths(schema.items, [...path, 0]);
  return [];
}

/** The raw JSON text of `body` with the value at `path` replaced by the number literal `literal`. */
function withNumberAt(body: unknown, path: (string | number)[], literal: string): string {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = NUMBER_MARK;
  return JSON.stringify(copy).replace(`"${NUMBER_MARK}"`, literal);
}

function bodySchemaOf(operation: Operation): Schema | undefined {
  return operation.requestBody?.content?.['application/json']?.schema;
}

function queryOf(operation: Operation, value: (schema: Schema, name: string) => string): string {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  return parameters.map((parameter) => `${encodeURIComponent(parameter.name)}=${value(parameter.schema ?? {}, parameter.name)}`).join('&');
}

for (const target of await databaseTargets()) {
  describe(`malformed input on every route on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 1000 });

    /** One caller of every kind, a funded customer with a ring, and the OpenAPI document's /api operations. */
    async function setUp(s: TestServer) {
      const merchant = await s.createMerchant();
      const handle = uniqueHandle('fuzz');
      await s.createWallet({ handle, fund: 10 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { name: 'Fuzz' } });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { handle, tagType: 'ring', displayName: 'Fuzz ring' } });
      assert.equal(tag.status, 201);
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
      const operations: { path: string; verb: string; operation: Operation }[] = [];
      // Shared schemas are components the document $refs: inline them so bodies can be made from them.
      const components = (document.body as { components?: { schemas?: Record<string, unknown> } }).components?.schemas ?? {};
      const inline = (value: unknown, depth = 0): unknown => {
        if (depth > 32 || value === null || typeof value !== 'object') return value;
        if (Array.isArray(value)) return value.map((item) => inline(item, depth + 1));
        const ref = (value as { $ref?: unknown }).$ref;
        if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return inline(components[ref.slice('#/components/schemas/'.length)], depth + 1);
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item, depth + 1)]));
      };
      document.body.paths = inline(document.body.paths) as typeof document.body.paths;
      for (const [path, methods] of Object.entries(document.body.paths)) {
        if (!path.startsWith('/api/')) continue;
        for (const [method, operation] of Object.entries(methods)) {
          const verb = method.toUpperCase();
          if (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(verb)) operations.push({ path, verb, operation });
        }
      }
      return { callers, operations, context: { handle, tagId: tag.body.tagId } };
    }

    /** Calls, and keeps what no answer may be: a 5xx, or a 4xx without {error, code}. */
    function prober(s: TestServer) {
      const failures: string[] = [];
      let calls = 0;
      const answers = new Map<string, number>();
      const call = async (verb: string, url: string, headers: Record<string, string>, body?: { raw: string; contentType?: string }) => {
        calls += 1;
        const answer = await s.request(verb, url, {
          headers: { ...headers, 'idempotency-key': `fuzz-${calls}`, ...(body?.contentType ? { 'content-type': body.contentType } : {}) },
          ...(body ? { rawBody: body.raw } : {}),
        });
        const label = `${verb} ${url.slice(0, 120)} with ${body?.raw.slice(0, 60) ?? 'no body'}`;
        const error = answer.body as { error?: unknown; code?: unknown } | null;
        if (answer.status >= 500) failures.push(`${label} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        else if (answer.status >= 400 && (typeof error?.error !== 'string' || typeof error.code !== 'string')) {
          failures.push(`${label} -> ${answer.status} without {error, code}: ${JSON.stringify(answer.body).slice(0, 200)}`);
        }
        if (answer.status >= 400) answers.set(String(error?.code), (answers.get(String(error?.code)) ?? 0) + 1);
        return answer;
      };
      return { call, failures, answers, calls: () => calls };
    }

    it('answers 4xx with {error, code}, never 5xx, to every caller', { timeout: 240_000 }, async () => {
      const s = server();
      const { callers, operations } = await setUp(s);
      const probe = prober(s);
      for (const { path, verb } of operations) {
        for (const headers of Object.values(callers)) {
          for (const param of PARAMS) {
            const url = `${fill(path, param)}${verb === 'GET' ? '?limit=abc&offset=-1&amount=x&from=ZZ&to=&code=%00' : ''}`;
            const bodies = verb === 'GET' || verb === 'DELETE' ? [undefined] : BODIES;
            for (const body of bodies) {
              await probe.call(verb, url, headers, body === undefined ? undefined : { raw: JSON.stringify(body), contentType: 'application/json' });
            }
          }
        }
      }
      assert.ok(probe.calls() > 1000, `only ${probe.calls()} calls: the OpenAPI document lists too few routes`);
      assert.deepEqual(probe.failures.slice(0, 20), [], `${probe.failures.length} of ${probe.calls()} calls failed`);
    });

    it('answers 4xx to a number past the safe integer range in every numeric body field, never a 2xx or a 5xx', { timeout: 240_000 }, async () => {
      const s = server();
      const { callers, operations, context } = await setUp(s);
      const probe = prober(s);
      const accepted: string[] = [];
      let fields = 0;
      // Key rotation last: were it ever to take one of these bodies, later calls would lose their key.
      const ordered = [...operations].sort((a, b) => Number(a.path === '/api/merchant/keys/rotate') - Number(b.path === '/api/merchant/keys/rotate'));
      for (const { path, verb, operation } of ordered) {
        if (verb === 'GET' || verb === 'DELETE') continue;
        const schema = bodySchemaOf(operation);
        const body = plausible(schema, '', context);
        for (const field of numericPaths(schema)) {
          fields += 1;
          for (const literal of UNSAFE_NUMBERS) {
            const raw = withNumberAt(body, field, literal);
            assert.ok(raw.includes(literal), `${verb} ${path}: ${field.join('.')} not in ${raw}`);
            for (const [who, headers] of Object.entries(callers)) {
              const answer = await probe.call(verb, fill(path, PARAMS[1]!), headers, { raw, contentType: 'application/json' });
              if (answer.status < 400) accepted.push(`${verb} ${path} as ${who} with ${field.join('.')} = ${literal}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
            }
          }
        }
      }
      assert.ok(fields > 50, `only ${fields} numeric body fields in the document`);
      assert.deepEqual(probe.failures.slice(0, 20), [], `${probe.failures.length} of ${probe.calls()} calls failed`);
      assert.deepEqual(accepted.slice(0, 20), [], `${accepted.length} calls took a number past the safe range`);
      // The guard itself answered, not only authentication.
      assert.ok((probe.answers.get('validation_failed') ?? 0) > fields, JSON.stringify([...probe.answers]));
    });

    it('answers 4xx to text and numbers the database cannot store, broken path ids, deep bodies and empty bodies, on every route', { timeout: 240_000 }, async () => {
      const s = server();
      const { callers, operations, context } = await setUp(s);
      const probe = prober(s);
      const deep = [nest(20_000, '[', ']'), nest(20_000, '{"a":', '}').replace(/:}/, ':1}'), `${'{"a":'.repeat(JSON_DEPTH_MAX + 1)}1${'}'.repeat(JSON_DEPTH_MAX + 1)}`];
      const wrongAnswers: string[] = [];
      // Rotating the merchant's key with an empty body (grace 0) would end the credential every
      // later call of this run sends: that route is tried with bad input by the test above.
      for (const { path, verb, operation } of operations.filter((entry) => !(entry.verb === 'POST' && entry.path === '/api/merchant/keys/rotate'))) {
        const schema = bodySchemaOf(operation);
        const sendsBody = verb !== 'GET' && verb !== 'DELETE';
        const json = (value: unknown) => ({ raw: JSON.stringify(value ?? {}), contentType: 'application/json' });
        const validBody = sendsBody ? json(plausible(schema, '', context)) : undefined;
        const acceptsEmpty = schema?.type === 'object' && !(schema.required?.length);
        const url = (query: string) => `${fill(path, PARAMS[1]!)}${query ? `?${query}` : ''}`;
        for (const [who, headers] of Object.entries(callers)) {
          // Broken path ids, with a body the route would otherwise take.
          if (path.includes('{')) for (const raw of RAW_PARAMS) await probe.call(verb, fillRaw(path, raw), headers, validBody);
          // Numbers out of range and poisoned text in the query string.
          if ((operation.parameters ?? []).some((parameter) => parameter.in === 'query')) {
            const big = queryOf(operation, (schema) => (schema.type === 'integer' || schema.type === 'number' ? '99999999999999999999' : 'x'));
            await probe.call(verb, url(`${big}&offset=99999999999999999999&limit=99999999999999999999`), headers, validBody);
            for (const poison of ['%00', '%ED%A0%80']) {
              await probe.call(verb, url(queryOf(operation, (schema, name) => `${encodeURIComponent(String(plausible(schema, name, context) ?? 'x'))}${poison}`)), headers, validBody);
            }
          }
          if (!sendsBody) continue;
          // Poisoned text in every free-text string (and a key), numbers past the safe range.
          for (const poison of Object.values(POISONS)) {
            const body = plausible(schema, '', context, { poison });
            await probe.call(verb, url(''), headers, json(body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, [`fuzz${poison}key`]: 'x' } : body));
          }
          await probe.call(verb, url(''), headers, json(plausible(schema, '', context, { number: 1e20 })));
          // Nested past the limit: refused before anything parses or walks it, whoever asks.
          for (const raw of deep) {
            const answer = await probe.call(verb, url(''), headers, { raw, contentType: 'application/json' });
            if (answer.status !== 400 || (answer.body as { code?: string }).code !== 'body_too_deep') wrongAnswers.push(`${verb} ${path} as ${who}, ${raw.length} characters deep: ${answer.status} ${JSON.stringify(answer.body)}`);
          }
          // No body at all, and an empty JSON body: where no field is required, that is {}.
          for (const empty of [undefined, { raw: '', contentType: 'application/json' }]) {
            const answer = await probe.call(verb, url(''), headers, empty);
            const code = (answer.body as { code?: string } | null)?.code;
            if (acceptsEmpty && (code === 'invalid_json' || (code === 'validation_failed' && JSON.stringify(answer.body).includes('must be object')))) {
              wrongAnswers.push(`${verb} ${path} as ${who} with ${empty ? 'an empty JSON body' : 'no body'}: ${answer.status} ${JSON.stringify(answer.body)}`);
            }
          }
        }
      }
      assert.ok(probe.calls() > 5000, `only ${probe.calls()} calls`);
      assert.deepEqual(probe.failures.slice(0, 20), [], `${probe.failures.length} of ${probe.calls()} calls failed`);
      assert.deepEqual(wrongAnswers.slice(0, 20), [], `${wrongAnswers.length} wrong answers`);
      // The guard was reached from every direction, not only refused at authentication.
      for (const code of ['invalid_text', 'invalid_parameter', 'body_too_deep']) assert.ok((probe.answers.get(code) ?? 0) > 100, `${code}: ${JSON.stringify([...probe.answers])}`);
    });
  });
}
