import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import { publishedDocument, serializeDocument } from '../testing/openapi-document.ts';
import { FLOW_KEYS } from './errors.ts';
import { UNLIMITED_PATHS, isProviderCallback } from '../auth/rate-limit.ts';
import { assertErrorAnswersDocumented, documentPath, undocumentedErrorAnswers, watchErrorAnswers } from './error-coverage.ts';
import { registerOpenApi } from './register.ts';
import { badRequest, conflict, registerErrorHandling } from '../http/errors.ts';
import { operationsWithExamples } from './examples.ts';
import { SECURITY_SCHEMES } from './security.ts';
import { operationIdFor, singular } from './operations.ts';

// The document depends on the routes only, not on the database: one build, on PGlite.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const committedPath = join(root, 'openapi.json');

type JsonObject = Record<string, unknown>;
type Operation = JsonObject & { operationId: string; responses: Record<string, JsonObject>; parameters?: JsonObject[]; security?: Record<string, string[]>[] };

function operationsOf(document: JsonObject): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

/** The first place two JSON values differ, as a path, for a useful failure message. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return path;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const found = firstDifference((a as JsonObject)[key], (b as JsonObject)[key], `${path}.${key}`);
    if (found) return found;
  }
  return path;
}

describe('operation ids', () => {
  it('come from the method and the path, for routes added later too', () => {
    assert.equal(operationIdFor('GET', '/api/pos/sessions', true), 'listPosSessions');
    assert.equal(operationIdFor('POST', '/api/pos/sessions', false), 'createPosSession');
    assert.equal(operationIdFor('GET', '/api/pos/sessions/:sessionId', false), 'getPosSession');
    assert.equal(operationIdFor('POST', '/api/pos/sessions/:sessionId/tap', false), 'tapPosSession');
    assert.equal(operationIdFor('PATCH', '/api/merchant/gift-card-programs/:id', false), 'updateMerchantGiftCardProgram');
    assert.equal(operationIdFor('GET', '/api/merchant/webhook-deliveries', true), 'listMerchantWebhookDeliveries');
    assert.equal(operationIdFor('POST', '/api/terminals/pair', false), 'pairTerminal');
    assert.equal(operationIdFor('POST', '/api/merchant/terminals/:id/pairing-code', false), 'createMerchantTerminalPairingCode');
    assert.equal(operationIdFor('POST', '/api/pay', false), 'createPayment');
    assert.deepEqual(['deliveries', 'pos', 'analytics', 'sessions', 'status'].map(singular), ['delivery', 'pos', 'analytics', 'session', 'status']);
  });
});

describe('OpenAPI document', () => {
  let document: JsonObject;
  before(async () => {
    document = await publishedDocument();
  });

  it('is the committed openapi.json (run `npm run openapi` after changing a route)', () => {
    const committed = readFileSync(committedPath, 'utf8');
    const current = serializeDocument(document);
    if (committed !== current) {
      assert.fail(`openapi.json differs from the server's document at ${firstDifference(JSON.parse(committed), document)}: run \`npm run openapi\` and commit openapi.json and sdk/typescript/src/generated/openapi.ts`);
    }
  });

  it('names every operation once, tags it, and states the credentials it accepts', () => {
    const operations = operationsOf(document);
    assert.ok(operations.length >= 160, `only ${operations.length} operations`);
    const ids = operations.map(({ operation }) => operation.operationId);
    assert.equal(ids.filter((id) => typeof id !== 'string' || !/^[a-z][A-Za-z0-9]+$/.test(id)).length, 0);
    assert.equal(new Set(ids).size, ids.length, 'operationId must be unique');
    const declaredTags = new Set((document.tags as { name: string }[]).map((tag) => tag.name));
    for (const { method, path, operation } of operations) {
      const tags = operation.tags as string[];
      assert.ok(tags.length > 0 && tags.every((tag) => declaredTags.has(tag)), `${method} ${path}: tags ${tags} must be declared`);
      assert.ok(Array.isArray(operation.security), `${method} ${path}: no security`);
      for (const requirement of operation.security!) for (const scheme of Object.keys(requirement)) assert.ok(scheme in SECURITY_SCHEMES, scheme);
      assert.ok(Object.values(operation.responses).every((response) => response.description !== 'Default Response'), `${method} ${path}: a response without description`);
    }
    const byId = Object.fromEntries(operations.map(({ operation }) => [operation.operationId, operation]));
    const schemes = (id: string) => byId[id]!.security!.flatMap((requirement) => Object.keys(requirement)).sort();
    assert.deepEqual(schemes('createPayment'), ['dashboardSession', 'merchantBearer', 'merchantKey']);
    assert.deepEqual(schemes('tapPosSession'), ['dashboardSession', 'merchantBearer', 'merchantKey', 'terminalToken']);
    assert.deepEqual(schemes('getWalletBalance'), ['walletToken']);
    assert.deepEqual(schemes('createAgentGiftCard'), ['agentToken']);
    assert.deepEqual(schemes('createCheckoutSession'), ['dashboardSession', 'merchantBearer', 'merchantKey', 'publishableKey']);
    assert.deepEqual(schemes('createAdminMerchant'), ['adminToken']);
    assert.deepEqual(schemes('getMetrics'), ['adminToken']);
    assert.deepEqual(byId.getPayment!.security, []);
    assert.deepEqual(byId.resolveTag!.security, []);
  });

  it('documents Idempotency-Key where the server honours it, required on POST /api/pay', () => {
    const keyed = operationsOf(document).flatMap(({ operation }) => {
      const parameter = operation.parameters?.find((candidate) => candidate.in === 'header' && candidate.name === 'Idempotency-Key');
      return parameter ? [[operation.operationId, parameter.required] as const] : [];
    });
    const ids = Object.fromEntries(keyed);
    assert.ok(keyed.length >= 25, `only ${keyed.length} operations take an Idempotency-Key`);
    assert.equal(ids.createPayment, true);
    assert.equal(ids.createPayroll, true);
    for (const id of ['createPosSession', 'tapPosSession', 'payPosSession', 'payBill', 'payFromWallet', 'createMerchantGiftCard', 'redeemMerchantGiftCard', 'payCheckoutSession', 'submitPayrollRun', 'creditAdminWallet']) {
      assert.equal(ids[id], false, `${id} honours an optional Idempotency-Key`);
    }
    assert.equal(ids.getPayment, undefined);
    // No operation names the header twice (POST /api/pay declared it in lower case).
    for (const { operation } of operationsOf(document)) {
      const names = (operation.parameters ?? []).filter((parameter) => parameter.in === 'header').map((parameter) => String(parameter.name).toLowerCase());
      assert.equal(new Set(names).size, names.length, operation.operationId);
    }
  });

  it('answers errors with the shared ErrorBody and lists the codes each operation can answer', () => {
    const components = (document.components as { schemas: Record<string, JsonObject> }).schemas;
    assert.deepEqual(Object.keys(components.ErrorBody!.properties as JsonObject), ['error', 'code', 'details']);
    assert.ok(Object.keys(components).length > 100, 'shared schemas are components');
    const text = JSON.stringify(document);
    assert.equal((text.match(/"A stable snake_case code naming the rule that failed; every code, its statuses and what it means are listed in docs\/errors.md"/g) ?? []).length, 1, 'the error body is defined once');
    const ownBodies = new Set(['GET /api/health 503', 'GET /api/health/ready 503']);
    for (const { method, path, operation } of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = (response.content as Record<string, JsonObject>)['application/json']!;
        if (ownBodies.has(`${method} ${path} ${status}`)) assert.notDeepEqual(media.schema, { $ref: '#/components/schemas/ErrorBody' });
        else assert.deepEqual(media.schema, { $ref: '#/components/schemas/ErrorBody' }, `${method} ${path} ${status}`);
      }
      // Every /api operation but the health probes and the providers' callbacks, which are never limited (auth/rate-limit.ts).
      if (UNLIMITED_PATHS.has(path) || isProviderCallback(path)) {
        assert.equal(operation.responses['429'], undefined, `${method} ${path}`);
        assert.equal((operation.responses['200']?.headers as JsonObject | undefined)?.['X-RateLimit-Limit'], undefined, `${method} ${path}`);
      } else if (path.startsWith('/api/')) assert.match(String(operation.responses['429']?.description), /`rate_limited`/, `${method} ${path}`);
    }
    const byId = Object.fromEntries(operationsOf(document).map(({ operation }) => [operation.operationId, operation]));
    const tap = byId.tapPosSession!.responses;
    assert.match(String(tap['409']!.description), /`session_not_pending`/);
    assert.match(String(tap['410']!.description), /`session_expired`/);
    assert.match(String(tap['403']!.description), /`pin_required`/);
    assert.match(String(byId.createPayment!.responses['422']!.description), /`insufficient_funds`.*`rail_unavailable`|`rail_unavailable`.*`insufficient_funds`/);
    assert.match(String(byId.createPayment!.responses['400']!.description), /`idempotency_key_required`/);
    assert.match(String(byId.createPosSession!.responses['401']!.description), /`invalid_terminal_token`/);
    assert.ok((byId.createPayment!.responses['429']!.headers as JsonObject)['Retry-After']);
    // Codes a route's description names are listed, several after one status too.
    assert.match(String(byId.redeemOfflineQr!.responses['400']!.description), /`voucher_malformed`, `voucher_signature_invalid`, `voucher_unknown`/);
    // Every entry of the flows' table still names an operation (a renamed route would orphan it).
    const ids = Object.keys(byId);
    for (const key of FLOW_KEYS) assert.ok(ids.some((id) => (typeof key === 'string' ? id === key : key.test(id))), `errors.ts names no operation with ${key}`);
    assert.ok((byId.createPayment!.responses['201']!.headers as JsonObject)['Idempotent-Replayed']);
  });

  it('shows examples of the main flows', () => {
    const byId = Object.fromEntries(operationsOf(document).map(({ operation }) => [operation.operationId, operation]));
    for (const id of operationsWithExamples()) {
      const operation = byId[id];
      assert.ok(operation, `example of unknown operation ${id}`);
      const examples = JSON.stringify(operation).match(/"example":/g) ?? [];
      assert.ok(examples.length > 0, `${id} shows no example`);
    }
    assert.equal(((byId.createPayment!.requestBody as JsonObject).content as Record<string, JsonObject>)['application/json']!.example !== undefined, true);
    const info = document.info as JsonObject;
    assert.ok(info.license && info.contact);
    assert.ok((document.servers as unknown[]).length > 0);
  });

  it('passes redocly lint with the strict ruleset (examples checked against their schemas)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tapline-openapi-'));
    try {
      const file = join(folder, 'openapi.json');
      writeFileSync(file, serializeDocument(document));
      const redocly = join(root, 'node_modules', '.bin', 'redocly');
      const result = await promisify(execFile)(redocly, ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'summary'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      }).catch((error: { stdout?: string; stderr?: string }) => assert.fail(`redocly lint failed:\n${error.stdout}\n${error.stderr}`));
      assert.match(`${result.stdout}${result.stderr}`, /valid/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('error coverage (every error a route answers is one its operation lists)', () => {
  it('finds a code a new route answers without documenting it, and accepts the ones it documents or inherits', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ logger: false });
    await registerOpenApi(app, { publicBaseUrl: 'http://localhost:3000' }, 'test');
    registerErrorHandling(app);
    app.post('/api/widgets', { schema: { summary: 'Make a widget' } }, async () => {
      // Codes made up for the check: cast past the registry's types on purpose.
      throw conflict('widget_brand_new' as never, 'Nobody documented this');
    });
    app.post('/api/gadgets/:id/spin', { schema: { summary: 'Spin a gadget; answers 409 `gadget_spinning` while it spins' } }, async () => {
      throw conflict('gadget_spinning' as never, 'Still spinning');
    });
    app.get('/api/sprockets', { schema: { summary: 'List sprockets' } }, async () => {
      throw badRequest('invalid_text', 'The machinery\'s codes are derived for every route');
    });
    const answers = watchErrorAnswers(app);
    await app.ready();
    try {
      for (const url of ['/api/widgets', '/api/gadgets/g1/spin']) assert.equal((await app.inject({ method: 'POST', url, payload: {} })).statusCode, 409);
      assert.equal((await app.inject({ method: 'GET', url: '/api/sprockets' })).statusCode, 400);
      assert.equal((await app.inject({ method: 'GET', url: '/api/nowhere' })).statusCode, 404);
      assert.deepEqual(answers.map((answer) => `${answer.method} ${answer.url} ${answer.status} ${answer.code}`).sort(), [
        'GET /api/sprockets 400 invalid_text',
        'POST /api/gadgets/:id/spin 409 gadget_spinning',
        'POST /api/widgets 409 widget_brand_new',
      ]);
      assert.deepEqual(undocumentedErrorAnswers(app.swagger() as unknown as JsonObject, answers), ['POST /api/widgets (createWidget) 409 widget_brand_new']);
      assert.throws(() => assertErrorAnswersDocumented(app, answers), /widget_brand_new/);
      const spin = (app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> }).paths['/api/gadgets/{id}/spin']!.post!;
      assert.deepEqual(spin.responses['409']!['x-error-codes'], ['gadget_spinning']);
    } finally {
      await app.close();
    }
  });

  it('maps a route to its document path', () => {
    assert.equal(documentPath('/api/pos/sessions/:sessionId/tap'), '/api/pos/sessions/{sessionId}/tap');
    assert.equal(documentPath('/api/offline/qr/:id/qr.svg'), '/api/offline/qr/{id}/qr.svg');
  });
});
