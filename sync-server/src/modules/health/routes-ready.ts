import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listMigrations } from '../../db/migrate.ts';
import { appliedMigrations, databaseWritable } from './store.ts';

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

/** A readiness check waits this long for the database; a hung connection is not ready. */
const DATABASE_DEADLINE_MS = 2_000;

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Readiness, apart from liveness (GET /api/health): whether this process should get traffic now.
 * It should not while the database does not answer, while the database lacks a migration this
 * server needs (a rolling upgrade whose migrations another instance is still applying), while
 * the database is read-only (a standby: after a failover the connection must reach the new
 * primary), or while it shuts down. A load balancer or orchestrator takes it out on 503 and restarts it only on
 * liveness failures. Never rate-limited, like liveness (auth/rate-limit.ts UNLIMITED_PATHS).
 */
export async function readinessRoutes(app: TypedApp, { db, rails }: AppContext): Promise<void> {
  const shipped = listMigrations().map((migration) => migration.version);
  const expected = shipped.at(-1) ?? 0;
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
    let versions: Set<number> | undefined;
    let writable = false;
    try {
      const [applied, canWrite] = await withDeadline(Promise.all([appliedMigrations(db), databaseWritable(db)]), DATABASE_DEADLINE_MS);
      versions = new Set(applied);
      writable = canWrite;
    } catch {
      versions = undefined;
    }
    const missing = versions ? shipped.filter((version) => !versions.has(version)) : [];
    const applied = versions && versions.size > 0 ? Math.max(...versions) : null;
    const ready = versions !== undefined && writable && missing.length === 0 && !shuttingDown;
    return reply.status(ready ? 200 : 503).send({ ready, database: versions !== undefined, writable, migrations: { applied, expected, missing }, shuttingDown, providers: [...rails.adapters.keys()] });
  });
}
