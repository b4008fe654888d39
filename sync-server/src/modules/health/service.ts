import type { AppContext } from '../../context.ts';
import { listMigrations } from '../../db/migrate.ts';
import { appliedMigrations, databaseWritable, ping } from './store.ts';

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
 * Liveness: the process answers, and how long a round trip to its database takes. The uptime is
 * counted from when the service is built (the routes' registration, at start-up).
 */
export function livenessService(context: AppContext) {
  const { db } = context;
  const startedAt = process.hrtime.bigint();

  /** ok is false, and dbLatency null, while the database does not answer: the process is alive but cannot serve. */
  async function liveness(): Promise<{ ok: boolean; uptime: number; dbLatency: number | null }> {
    const uptime = Number((process.hrtime.bigint() - startedAt) / 1_000_000n) / 1000;
    const began = performance.now();
    try {
      await ping(db);
      return { ok: true, uptime, dbLatency: Math.round((performance.now() - began) * 1000) / 1000 };
    } catch {
      return { ok: false, uptime, dbLatency: null };
    }
  }

  return { liveness };
}

export type LivenessService = ReturnType<typeof livenessService>;

/**
 * Readiness: whether this process should get traffic now. It should not while the database does
 * not answer within its deadline, lacks a migration this server ships (a rolling upgrade whose
 * migrations another instance is still applying), is read-only (a standby: after a failover the
 * connection must reach the new primary), or while the process shuts down. The migrations this
 * server ships are read once, when the service is built.
 */
export function readinessService(context: AppContext) {
  const { db, rails } = context;
  const shipped = listMigrations().map((migration) => migration.version);
  const expected = shipped.at(-1) ?? 0;

  async function readiness(shuttingDown: boolean) {
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
    return { ready, database: versions !== undefined, writable, migrations: { applied, expected, missing }, shuttingDown, providers: [...rails.adapters.keys()] };
  }

  return { readiness };
}

export type ReadinessService = ReturnType<typeof readinessService>;
