import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { IDEMPOTENCY_KEY_LENGTH_MAX } from '@tapline/shared/limits';
import type { Config } from '../config.ts';
import type { PrincipalKind } from '../auth/principal.ts';
import { UNLIMITED_PATHS, isProviderCallback } from '../auth/rate-limit.ts';
import { collapseLiteralUnions, componentRegistry, referenceComponents, referencedComponents } from './components.ts';
import { type RouteFacts, errorCodesFor, errorDescription } from './errors.ts';
import { examplesFor } from './examples.ts';
import { API_GUIDE, API_VERSION, LICENSE_PATH, TAGS, contactOf, licenseOf } from './info.ts';
import { operationIdFor, tagsFor } from './operations.ts';
import { SECURITY_SCHEMES, credentialKindsOf, securityFor } from './security.ts';

type JsonObject = Record<string, unknown>;

const ERROR_BODY = { $ref: '#/components/schemas/ErrorBody' };

/** Answers that are not JSON, by `METHOD /path`: the document names their media type. */
const NON_JSON_ANSWERS: Readonly<Record<string, { type: string; description: string }>> = {
  'GET /metrics': { type: 'text/plain', description: 'Prometheus text exposition format' },
  'GET /api/offline/qr/:id/qr.svg': { type: 'image/svg+xml', description: 'The voucher\'s QR code' },
  'GET /api/merchant/payouts.csv': { type: 'text/csv', description: 'Every payout of the filter, one row each, with its statement (a header row first)' },
};

const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

/** What the document keeps of a route between the per-route transform and the final pass. */
interface OperationFacts extends RouteFacts {
  operationId: string;
  /** The codes by error status, written out as each error response's `x-error-codes`. */
  errorCodes?: Map<number, Set<string>>;
}

function isPage(schema: unknown): boolean {
  const properties = (schema as JsonObject | undefined)?.properties as JsonObject | undefined;
  return properties !== undefined && 'data' in properties && 'total' in properties;
}

/** The names of every property of a schema, at any depth (`amount`, `items.handle`'s `handle`). */
export function propertyNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(propertyNames);
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema as JsonObject).properties;
  const own = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return [...own, ...Object.values(schema).flatMap(propertyNames)];
}

function routeText(schema: JsonObject): string {
  return [schema.summary, schema.description].filter((part) => typeof part === 'string').join('\n');
}

/**
 * The route's header schema with Idempotency-Key as the server reads it (1 to 255 characters),
 * required where the route requires it, whatever spelling the route used.
 */
function headersWithIdempotencyKey(headers: unknown, mode: 'required' | 'optional'): JsonObject {
  const existing = (headers ?? { type: 'object', properties: {} }) as JsonObject;
  const properties = Object.fromEntries(Object.entries((existing.properties as JsonObject | undefined) ?? {}).filter(([name]) => name.toLowerCase() !== 'idempotency-key'));
  const required = ((existing.required as string[] | undefined) ?? []).filter((name) => name.toLowerCase() !== 'idempotency-key');
  properties['Idempotency-Key'] = {
    type: 'string',
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_LENGTH_MAX,
    description:
      mode === 'required'
        ? 'Required: a unique key per payment (a UUID). A retry with the same key and body answers the first result, never a second charge.'
        : 'Optional and recommended: a retry with the same key and body answers the first result instead of running twice.',
  };
  if (mode === 'required') required.push('Idempotency-Key');
  return { ...existing, type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * Registers @fastify/swagger and the /docs UI with the document built as a product: operation
 * ids, tags, security, shared components, error responses with their codes, Idempotency-Key,
 * examples. Everything is derived here from what routes already declare (config.auth,
 * config.idempotency, schemas), so a route added tomorrow is documented the same way.
 */
export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'publicBaseUrl'>, description: string): Promise<void> {
  const registry = componentRegistry();
  const operationIds = new Map<string, string>();
  const takenIds = new Set<string>();
  const factsById = new Map<string, OperationFacts>();

  /** The same route gets the same id on every generation of the document (JSON and YAML). */
  const assignOperationId = (key: string, wanted: string, method: string): string => {
    const known = operationIds.get(key);
    if (known) return known;
    let id = wanted;
    for (let n = 2; takenIds.has(id); n += 1) id = `${wanted}${n === 2 ? method[0] + method.slice(1).toLowerCase() : n}`;
    operationIds.set(key, id);
    takenIds.add(id);
    return id;
  };

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tapline API', version: API_VERSION, description: `${description}\n\n${API_GUIDE}`, contact: contactOf(config.publicBaseUrl), license: licenseOf(config.publicBaseUrl) },
      servers: [{ url: config.publicBaseUrl, description: 'This server (PUBLIC_BASE_URL)' }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: { securitySchemes: SECURITY_SCHEMES as unknown as Record<string, never>, schemas: registry.schemas as Record<string, never> },
    },
    transform: ({ schema, url, route }) => {
      const original = (schema ?? {}) as JsonObject;
      if (original.hide) return { schema, url };
      const method = String(route.method).toUpperCase();
      const routeConfig = (route.config ?? {}) as { auth?: readonly PrincipalKind[]; idempotency?: 'required' | 'optional' };
      const responses = (original.response ?? {}) as JsonObject;
      const key = `${method} ${url}`;
      const operationId = assignOperationId(key, typeof original.operationId === 'string' ? original.operationId : operationIdFor(method, url, isPage(responses['200'])), method);
      const kinds = credentialKindsOf(method, url, routeConfig.auth);
      const facts: OperationFacts = {
        operationId,
        auth: kinds,
        idempotency: routeConfig.idempotency,
        hasBody: original.body !== undefined,
        takesBody: ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method),
        hasInput: original.body !== undefined || original.querystring !== undefined || original.params !== undefined,
        fields: [original.params, original.querystring, original.body].flatMap(propertyNames),
        isApi: url.startsWith('/api/'),
        rateLimited: url.startsWith('/api/') && !UNLIMITED_PATHS.has(url) && !isProviderCallback(url),
        text: routeText(original),
      };
      factsById.set(operationId, facts);

      const documented: JsonObject = {
        ...original,
        operationId,
        tags: tagsFor(original.tags as string[] | undefined, url),
        security: securityFor(kinds),
      };
      if (original.body !== undefined) documented.body = referenceComponents(registry, original.body);
      if (routeConfig.idempotency) documented.headers = headersWithIdempotencyKey(original.headers, routeConfig.idempotency);

      const response: JsonObject = {};
      for (const [status, body] of Object.entries(responses)) {
        if (Number(status) >= 400) continue;
        const schemaOf = referenceComponents(registry, body) as JsonObject;
        // The swagger plugin reads a response's description from `description` beside a $ref, and
        // from x-response-description in an inline schema (whose own description it keeps).
        const description = SUCCESS_DESCRIPTIONS[status] ?? 'OK';
        response[status] = { ...schemaOf, ...(schemaOf.$ref ? { description } : { 'x-response-description': description }) };
      }
      const nonJson = NON_JSON_ANSWERS[key];
      if (nonJson) response['200'] = { description: nonJson.description, content: { [nonJson.type]: { schema: { type: 'string' } } } };
      else if (Object.keys(response).length === 0) response['200'] = { 'x-response-description': 'OK', type: 'object' };
      const codes = errorCodesFor(operationId, facts);
      facts.errorCodes = codes;
      const hasId = /[:{]/.test(url);
      const declaredErrors = Object.entries(responses)
        .map(([status, body]) => [Number(status), body] as const)
        .filter(([status, body]) => status >= 400 && (codes.has(status) || (status === 404 && hasId) || registry.nameByJson.get(JSON.stringify(body)) !== 'ErrorBody'))
        .map(([status]) => status);
      const errorStatuses = new Set([...declaredErrors, ...codes.keys()]);
      for (const status of [...errorStatuses].sort((a, b) => a - b)) {
        const declared = responses[String(status)];
        const description = errorDescription(status, codes.get(status));
        // An error answer is the ErrorBody, unless the route answers that status with a body of
        // its own (GET /api/health's 503 is its health report).
        const own = declared !== undefined && registry.nameByJson.get(JSON.stringify(declared)) !== 'ErrorBody';
        const schemaOf = own ? (referenceComponents(registry, declared) as JsonObject) : ERROR_BODY;
        response[String(status)] = { ...schemaOf, ...(schemaOf.$ref ? { description } : { 'x-response-description': description }) };
      }
      documented.response = response;
      return { schema: documented as never, url };
    },
    transformObject: (documentObject) => finishDocument((documentObject as { openapiObject: unknown }).openapiObject as JsonObject, factsById) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  // The document's info.license.url: the repository's LICENSE, as plain text.
  const licenseText = readLicense();
  app.get(LICENSE_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(licenseText));
}

/** The repository's LICENSE from the sources, or the copy the production build puts beside its bundle (sync-server/dist). */
const LICENSE_FILES = ['../../../LICENSE', './LICENSE'];

function readLicense(): string {
  for (const path of LICENSE_FILES) {
    try {
      return readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
    } catch {
      // the next place
    }
  }
  return 'Copyright (c) Tapline. All rights reserved.\n';
}

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
};

const COMPONENT_HEADERS = {
  XRateLimitLimit: { description: 'Requests allowed in the current 60-second window of this route\'s group.', schema: { type: 'integer' } },
  XRateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  XRateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key (nothing ran again).',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The last pass over the whole document: headers, examples, one enum per literal union, used components only. */
function finishDocument(document: JsonObject, factsById: ReadonlyMap<string, OperationFacts>): JsonObject {
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const facts = factsById.get(operation.operationId as string);
      if (!facts) continue;
      const responses = operation.responses as Record<string, JsonObject>;
      for (const [status, answer] of Object.entries(responses)) {
        const code = Number(status);
        const headers: JsonObject = {};
        if (facts.rateLimited && (code < 300 || code === 429)) Object.assign(headers, RATE_LIMIT_HEADERS);
        if (code === 429) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
        if (code < 300 && facts.idempotency) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
        if (Object.keys(headers).length > 0) answer.headers = headers;
        // The codes of an error answer as a list a program can read (error-coverage.ts checks them against the server).
        const codes = facts.errorCodes?.get(code);
        if (code >= 400 && codes && codes.size > 0) answer['x-error-codes'] = [...codes];
      }
      const examples = examplesFor(facts.operationId);
      if (examples?.request) {
        const media = ((operation.requestBody as JsonObject | undefined)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
        if (media) media.example = examples.request;
      }
      for (const [status, example] of Object.entries(examples?.responses ?? {})) {
        const media = (responses[status]?.content as Record<string, JsonObject> | undefined)?.['application/json'];
        if (media) media.example = example;
      }
    }
  }
  collapseLiteralUnions(document);
  const components = document.components as JsonObject & { schemas: Record<string, unknown> };
  const used = referencedComponents(paths, components.schemas);
  components.schemas = Object.fromEntries(Object.entries(components.schemas).filter(([name]) => used.has(name)));
  components.headers = COMPONENT_HEADERS;
  const usedTags = new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation.tags as string[] | undefined) ?? [])));
  document.tags = ((document.tags as { name: string }[] | undefined) ?? []).filter((tag) => usedTags.has(tag.name));
  return document;
}
