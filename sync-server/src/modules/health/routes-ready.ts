import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { readinessService } from './service.ts';

const Readiness = Type.Object({
  ready: Type.Boolean({ description: 'true: send traffic here' }),
  database: Type.Boolean({ description: 'The database answered within the deadline' }),
  writable: Type.Boolean({ description: 'The database takes writes: false on a read-only standby (not yet promoted) or a read-only database' }),
  migrations: Type.Object({
    applied: Type.Union([Type.Integer(), Type.Null()], { description: 'The newest migration the database has, null when it could not be read' }),
    expected: Type.Integer({ description: 'The newest migration this server ships' }),
    missing: Type.Array(Type.Integer(), { description: 'Migrations this server ships that the database lacks (empty when it could not be read)' }),
  }),
  shuttingDown: Type.Boolean({ description: 'The server is finishing its requests before it exits (SIGTERM)' }),
  providers: Type.Array(Type.String(), {
    description: 'The payment providers configured for live payouts and collections (paystack, flutterwave, mpesa, momo); a provider missing from the list is not routed to',
  }),
});

/**
 * Readiness, apart from liveness (GET /api/health): whether this process should get traffic now
 * (service.ts says when it should not). A load balancer or orchestrator takes it out on 503 and
 * restarts it only on liveness failures. Never rate-limited, like liveness (auth/rate-limit.ts UNLIMITED_PATHS).
 */
export async function readinessRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = readinessService(context);
  let shuttingDown = false;
  app.addHook('preClose', async () => {
    shuttingDown = true;
  });

  app.get('/api/health/ready', {
    schema: {
      tags: ['health'],
      summary: 'Readiness: 200 when the database answers, takes writes, has every migration and the server is not shutting down; else 503',
      response: { 200: Readiness, 503: Readiness },
    },
  }, async (_request, reply) => {
    const readiness = await service.readiness(shuttingDown);
    return reply.status(readiness.ready ? 200 : 503).send(readiness);
  });
}
