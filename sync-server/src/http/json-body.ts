import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.ts';

/**
 * The deepest nesting of arrays and objects a JSON body may have. The deepest body the API
 * documents (a payroll run: the run, its items, an item, its structured receiver) is 4 levels; 32 leaves
 * room for any future shape while code that walks a body (the Idempotency-Key request hash)
 * stays far from the stack limit.
 */
export const JSON_DEPTH_MAX = 32;

export const bodyTooDeep = () => badRequest('body_too_deep', `The request body nests arrays and objects deeper than ${JSON_DEPTH_MAX} levels`);

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, by one pass over the text (no
 * parsing, no recursion): brackets inside strings do not count. Malformed text is left for the
 * parser to refuse.
 */
export function jsonDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > limit) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * JSON bodies: Fastify's own parser (prototype poisoning refused) behind two rules. A body nested
 * deeper than JSON_DEPTH_MAX is a 400 `body_too_deep` before anything parses or walks it. An
 * empty body is no body (the route's schema decides whether it needs one, see input-guard.ts),
 * so a client that sends `Content-Type: application/json` with nothing, as many do on a POST
 * without fields, is not told its JSON is invalid.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonDeeperThan(text, JSON_DEPTH_MAX)) return done(bodyTooDeep(), undefined);
    return parse(request, text, done);
  });
}
