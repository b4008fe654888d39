import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unstorableCharacter } from '@tapline/shared/text';
import { badRequest } from './errors.ts';
import { UNSAFE_NUMBER } from './json-body.ts';

/**
 * Text PostgreSQL cannot store: NUL (text and jsonb refuse it) and UTF-16 surrogates without
 * their other half (JSON allows "\ud800", UTF-8 cannot encode it, jsonb refuses it): the
 * shared rule (`unstorableCharacter`) that terminals' pushed documents are checked by too.
 */
const unstorable = (text: string) => unstorableCharacter(text) !== null;
/** No identifier in a path has control characters; `%00` or `%0A` in one is a broken or hostile client. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001F\u007F]/;

type Part = 'body' | 'querystring' | 'params';

function issue(part: Part, path: string, message: string) {
  return { field: path ? `${part}.${path}` : part, message };
}

/**
 * The path (`a.0.b`, '' for `value` itself) of the first string, key or value, that PostgreSQL
 * could not store, or undefined; iterative, so no depth is too deep.
 */
export function findUnstorableText(value: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value: current, path } = next;
    if (typeof current === 'string') {
      if (unstorable(current)) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push({ value: item, path: path ? `${path}.${index}` : String(index) }));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const itemPath = path ? `${path}.${key}` : key;
        if (unstorable(key)) return itemPath;
        pending.push({ value: item, path: itemPath });
      }
    }
  }
  return undefined;
}

function entriesOf(value: unknown): [string, unknown][] {
  return value !== null && typeof value === 'object' ? Object.entries(value) : [];
}

/** A route whose body schema is an object with no required field takes a missing body as `{}`. */
function acceptsEmptyBody(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema?.body as { type?: unknown; required?: unknown } | undefined;
  return schema?.type === 'object' && (!Array.isArray(schema.required) || schema.required.length === 0);
}

/**
 * Input the database would choke on is refused at the door, on every route, with a 400 that
 * names the field, instead of a 500 from deep inside a query:
 * - `invalid_text`: NUL or an unpaired surrogate in any string of the body, the query or the path
 *   (keys included);
 * - `invalid_parameter`: a control character in a path parameter, or a number in the query or
 *   the path outside the safe integer range (±2^53-1; `?offset=99999999999999999999` would
 *   otherwise reach PostgreSQL as 1e+20);
 * - `validation_failed`: a number in a JSON body outside the safe integer range, on every route
 *   whatever its schema says (`"offset": 1e20`, `1e308`, and `9007199254740993`, which JSON.parse
 *   would silently read as 9007199254740992: json-body.ts judges the literal as sent). A field
 *   with a smaller documented maximum is held to it by its schema, with the same code.
 * A POST without a body where the route requires no field is taken as `{}`.
 * Runs after the credential check (preValidation hooks run in order), so an anonymous caller
 * still gets its 401 first; the number check runs once the schema has turned query text into
 * numbers (preHandler), before the Idempotency-Key is claimed.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [name, value] of entriesOf(request.params)) {
      if (typeof value === 'string' && CONTROL_CHARACTER.test(value)) {
        throw badRequest('invalid_parameter', `Path parameter ${name} has a control character`, [issue('params', name, 'must not contain control characters')]);
      }
    }
    for (const [part, value] of [['params', request.params], ['querystring', request.query], ['body', request.body]] as const) {
      const path = findUnstorableText(value);
      if (path === undefined) continue;
      const where = issue(part, path, 'must not contain NUL characters or unpaired UTF-16 surrogates');
      throw badRequest('invalid_text', `Invalid text in ${where.field}: NUL characters and unpaired UTF-16 surrogates are refused`, [where]);
    }
    const unsafe = request[UNSAFE_NUMBER];
    if (unsafe !== undefined) {
      const field = unsafe || 'body';
      const message = `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
      throw badRequest('validation_failed', `Invalid body: ${field} ${message}`, [{ field, message }]);
    }
    if (request.body === undefined && acceptsEmptyBody(request)) request.body = {};
  });

  app.addHook('preHandler', async (request) => {
    for (const [part, value] of [['params', request.params], ['querystring', request.query]] as const) {
      for (const [name, item] of entriesOf(value)) {
        for (const number of Array.isArray(item) ? item : [item]) {
          if (typeof number === 'number' && Math.abs(number) > Number.MAX_SAFE_INTEGER) {
            const where = issue(part, name, `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
            throw badRequest('invalid_parameter', `Invalid ${where.field}: ${where.message}`, [where]);
          }
        }
      }
    }
  });
}
