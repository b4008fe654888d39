// The outbox's deliveries as a merchant reads them (modules/webhooks: the delivery log and its
// attempts). The outbox belongs here, in events/: modules read and write it through this folder.
import type { Queryable } from '../db/database.ts';
import type { Mode } from '../auth/secrets.ts';

export interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  mode: Mode;
  url: string;
  signature_format: 'hex' | 'sha256=';
  state: 'pending' | 'delivering' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_status: number | null;
  last_error: string | null;
  body: string;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryFilter {
  merchantId: string;
  mode: Mode;
  state?: string | undefined;
  event?: string | undefined;
  eventId?: string | undefined;
  id?: string | undefined;
}

const COLUMNS = `d.id, d.event_id, e.type, d.mode, d.url, d.signature_format, d.state, d.attempts, d.next_attempt_at,
  d.last_status, d.last_error, e.body, d.created_at, d.updated_at`;

function where(filter: DeliveryFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [filter.merchantId, filter.mode];
  const clauses = ['d.merchant_id = $1', 'd.mode = $2'];
  for (const [column, value] of [['d.state', filter.state], ['e.type', filter.event], ['d.event_id', filter.eventId], ['d.id', filter.id]] as const) {
    if (value === undefined) continue;
    params.push(value);
    clauses.push(`${column} = $${params.length}`);
  }
  return { sql: clauses.join(' AND '), params };
}

/** A merchant's deliveries in one mode, newest first, with the total for paging. */
export async function listDeliveries(db: Queryable, filter: DeliveryFilter, limit: number, offset: number): Promise<{ rows: DeliveryRow[]; total: number }> {
  const { sql, params } = where(filter);
  const rows = await db.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM event_deliveries d JOIN events e ON e.id = d.event_id WHERE ${sql}
     ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...(params as string[]), limit, offset],
  );
  const [count] = await db.query<{ total: number }>(
    `SELECT count(*)::int8 AS total FROM event_deliveries d JOIN events e ON e.id = d.event_id WHERE ${sql}`,
    params as string[],
  );
  return { rows, total: count?.total ?? 0 };
}

export async function findDelivery(db: Queryable, id: string, merchantId: string, mode: Mode): Promise<DeliveryRow | undefined> {
  const { sql, params } = where({ merchantId, mode, id });
  const [row] = await db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM event_deliveries d JOIN events e ON e.id = d.event_id WHERE ${sql}`, params as string[]);
  return row;
}

/** Every attempt of the given deliveries, oldest first. */
export async function attemptsOf(db: Queryable, deliveryIds: readonly string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db.query<AttemptRow>(
    `SELECT delivery_id, attempt, attempted_at, status, error, duration_ms FROM event_delivery_attempts
     WHERE delivery_id = ANY ($1::text[]) ORDER BY delivery_id, attempt`,
    [deliveryIds],
  );
  for (const row of rows) {
    const list = byDelivery.get(row.delivery_id) ?? [];
    list.push(row);
    byDelivery.set(row.delivery_id, list);
  }
  return byDelivery;
}
