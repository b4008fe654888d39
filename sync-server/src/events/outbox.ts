import type { Queryable } from '../db/database.ts';
import type { Mode } from '../auth/secrets.ts';
import { newId } from '../auth/secrets.ts';
import type { SignatureFormat } from '@tapline/shared/webhook-signature';

/** Where one event goes: the merchant's webhook URL (hex signature) or a POS callbackUrl (sha256=). */
export interface EventTarget {
  url: string;
  signatureFormat: SignatureFormat;
}

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  /** e.g. `payment.completed`, `pos.session.completed`. */
  type: string;
  /** The spec's payload fields; `id`, `event` and `timestamp` are added here. */
  data: Record<string, unknown>;
  /**
   * Targets besides the merchant's webhook. `includeWebhook` false sends only to these. (POS
   * sessions' events are written by pos_tap itself, to the webhook URL and the callbackUrl.)
   */
  targets?: EventTarget[];
  includeWebhook?: boolean;
  /** Event time and first delivery due time: the app's clock (context.now()), so an injected test clock and the dispatcher agree. */
  at: Date;
}

/**
 * Writes an event and its deliveries in the caller's transaction, so the event exists exactly
 * when the state change it reports does. Dispatchers pick the deliveries up afterwards.
 * Returns the event id (`evt_...`) and its body.
 */
export async function enqueueEvent(tx: Queryable, event: NewEvent): Promise<{ id: string; body: string }> {
  const id = newId('evt');
  // The event time is also when its first delivery is due.
  const at = event.at;
  const body = JSON.stringify({ id, event: event.type, ...event.data, timestamp: at.toISOString() });
  await tx.query('INSERT INTO events (id, merchant_id, mode, type, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [id, event.merchantId, event.mode, event.type, body, at], {
    prepareAs: 'events_insert',
  });
  const targets: EventTarget[] = [...(event.targets ?? [])];
  if (event.includeWebhook !== false) {
    const [merchant] = await tx.query<{ webhook_url: string | null }>('SELECT webhook_url FROM merchants WHERE id = $1', [event.merchantId], { prepareAs: 'events_merchant_webhook' });
    if (merchant?.webhook_url) targets.push({ url: merchant.webhook_url, signatureFormat: 'hex' });
  }
  for (const target of targets) {
    await tx.query(
      `INSERT INTO event_deliveries (id, event_id, merchant_id, mode, url, signature_format, state, next_attempt_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $7, $7)`,
      [newId('whd'), id, event.merchantId, event.mode, target.url, target.signatureFormat, at],
    );
  }
  return { id, body };
}

/**
 * Records an event of the platform itself (the store's orders: the store is the platform's, not
 * a merchant's) in the caller's transaction: no merchant and no delivery today; it is the durable
 * record a future subscriber (fulfilment, analytics) reads. The caller gives its id; the body is
 * enqueueEvent's.
 */
export async function enqueuePlatformEvent(tx: Queryable, fields: { id: string; mode: Mode; type: string; data: Record<string, unknown>; at: Date }): Promise<void> {
  const body = JSON.stringify({ id: fields.id, event: fields.type, ...fields.data, timestamp: fields.at.toISOString() });
  await tx.query('INSERT INTO events (id, merchant_id, mode, type, body, created_at) VALUES ($1, NULL, $2, $3, $4, $5)', [fields.id, fields.mode, fields.type, body, fields.at]);
}

/**
 * enqueueEvent for many events at once, in three statements whatever their number: the merchants'
 * webhook URLs, the events, the deliveries. For batch state changes (the payment scheduler).
 */
export async function enqueueEvents(tx: Queryable, events: readonly NewEvent[]): Promise<{ id: string; body: string }[]> {
  if (events.length === 0) return [];
  const rendered = events.map((event) => {
    const id = newId('evt');
    const at = event.at;
    return { id, at, event, body: JSON.stringify({ id, event: event.type, ...event.data, timestamp: at.toISOString() }) };
  });
  const merchantIds = [...new Set(events.filter((event) => event.includeWebhook !== false).map((event) => event.merchantId))];
  const webhooks = new Map<string, string>();
  if (merchantIds.length > 0) {
    const rows = await tx.query<{ id: string; webhook_url: string | null }>('SELECT id, webhook_url FROM merchants WHERE id = ANY ($1::text[])', [merchantIds]);
    for (const row of rows) if (row.webhook_url) webhooks.set(row.id, row.webhook_url);
  }
  await tx.query(
    `INSERT INTO events (id, merchant_id, mode, type, body, created_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])`,
    [rendered.map((r) => r.id), rendered.map((r) => r.event.merchantId), rendered.map((r) => r.event.mode), rendered.map((r) => r.event.type), rendered.map((r) => r.body), rendered.map((r) => r.at.toISOString())],
  );
  const deliveries: { id: string; eventId: string; merchantId: string; mode: string; url: string; format: string; at: string }[] = [];
  for (const r of rendered) {
    const targets: EventTarget[] = [...(r.event.targets ?? [])];
    const webhook = r.event.includeWebhook !== false ? webhooks.get(r.event.merchantId) : undefined;
    if (webhook) targets.push({ url: webhook, signatureFormat: 'hex' });
    for (const target of targets) {
      deliveries.push({ id: newId('whd'), eventId: r.id, merchantId: r.event.merchantId, mode: r.event.mode, url: target.url, format: target.signatureFormat, at: r.at.toISOString() });
    }
  }
  if (deliveries.length > 0) {
    await tx.query(
      `INSERT INTO event_deliveries (id, event_id, merchant_id, mode, url, signature_format, state, next_attempt_at, created_at, updated_at)
       SELECT d.id, d.event_id, d.merchant_id, d.mode, d.url, d.format, 'pending', d.at, d.at, d.at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) AS d (id, event_id, merchant_id, mode, url, format, at)`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.eventId), deliveries.map((d) => d.merchantId), deliveries.map((d) => d.mode), deliveries.map((d) => d.url), deliveries.map((d) => d.format), deliveries.map((d) => d.at)],
    );
  }
  return rendered.map((r) => ({ id: r.id, body: r.body }));
}

/**
 * The outbox's backlog for the metrics: deliveries not yet done (pending or being delivered) and
 * how long the oldest due one has waited, in seconds (0 when none is due). Both numbers come from
 * the partial index of deliveries not yet done. The database's clock: it measures real time shared
 * by every server process, not business time.
 */
export async function outboxBacklog(db: Queryable): Promise<{ pending: number; oldestDueSeconds: number }> {
  const [row] = await db.query<{ pending: number; oldest_due_seconds: number | null }>(
    `SELECT count(*)::int8 AS pending,
            extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE next_attempt_at <= now()))::float8 AS oldest_due_seconds
     FROM event_deliveries WHERE state IN ('pending', 'delivering')`,
  );
  return { pending: row?.pending ?? 0, oldestDueSeconds: Math.max(0, row?.oldest_due_seconds ?? 0) };
}
