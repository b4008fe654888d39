// The contract check: what the adapter sends to the fake, and what the fake answers and posts as
// webhooks, held against Paystack's OpenAPI document (vendor/paystack/openapi.yaml). A small
// validator for the JSON-schema subset the document uses: type, nullable, required, properties,
// additionalProperties: false, enum, items, allOf, and local $ref. Every problem it finds must be
// one of the reviewed known mismatches (known-mismatches.ts) or the check fails.
import { readFileSync } from 'node:fs';
import { parseYaml } from './yaml.ts';

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, unknown>;
}

export interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
}

/** One way a message departs from the document. `path` is a dotted path, array items as `[]`. */
export interface Problem {
  /** e.g. `request transfer_initiate`, `response transfer_verify 200`, `webhook transfer.success`. */
  where: string;
  path: string;
  keyword: 'type' | 'required' | 'enum' | 'additionalProperties' | 'unknown-param' | 'status' | 'operation' | 'content-type';
  message: string;
}

/** One exchange as the fake saw it. */
export interface Exchange {
  method: string;
  pathname: string;
  query: Record<string, string>;
  contentType: string | undefined;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

const DOCUMENT = new URL('../../../vendor/paystack/openapi.yaml', import.meta.url);
let loaded: OpenApi | undefined;

export function openApi(): OpenApi {
  loaded ??= parseYaml(readFileSync(DOCUMENT, 'utf8')) as OpenApi;
  return loaded;
}

function resolve(doc: OpenApi, value: unknown): Schema {
  let current = value as Schema;
  for (let depth = 0; typeof current?.$ref === 'string'; depth += 1) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/') || depth > 32) throw new Error(`cannot resolve ${ref}`);
    let target: unknown = doc;
    for (const part of ref.slice(2).split('/')) target = (target as Record<string, unknown>)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) throw new Error(`dangling $ref ${ref}`);
    current = target as Schema;
  }
  return current;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function validate(doc: OpenApi, schemaOrRef: unknown, value: unknown, where: string, path = ''): Problem[] {
  const schema = resolve(doc, schemaOrRef);
  const problems: Problem[] = [];
  const at = path || '(root)';
  for (const part of (schema.allOf as unknown[] | undefined) ?? []) problems.push(...validate(doc, part, value, where, path));
  if (value === null) {
    if (schema.nullable === true || schema.type === undefined) return problems;
    problems.push({ where, path: at, keyword: 'type', message: `null where the document says ${String(schema.type)}` });
    return problems;
  }
  const actual = typeOf(value);
  if (typeof schema.type === 'string') {
    const fits = actual === schema.type || (schema.type === 'number' && actual === 'integer');
    if (!fits) {
      problems.push({ where, path: at, keyword: 'type', message: `${actual} where the document says ${schema.type}` });
      return problems;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    problems.push({ where, path: at, keyword: 'enum', message: `${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}` });
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties as Record<string, unknown> | undefined) ?? {};
    for (const name of (schema.required as string[] | undefined) ?? []) {
      if (!Object.hasOwn(object, name)) problems.push({ where, path: path ? `${path}.${name}` : name, keyword: 'required', message: `${name} is required but absent` });
    }
    for (const [name, child] of Object.entries(object)) {
      const childPath = path ? `${path}.${name}` : name;
      if (Object.hasOwn(properties, name)) problems.push(...validate(doc, properties[name], child, where, childPath));
      else if (schema.additionalProperties === false) problems.push({ where, path: childPath, keyword: 'additionalProperties', message: `${name} is not allowed here` });
    }
  }
  if (actual === 'array' && schema.items !== undefined) {
    for (const item of value as unknown[]) problems.push(...validate(doc, schema.items, item, where, `${path}[]`));
  }
  return problems;
}

/** The operation serving `method pathname`, matching templates such as /transfer/verify/{reference}. */
export function findOperation(doc: OpenApi, method: string, pathname: string): { template: string; operation: Operation; pathParameters: Parameter[] } | undefined {
  const exact = Object.keys(doc.paths).filter((template) => template === pathname);
  const templated = Object.keys(doc.paths).filter((template) => {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return template !== pathname && pattern.test(pathname);
  });
  for (const template of [...exact, ...templated]) {
    const item = doc.paths[template]!;
    const operation = item[method.toLowerCase()] as Operation | undefined;
    if (operation) return { template, operation, pathParameters: (item.parameters as Parameter[] | undefined) ?? [] };
  }
  return undefined;
}

function checkParameter(doc: OpenApi, parameter: Parameter, raw: string, where: string): Problem[] {
  const schema = resolve(doc, parameter.schema ?? {});
  const path = `query.${parameter.name}`;
  const bad = (message: string): Problem[] => [{ where, path, keyword: 'type', message }];
  if (schema.type === 'integer' && !/^-?\d+$/.test(raw)) return bad(`${JSON.stringify(raw)} is not an integer`);
  if (schema.type === 'boolean' && raw !== 'true' && raw !== 'false') return bad(`${JSON.stringify(raw)} is not a boolean`);
  if (schema.format === 'date-time' && Number.isNaN(Date.parse(raw))) return bad(`${JSON.stringify(raw)} is not a date-time`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(raw)) return [{ where, path, keyword: 'enum', message: `${JSON.stringify(raw)} is not one of ${JSON.stringify(schema.enum)}` }];
  return [];
}

/** The request against its operation: known path and method, query parameters, JSON body schema. */
export function checkRequest(doc: OpenApi, exchange: Exchange): Problem[] {
  const found = findOperation(doc, exchange.method, exchange.pathname);
  if (!found) return [{ where: `request ${exchange.method} ${exchange.pathname}`, path: '(operation)', keyword: 'operation', message: 'no such operation in the document' }];
  const { operation, pathParameters } = found;
  const where = `request ${operation.operationId}`;
  const problems: Problem[] = [];
  const query = [...pathParameters, ...(operation.parameters ?? [])].map((p) => resolve(doc, p) as unknown as Parameter).filter((p) => p.in === 'query');
  for (const parameter of query) {
    if (parameter.required && !Object.hasOwn(exchange.query, parameter.name)) {
      problems.push({ where, path: `query.${parameter.name}`, keyword: 'required', message: `query parameter ${parameter.name} is required` });
    }
  }
  for (const [name, raw] of Object.entries(exchange.query)) {
    const parameter = query.find((p) => p.name === name);
    if (!parameter) problems.push({ where, path: `query.${name}`, keyword: 'unknown-param', message: `query parameter ${name} is not in the document` });
    else problems.push(...checkParameter(doc, parameter, raw, where));
  }
  const content = operation.requestBody?.content;
  if (content) {
    if (!exchange.contentType?.startsWith('application/json')) {
      problems.push({ where, path: '(body)', keyword: 'content-type', message: `sent ${exchange.contentType ?? 'no content type'}, not application/json` });
    }
    const schema = content['application/json']?.schema;
    if (schema) problems.push(...validate(doc, schema, exchange.requestBody, where));
  } else if (exchange.requestBody !== undefined) {
    problems.push({ where, path: '(body)', keyword: 'content-type', message: 'a body where the operation takes none' });
  }
  return problems;
}

/** The fake's answer against the operation's documented responses (errors against Error). */
export function checkResponse(doc: OpenApi, exchange: Exchange): Problem[] {
  const found = findOperation(doc, exchange.method, exchange.pathname);
  if (!found) return [];
  const { operation } = found;
  const where = `response ${operation.operationId} ${exchange.status}`;
  const responses = operation.responses ?? {};
  const documented = responses[String(exchange.status)];
  if (exchange.status < 300 && !documented) {
    return [{ where, path: '(status)', keyword: 'status', message: `status ${exchange.status} is not documented (${Object.keys(responses).join(', ')})` }];
  }
  const response = documented !== undefined ? resolve(doc, documented) : undefined;
  const schema = (response?.content as Record<string, { schema?: Schema }> | undefined)?.['application/json']?.schema;
  if (schema) return validate(doc, schema, exchange.responseBody, where);
  if (exchange.status >= 400) return validate(doc, { $ref: '#/components/schemas/Error' }, exchange.responseBody, where);
  return [];
}

/**
 * A webhook body: the document has no webhook schema, so its `data` is held against what the
 * matching verify answers: a transfer's (transfer.*) against TransferVerifyResponse.data, a
 * charge's (charge.success) against the transaction GET /transaction/verify answers (VerifyResponse.data).
 */
export function checkWebhook(doc: OpenApi, body: unknown): Problem[] {
  const event = (body as { event?: unknown })?.event;
  const where = `webhook ${String(event)}`;
  if (typeof event !== 'string') return [{ where, path: 'event', keyword: 'type', message: 'no event name' }];
  const verify = resolve(doc, { $ref: event.startsWith('charge.') ? '#/components/schemas/VerifyResponse' : '#/components/schemas/TransferVerifyResponse' });
  const dataSchema = (verify.properties as Record<string, unknown>).data;
  return validate(doc, dataSchema, (body as { data?: unknown }).data, where, 'data');
}

export interface KnownMismatch {
  /** Prefixes of Problem.where it covers: `response transfer_verify`, `webhook transfer.failed`, `webhook`... */
  where: readonly string[];
  /** Problem.path values it covers (array items as `[]`). */
  path: readonly string[];
  keyword: Problem['keyword'];
  /** When set, a piece of the problem's message it must contain (e.g. the enum value). */
  matching?: string;
  reason: string;
}

export function explains(mismatch: KnownMismatch, problem: Problem): boolean {
  return (
    mismatch.where.some((where) => problem.where.startsWith(where)) &&
    mismatch.path.includes(problem.path) &&
    problem.keyword === mismatch.keyword &&
    (mismatch.matching === undefined || problem.message.includes(mismatch.matching))
  );
}

/**
 * Same shape as a sample: the same keys at every level (no more, no fewer) and the same JSON
 * types, where null on either side stands for "may be null". Paths of the differences.
 */
export function shapeDifferences(sample: unknown, actual: unknown, path = ''): string[] {
  const at = path || '(root)';
  if (sample === null || actual === null) return [];
  const sampleType = typeOf(sample) === 'integer' ? 'number' : typeOf(sample);
  const actualType = typeOf(actual) === 'integer' ? 'number' : typeOf(actual);
  if (sampleType !== actualType) return [`${at}: ${actualType} where the sample has ${sampleType}`];
  if (sampleType === 'object') {
    const s = sample as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const out: string[] = [];
    for (const key of Object.keys(s)) {
      const child = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(a, key)) out.push(`${child}: absent, the sample has it`);
      else out.push(...shapeDifferences(s[key], a[key], child));
    }
    for (const key of Object.keys(a)) if (!Object.hasOwn(s, key)) out.push(`${path ? `${path}.${key}` : key}: not in the sample`);
    return out;
  }
  if (sampleType === 'array') {
    const [first] = sample as unknown[];
    return first === undefined ? [] : (actual as unknown[]).flatMap((item) => shapeDifferences(first, item, `${path}[]`));
  }
  return [];
}
