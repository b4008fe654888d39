import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { ErrorBody } from '@tapline/shared/schemas';
import type { AdminTokenCheck } from '../auth/principal.ts';
import type { Database } from '../db/database.ts';
import type { PostgresDatabase } from '../db/postgres.ts';
import { outboxBacklog } from '../events/outbox.ts';
import { ApiError, unauthorized } from '../http/errors.ts';
import { databaseErrorCode, httpRequestDuration, processRegistry, recordDatabaseError } from './registry.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's Prometheus metrics (the process's and its own), for GET /metrics and the METRICS_PORT listener. */
    metrics: AppMetrics;
  }
}

export interface AppMetrics {
  readonly contentType: string;
  /** The exposition text; collects the gauges that read the database (two cheap queries). */
  text(): Promise<string>;
  /** Where the number of connected terminals comes from (the sync endpoint's namespace). */
  countTerminalsWith(count: () => number): void;
  /** A gauge a module reads at scrape time (a cheap query of its own tables). */
  gauge(name: string, help: string, read: () => Promise<number>): void;
}

/** An outbox read is shared by the gauges of one scrape. */
const OUTBOX_READ_REUSE_MS = 1_000;

/**
 * Prometheus metrics of one app: the request histogram by route pattern, database errors, and
 * gauges read at scrape time (outbox backlog and its oldest due delivery, connected terminals,
 * the PostgreSQL pool). GET /metrics needs the admin token: it is never open to the LAN by default
 * (METRICS_PORT serves it on a separate, loopback-by-default address instead; see listener.ts).
 */
export function registerMetrics(app: FastifyInstance, db: Database, isAdminToken: AdminTokenCheck, now: () => Date): void {
  const registry = new Registry();
  let terminals: () => number = () => 0;

  let outboxRead: { at: number; value: Promise<{ pending: number; oldestDueSeconds: number }> } | undefined;
  const outbox = () => {
    if (!outboxRead || now().getTime() - outboxRead.at > OUTBOX_READ_REUSE_MS) {
      const value = outboxBacklog(db);
      outboxRead = { at: now().getTime(), value };
    }
    return outboxRead.value;
  };

  new Gauge({
    name: 'tapline_outbox_deliveries_pending',
    help: 'Event deliveries (webhooks, POS callbacks) not yet delivered nor given up, due or waiting for a retry',
    registers: [registry],
    async collect() {
      this.set((await outbox()).pending);
    },
  });
  new Gauge({
    name: 'tapline_outbox_oldest_due_delivery_age_seconds',
    help: 'How long the oldest due event delivery has been waiting for the dispatcher (0 when none is due)',
    registers: [registry],
    async collect() {
      this.set((await outbox()).oldestDueSeconds);
    },
  });
  new Gauge({
    name: 'tapline_sync_terminals_connected',
    help: 'Kiosk terminals connected to this process\'s socket.io sync endpoint',
    registers: [registry],
    collect() {
      this.set(terminals());
    },
  });
  const pool = db.kind === 'postgres' ? (db as Partial<PostgresDatabase>).pool : undefined;
  if (pool) {
    new Gauge({
      name: 'tapline_database_pool_clients',
      help: 'The PostgreSQL pool\'s connections: total (open), idle, and waiting (requests queued for a connection)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    const onPoolError = (error: unknown) => recordDatabaseError('pool', databaseErrorCode(error) ?? 'connection');
    pool.on('error', onPoolError);
    app.addHook('onClose', async () => {
      pool.off('error', onPoolError);
    });
  }

  const merged = Registry.merge([processRegistry, registry]);
  app.decorate('metrics', {
    contentType: merged.contentType,
    async text() {
      try {
        return await merged.metrics();
      } catch (error) {
        // A scrape while the database is away: the gauges that read it fail, the counters do not.
        outboxRead = undefined;
        recordDatabaseError('request', databaseErrorCode(error) ?? 'connection');
        throw new ApiError(503, 'metrics_unavailable', 'Metrics need the database, which does not answer');
      }
    },
    countTerminalsWith(count: () => number) {
      terminals = count;
    },
    gauge(name, help, read) {
      // Into the merged registry: Registry.merge copied the metrics that existed when it was made.
      new Gauge({
        name,
        help,
        registers: [merged],
        async collect() {
          this.set(await read());
        },
      });
    },
  } satisfies AppMetrics);

  app.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.addHook('onError', async (_request, _reply, error) => {
    const code = databaseErrorCode(error);
    if (code) recordDatabaseError('request', code);
  });

  app.get('/metrics', {
    schema: {
      tags: ['health'],
      summary: 'Prometheus metrics (text exposition format); needs Authorization: Bearer admin.<token>',
      description:
        'Requests by route, ledger transfers by kind, outbox backlog and oldest due delivery, connected terminals, sync pushes and verdicts ' +
        'by code, the database pool and database errors, and Node\'s own. Set METRICS_PORT to serve it without a credential on a separate ' +
        'address (METRICS_HOST, 127.0.0.1 by default) for a Prometheus on the same machine or network.',
      response: { 401: ErrorBody, 503: ErrorBody },
    },
  }, async (request: FastifyRequest, reply: FastifyReply) => {
    requireAdmin(request, isAdminToken);
    const text = await app.metrics.text();
    return reply.type(app.metrics.contentType).send(text);
  });
}

function requireAdmin(request: FastifyRequest, isAdminToken: AdminTokenCheck): void {
  const authorization = request.headers.authorization;
  if (authorization === undefined || authorization.trim() === '') {
    throw unauthorized('authentication_required', 'Metrics need the admin token: Authorization: Bearer admin.<token> (or a METRICS_PORT listener)');
  }
  const match = /^Bearer\s+admin\.(\S+)\s*$/i.exec(authorization.trim());
  if (!match?.[1] || !isAdminToken(match[1])) throw unauthorized('invalid_admin_token', 'The admin token is not valid');
}
