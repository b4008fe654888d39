import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { ErrorBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { livenessService } from './service.ts';

const Health = Type.Object({
  ok: Type.Boolean(),
  uptime: Type.Number({ description: 'Seconds since the server started' }),
  dbLatency: Type.Union([Type.Number({ description: 'Milliseconds for a round trip to the database' }), Type.Null()]),
});

/**
 * Liveness: GET /api/health answers 200 while the process and its database answer, 503
 * `{ok: false}` while the database does not. It needs no credential and, like readiness
 * (routes-ready.ts), is never rate-limited (auth/rate-limit.ts UNLIMITED_PATHS): the public per-IP budget
 * that visitors behind the orchestrator's proxy or NAT spend never turns a probe into a 429.
 */
export async function healthRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = livenessService(context);
  app.get('/api/health', {
    // A 503 can also come from the error handler (a credential sent along could not be checked
    // while the database is down): both shapes are documented, or serializing it would fail.
    schema: { tags: ['health'], summary: 'Liveness and database round-trip time', response: { 200: Health, 503: Type.Union([Health, ErrorBody]) } },
  }, async (_request, reply) => {
    const health = await service.liveness();
    return health.ok ? health : reply.status(503).send(health);
  });
}
