import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Answer browsers of any origin (CORS): only the routes the browser drop-in calls from
     * merchants' pages (the checkout sessions). Nothing there rides on cookies: credentials are
     * headers (a publishable key) or the payer's proof in the body, so `*` shares no ambient
     * authority. A publishable key's allowedOrigins are enforced by the route, not here.
     */
    cors?: boolean;
  }
}

const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, x-merchant-api-key';
const EXPOSED_HEADERS = 'idempotent-replayed, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset';
/** How long a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Adds the CORS answer headers to every reply of a `config.cors` route, errors and 429s included. */
export function registerCors(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.routeOptions.config?.cors) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    }
    return payload;
  });
}

/** The preflight (OPTIONS) of a CORS route: which methods and headers a page may send. */
export function corsPreflight(app: FastifyInstance, url: string, methods: readonly string[]): void {
  app.options(url, { config: { cors: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply
      .status(204)
      .headers({
        'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
      })
      .send();
  });
}
