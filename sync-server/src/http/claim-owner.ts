import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';

/** How often this process tells the database it is alive. */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/**
 * A process silent this long is taken for dead (SIGKILL, a lost machine): an Idempotency-Key
 * claim it left in progress is run again by the next retry of the same request. Five missed
 * heartbeats, so a busy event loop or a slow database is not mistaken for a death; a claim of a
 * dead process is released at most this long after its last heartbeat.
 */
export const OWNER_SILENT_AFTER_SECONDS = 10;
/** Rows of processes gone this long are deleted. */
const FORGET_AFTER_HOURS = 24;
const BEATS_PER_CLEANUP = 900;

/**
 * This server process as the owner of the Idempotency-Key claims it runs (server_instances,
 * migration 018). Its row is written when the app is ready and refreshed every
 * HEARTBEAT_INTERVAL_MS while it runs; a graceful close deletes it (its requests have finished by
 * then). A failed heartbeat is logged and tried again at the next beat: the database being away
 * for a while must not stop the process.
 */
export function registerClaimOwner(app: FastifyInstance, db: Database): { id: string } {
  const owner = { id: `srv_${randomUUID()}` };
  let timer: NodeJS.Timeout | undefined;
  let beats = 0;
  let beating: Promise<void> | undefined;

  const beat = async () => {
    await db.query(
      `INSERT INTO server_instances (id, pid, hostname) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
      [owner.id, process.pid, hostname()],
      { prepareAs: 'server_instances_heartbeat' },
    );
    beats += 1;
    if (beats % BEATS_PER_CLEANUP === 1) {
      await db.query('DELETE FROM server_instances WHERE heartbeat_at < now() - make_interval(hours => $1)', [FORGET_AFTER_HOURS]);
    }
  };
  const beatLogged = () => {
    beating ??= beat()
      .catch((error: unknown) => app.log.warn({ err: error }, 'server heartbeat failed; Idempotency-Key claims of this process may be taken for abandoned'))
      .finally(() => {
        beating = undefined;
      });
    return beating;
  };

  app.addHook('onReady', async () => {
    await beatLogged();
    timer = setInterval(() => void beatLogged(), HEARTBEAT_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await beating;
    await db.query('DELETE FROM server_instances WHERE id = $1', [owner.id]).catch(() => undefined);
  });
  return owner;
}
