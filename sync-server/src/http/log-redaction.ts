import type { FastifyRequest } from 'fastify';

/** A query key kept in the log: a plain parameter name. Anything else might be the secret itself. */
const PARAMETER_NAME = /^[A-Za-z][A-Za-z0-9_.[\]-]{0,39}$/;

/**
 * The URL with every query value replaced by `[redacted]`, keys kept (`?code=[redacted]&limit=[redacted]`).
 * A key that is not a plain parameter name, or a bare `?token` without `=`, is redacted whole.
 * Every route and parameter alike: a secret in a query string (a gift-card code on GET
 * /api/gift-cards/verify, or one a client puts where it should not) never needs its route to
 * remember to hide it.
 */
export function redactQueryValues(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const pairs = url.slice(mark + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=');
    if (equals === -1) return pair === '' ? pair : '[redacted]';
    const key = pair.slice(0, equals);
    return `${PARAMETER_NAME.test(key) ? key : '[redacted]'}=[redacted]`;
  });
  return `${url.slice(0, mark + 1)}${pairs.join('&')}`;
}

/** The request as every log line shows it: Fastify's default fields, the URL's query values redacted. */
export function loggedRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactQueryValues(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
