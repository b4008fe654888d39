import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { ErrorBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { ping } from './store.ts';

const Health = Type.Object({
  ok: Type.Boolean(),
  uptime: Type.Number({ description: 'Seconds since the server started' }),
  dbLatency: Type.Union([Type.Number({ description: 'Milliseconds for a round trip to the database' }), Type.Null()]),
});

/**
 * Liveness: GET /api/health answers 200 while the process and its database answer, 503
 * `{ok: false}` while the database does not. It needs no credential and, like readiness
 * (ready.ts), is never rate-limited (auth/rate-limit.ts UNLIMITED_PATHS): the public per-IP budget
 * that visitors behind the orchestrator's proxy or NAT spend never turns a probe into a 429.
 */
export async function healthRoutes(app: TypedApp, { db }: AppContext): Promise<void> {
  const startedAt = process.hrtime.bigint();
  app.get('/api/health', {
    // A 503 can also come from the error handler (a credential sent along could not be checked
    // while the database is down): both shapes are documented, or serializing it would fail.
    schema: { tags: ['health'], summary: 'Liveness and database round-trip time', response: { 200: Health, 503: Type.Union([Health, ErrorBody]) } },
  }, async (_request, reply) => {
    const uptime = Number((process.hrtime.bigint() - startedAt) / 1_000_000n) / 1000;
    const began = performance.now();
    try {
      await ping(db);
      return { ok: true, uptime, dbLatency: Math.round((performance.now() - began) * 1000) / 1000 };
    } catch {
      return reply.status(503).send({ ok: false, uptime, dbLatency: null });
    }
  });
}
