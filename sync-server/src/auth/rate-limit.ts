import rateLimit from '@fastify/rate-limit';
import { RATE_LIMIT_GROUPS, RATE_LIMIT_WINDOW_SECONDS, type RateLimitGroup } from '@tapline/shared/limits';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';

/** Valid admin calls are not limited; a very large limit keeps the headers on their answers. */
const ADMIN_MAX = 1_000_000_000;

export function rateLimitGroupOf(path: string): RateLimitGroup {
  if (path === '/api/pay') return RATE_LIMIT_GROUPS.pay;
  if (path.startsWith('/api/payments/') || path === '/api/payments') return RATE_LIMIT_GROUPS.payments;
  if (path === '/api/fx' || path.startsWith('/api/fx/')) return RATE_LIMIT_GROUPS.fx;
  if (path.startsWith('/api/bills/') || path === '/api/bills') return RATE_LIMIT_GROUPS.bills;
  return RATE_LIMIT_GROUPS.other;
}

/**
 * Liveness and readiness are never limited: an orchestrator or load balancer probes them from
 * one address, often the address every visitor behind the same proxy or NAT shares, and a
 * public budget spent by those visitors must not make a healthy server look dead. Each probe is
 * one cheap query; counting it would cost about as much.
 */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/health/ready']);

/**
 * Payment providers' callbacks (/api/rails/<provider>/...) are not counted per IP either: a
 * provider delivers every merchant's callbacks from a few addresses, and a callback refused 429
 * leaves a payout waiting for the next poll (Daraja's status answers come only by callback).
 * Each is verified by its adapter (a signature, or a per-request token) before anything is read
 * from the database, and a refused one is counted in tapline_rail_callbacks_total.
 */
export function isProviderCallback(url: string): boolean {
  return url.startsWith('/api/rails/');
}

function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** CONTRACT.md: the API key where one is sent, else the wallet/agent/terminal token, else the client IP; a publishable key per key and IP. */
function callerKey(request: FastifyRequest): string {
  const credential = request.credential;
  if (credential?.state !== 'valid') return `ip:${request.ip}`;
  const principal = credential.principal;
  switch (principal.kind) {
    case 'merchant':
      return `key:${principal.keyId}`;
    case 'terminal':
      return `terminal:${principal.terminalId}`;
    case 'wallet':
      return `wallet:${principal.sessionHash}`;
    case 'agent':
      return `agent:${principal.agentId}`;
    case 'admin':
      return 'admin';
    case 'publishable':
      // The key is shared by every visitor of the merchant's site: counting it per client IP
      // keeps one abusive visitor from using up the checkout of everyone else.
      return `publishable:${principal.keyId}:ip:${request.ip}`;
  }
}

function maxFor(request: FastifyRequest, group: RateLimitGroup, scale: number): number {
  const credential = request.credential;
  if (credential?.state === 'valid') {
    const principal = credential.principal;
    if (principal.kind === 'admin') return ADMIN_MAX;
    if (principal.kind === 'merchant' || principal.kind === 'terminal' || principal.kind === 'publishable') return Math.max(1, Math.round(group.max * scale)) * principal.rateLimitMultiplier;
  }
  return Math.max(1, Math.round(group.max * scale));
}

interface StoreResult {
  current: number;
  ttl: number;
}

/**
 * A fixed-window counter store in the shared database, so several server instances count one
 * caller together. One upsert per request, outside any transaction.
 */
function postgresStore(db: Database) {
  return class PostgresRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: StoreResult) => void, timeWindow: number): void {
      db.query<{ count: number; ttl: number }>(
        `INSERT INTO rate_limit_counters AS c (key, count, window_ends_at)
         VALUES ($1, 1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN c.window_ends_at <= now() THEN 1 ELSE c.count + 1 END,
           window_ends_at = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.window_ends_at ELSE c.window_ends_at END
         RETURNING count, greatest(0, ceil(extract(epoch FROM (window_ends_at - now())) * 1000))::int8 AS ttl`,
        [key, timeWindow],
      ).then(
        (rows) => callback(null, { current: rows[0]?.count ?? 1, ttl: rows[0]?.ttl ?? timeWindow }),
        (error: Error) => callback(error),
      );
    }
    child(): PostgresRateLimitStore {
      return this;
    }
  };
}

export interface RateLimitOptions {
  store: 'memory' | 'postgres';
  /** Multiplies every limit (tests use small limits); default 1. */
  scale?: number;
  /** The window; default RATE_LIMIT_WINDOW_SECONDS (the spec's 60 seconds). */
  windowMs?: number;
}

export async function registerRateLimits(app: FastifyInstance, db: Database, options: RateLimitOptions): Promise<void> {
  const scale = options.scale ?? 1;
  const windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_SECONDS * 1000;
  const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} seconds`;
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: RATE_LIMIT_WINDOW_SECONDS * 1000,
    // A shared counter the database cannot update (it is down) lets the request through: the
    // request meets the outage itself and answers it (503, or /api/health's ok: false).
    ...(options.store === 'postgres' ? { store: postgresStore(db), skipOnError: true } : {}),
    // Pages, docs and static files are not part of the limited API; nor are the health probes.
    allowList: (request) => !request.url.startsWith('/api/') || UNLIMITED_PATHS.has(pathOf(request)) || isProviderCallback(request.url),
    keyGenerator: (request) => {
      const group = rateLimitGroupOf(pathOf(request));
      return `${group.name}:${group.per === 'ip' ? `ip:${request.ip}` : callerKey(request)}`;
    },
    max: (request) => maxFor(request, rateLimitGroupOf(pathOf(request)), scale),
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'rate_limited', `Too many requests: the limit is ${context.max} per ${per}; retry in ${context.after}`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
    // RATE_LIMIT_WINDOW_SECONDS: tests shorten the window to meet a 429 and its Retry-After quickly.
    ...(windowMs === RATE_LIMIT_WINDOW_SECONDS * 1000 ? {} : { timeWindow: windowMs }),
  });
  if (options.store === 'postgres') {
    // Expired counters are dead weight; sweep them now and then.
    const sweep = setInterval(() => {
      db.query(`DELETE FROM rate_limit_counters WHERE window_ends_at < now() - interval '5 minutes'`).catch(() => undefined);
    }, 5 * 60_000);
    sweep.unref();
    app.addHook('onClose', async () => clearInterval(sweep));
  }
}
