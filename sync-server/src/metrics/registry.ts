import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { pgErrorCode } from '../db/database.ts';

/**
 * The process's own metrics: one process is one Prometheus target, whatever number of apps it
 * builds (tests build several), so counters that code anywhere increments (the ledger, the sync
 * push) live here once. Each app adds its gauges in a registry of its own (metrics/plugin.ts).
 */
export const processRegistry = new Registry();

// Node's own: CPU, memory, heap, event loop lag, handles, under their usual names.
collectDefaultMetrics({ register: processRegistry });

export const httpRequestDuration = new Histogram({
  name: 'tapline_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern (never the raw URL) and status code; _count is the request rate',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [processRegistry],
});

const ledgerTransfers = new Counter({
  name: 'tapline_ledger_transfers_total',
  help: 'Ledger transfers posted, by kind (a retried transfer that already existed is not counted)',
  labelNames: ['kind'] as const,
  registers: [processRegistry],
});

const syncPushes = new Counter({
  name: 'tapline_sync_pushed_documents_total',
  help: 'Documents terminals pushed over the socket.io sync, by collection',
  labelNames: ['collection'] as const,
  registers: [processRegistry],
});

const syncVerdicts = new Counter({
  name: 'tapline_sync_verdicts_total',
  help: 'Verdicts the server gave on pushed documents, by collection, status and code (the decline rule, or "ok")',
  labelNames: ['collection', 'status', 'code'] as const,
  registers: [processRegistry],
});

const databaseErrors = new Counter({
  name: 'tapline_database_errors_total',
  help: 'Database errors: source "request" (a request failed on one) or "pool" (an idle connection failed), by SQLSTATE or "connection"',
  labelNames: ['source', 'code'] as const,
  registers: [processRegistry],
});

const railCallbacks = new Counter({
  name: 'tapline_rail_callbacks_total',
  help: 'Callbacks from payment providers at /api/rails/<provider>/...: verdict refused (forged, unsigned or unknown), ignored, applied or unchanged (a duplicate)',
  labelNames: ['provider', 'verdict'] as const,
  registers: [processRegistry],
});

/** One provider callback and what became of it. For rails/routes.ts. */
export function recordRailCallback(provider: string, verdict: string): void {
  railCallbacks.inc({ provider, verdict });
}

/** One posted transfer (result `created`), from whichever path posted it. */
export function recordLedgerTransfer(kind: string): void {
  ledgerTransfers.inc({ kind });
}

/** Documents of one push, before their verdicts. For sync/socket.ts. */
export function recordSyncPush(collection: string, documents: number): void {
  syncPushes.inc({ collection }, documents);
}

/** One verdict of the sync push: status accepted/declined (or the protocol's), code the rule or null. For sync/socket.ts. */
export function recordSyncVerdict(collection: string, status: string, code: string | null | undefined): void {
  syncVerdicts.inc({ collection, status, code: code ?? 'ok' });
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/** The label of an error if it came from the database (a SQLSTATE, or "connection"), else undefined. */
export function databaseErrorCode(error: unknown): string | undefined {
  const code = pgErrorCode(error);
  if (code && /^[0-9A-Z]{5}$/.test(code)) return code;
  if (code && CONNECTION_ERROR_CODES.has(code)) return 'connection';
  const message = error instanceof Error ? error.message : '';
  if (/Connection terminated|connection timeout|Client has encountered a connection error|Connection closed/i.test(message)) return 'connection';
  return undefined;
}

export function recordDatabaseError(source: 'request' | 'pool', code: string): void {
  databaseErrors.inc({ source, code });
}
