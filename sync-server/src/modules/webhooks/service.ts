import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { type AttemptRow, type DeliveryRow, attemptsOf, findDelivery, listDeliveries } from '../../events/deliveries.ts';

/** A delivery of the log with every attempt made of it, oldest first. */
export interface LoggedDelivery {
  row: DeliveryRow;
  attempts: readonly AttemptRow[];
}

/** Whose log: a merchant's, in one mode (a test key never sees live deliveries). */
interface LogOwner {
  merchantId: string;
  mode: Mode;
}

/**
 * The webhook delivery log's rules. The outbox is `events/`'s (no SQL on it outside that folder):
 * the log reads it through `events/deliveries.ts`, and a redelivery is the dispatcher's, so it
 * is signed, timed and recorded like every other attempt.
 */
export function webhookService(context: AppContext) {
  const { db, events } = context;

  async function withAttempts(row: DeliveryRow): Promise<LoggedDelivery> {
    const attempts = await attemptsOf(db, [row.id]);
    return { row, attempts: attempts.get(row.id) ?? [] };
  }

  /** One page of the owner's deliveries, newest first, each with its attempts. */
  async function listLog(owner: LogOwner, filter: { state?: string | undefined; event?: string | undefined; eventId?: string | undefined }, limit: number, offset: number): Promise<{ deliveries: LoggedDelivery[]; total: number }> {
    const page = await listDeliveries(db, { merchantId: owner.merchantId, mode: owner.mode, state: filter.state, event: filter.event, eventId: filter.eventId }, limit, offset);
    const attempts = await attemptsOf(db, page.rows.map((row) => row.id));
    return { deliveries: page.rows.map((row) => ({ row, attempts: attempts.get(row.id) ?? [] })), total: page.total };
  }

  /** One of the owner's deliveries; another merchant's or mode's is 404 like an unknown one. */
  async function delivery(owner: LogOwner, id: string): Promise<LoggedDelivery> {
    const row = await findDelivery(db, id, owner.merchantId, owner.mode);
    if (!row) throw notFound('delivery_not_found', `No webhook delivery ${id}`);
    return withAttempts(row);
  }

  /** One new attempt now (unless one is in flight: 409), answered with the delivery after it. */
  async function redeliver(owner: LogOwner, id: string): Promise<LoggedDelivery> {
    const result = await events.redeliver(id, owner.merchantId, owner.mode);
    if (result.outcome === 'not_found') throw notFound('delivery_not_found', `No webhook delivery ${id}`);
    if (result.outcome === 'in_progress') throw conflict('delivery_in_progress', 'An attempt of this delivery is in flight; try again when it has finished');
    return delivery(owner, id);
  }

  return { listLog, delivery, redeliver };
}

export type WebhookService = ReturnType<typeof webhookService>;
