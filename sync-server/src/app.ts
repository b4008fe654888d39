import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { Database } from './db/database.ts';
import { registerAuth } from './auth/hooks.ts';
import { adminTokenChecker } from './auth/principal.ts';
import { registerRateLimits } from './auth/rate-limit.ts';
import { notFound, registerErrorHandling } from './http/errors.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { agentRoutes } from './modules/agent/routes.ts';
import { healthRoutes } from './modules/health/routes.ts';
import { merchantRoutes } from './modules/merchant/routes.ts';
import { walletRoutes } from './modules/wallet/routes.ts';

export interface BuildAppOptions {
  config: Config;
  db: Database;
  /** SHA-256 of the admin token (see ensureAdminToken). */
  adminTokenHash: string;
  now?: () => Date;
  /** Scales every rate limit; tests use it to reach a limit with few requests. */
  rateLimitScale?: number;
  /** Pino logger; false in tests. */
  logger?: boolean;
}

const API_DESCRIPTION = `Tapline's sync server: payments, FX, bills, payment links, Pay Identity, tap wearables, POS
sessions, gift cards and the store, on a double-entry ledger.

Money: JSON amounts are decimal numbers in major units (12.50); the ledger keeps integer minor units
per ISO 4217. Errors: {error, code, details?}. Lists: {data, total, limit, offset}.
Rate limits per the Limits table, with X-RateLimit-Limit, X-RateLimit-Remaining and
X-RateLimit-Reset (seconds until the window resets) on every /api answer, and Retry-After on 429.`;

/** Builds the application without listening: tests call app.inject(), main.ts listens. */
export async function buildApp(options: BuildAppOptions): Promise<{ app: FastifyInstance; context: AppContext }> {
  const { config, db } = options;
  const context: AppContext = { db, config, now: options.now ?? (() => new Date()) };
  const app = Fastify({
    logger: options.logger === false ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: process.env.TRUST_PROXY === '1',
    ajv: { customOptions: { allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tapline API', version: '0.1.0', description: API_DESCRIPTION },
      servers: [{ url: config.publicBaseUrl }],
      components: {
        securitySchemes: {
          merchantKey: { type: 'apiKey', in: 'header', name: 'x-merchant-api-key', description: 'mk_test_ or mk_live_ key; Authorization: Bearer <key> also works' },
          bearer: { type: 'http', scheme: 'bearer', description: 'wallet.<token>, agent.<token>, term.<token> or admin.<token>' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  // The API speaks JSON only: other bodies get a clear 415 instead of a confusing schema error.
  app.removeContentTypeParser(['text/plain']);
  registerErrorHandling(app);
  registerAuth(app, db, adminTokenChecker(options.adminTokenHash));
  await registerRateLimits(app, db, { store: config.rateLimitStore, scale: options.rateLimitScale ?? 1 });
  registerIdempotency(app, db);

  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request) => {
    throw notFound('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
  });

  for (const routes of [healthRoutes, adminRoutes, merchantRoutes, walletRoutes, agentRoutes]) {
    await routes(app, context);
  }
  return { app, context };
}
