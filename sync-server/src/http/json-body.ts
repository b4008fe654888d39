import { JSON_DEPTH_MAX } from '@tapline/shared/limits';
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.ts';

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

const SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/**
 * Whether a JSON number literal stands for a value past the safe integer range (±2^53-1). An
 * integer literal is judged by its digits, not by the double it parses to:
 * `9007199254740993` parses to 9007199254740992 and would otherwise pass for a number that
 * was sent. Any other literal (a fraction, an exponent) by its magnitude: `1e20`, `1e308`,
 * `1e999` (Infinity).
 */
export function unsafeNumberLiteral(literal: string): boolean {
  if (/^-?\d+$/.test(literal)) {
    const digits = literal.replace(/^-/, '').replace(/^0+(?=\d)/, '');
    return digits.length > SAFE_DIGITS.length || (digits.length === SAFE_DIGITS.length && digits > SAFE_DIGITS);
  }
  const value = Number(literal);
  return !Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER;
}

/**
 * The path (`items.0.amount`, '' for a bare number) of the first number in JSON text whose
 * literal is past the safe integer range (`unsafeNumberLiteral`), or undefined: one pass over the
 * raw text, since the parsed value can no longer tell `9007199254740993` from
 * `9007199254740992`. Meant for text the parser has accepted.
 */
export function findUnsafeNumber(text: string): string | undefined {
  const stack: { key: string | number; object: boolean; expectKey: boolean }[] = [];
  const pathOf = () => stack.map((level) => String(level.key)).join('.');
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    const top = stack[stack.length - 1];
    if (char === 0x22) {
      let end = index + 1;
      for (; end < text.length && text.charCodeAt(end) !== 0x22; end++) if (text.charCodeAt(end) === 0x5c) end++;
      if (top?.object && top.expectKey) {
        top.key = JSON.parse(text.slice(index, end + 1)) as string;
        top.expectKey = false;
      }
      index = end;
    } else if (char === 0x7b) {
      stack.push({ key: '', object: true, expectKey: true });
    } else if (char === 0x5b) {
      stack.push({ key: 0, object: false, expectKey: false });
    } else if (char === 0x7d || char === 0x5d) {
      stack.pop();
    } else if (char === 0x2c && top) {
      if (top.object) top.expectKey = true;
      else top.key = (top.key as number) + 1;
    } else if (char === 0x2d || (char >= 0x30 && char <= 0x39)) {
      let end = index + 1;
      while (end < text.length && /[0-9eE+\-.]/.test(text[end]!)) end++;
      if (unsafeNumberLiteral(text.slice(index, end))) return pathOf();
      index = end - 1;
    }
  }
  return undefined;
}

/** Set on a request whose JSON body has a number past the safe range: its path (input-guard.ts refuses it). */
export const UNSAFE_NUMBER = Symbol('unsafeBodyNumber');
declare module 'fastify' {
  interface FastifyRequest {
    [UNSAFE_NUMBER]?: string;
  }
}

/**
 * JSON bodies: Fastify's own parser (prototype poisoning refused) behind two rules. A body nested
 * deeper than JSON_DEPTH_MAX is a 400 `body_too_deep` before anything parses or walks it. An
 * empty body is no body (the route's schema decides whether it needs one, see input-guard.ts),
 * so a client that sends `Content-Type: application/json` with nothing, as many do on a POST
 * without fields, is not told its JSON is invalid. A number past the safe integer range is noted
 * on the request (UNSAFE_NUMBER) for the input guard, which refuses it after the credential check.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (jsonDeeperThan(text, JSON_DEPTH_MAX)) return done(bodyTooDeep(), undefined);
    return parse(request, text, (error: Error | null, value?: unknown) => {
      if (!error) {
        const path = findUnsafeNumber(text);
        if (path !== undefined) request[UNSAFE_NUMBER] = path;
      }
      done(error, value);
    });
  });
}
