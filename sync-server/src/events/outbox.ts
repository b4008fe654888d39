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
   * Targets besides the merchant's webhook. `includeWebhook` false sends only to these (a POS
   * callback goes to the session's callbackUrl alone).
   */
  targets?: EventTarget[];
  includeWebhook?: boolean;
  /** Event time; defaults to now. */
  at?: Date;
}

/**
 * Writes an event and its deliveries in the caller's transaction, so the event exists exactly
 * when the state change it reports does. Dispatchers pick the deliveries up afterwards.
 * Returns the event id (`evt_...`) and its body.
 */
export async function enqueueEvent(tx: Queryable, event: NewEvent): Promise<{ id: string; body: string }> {
  const id = newId('evt');
  const body = JSON.stringify({ id, event: event.type, ...event.data, timestamp: (event.at ?? new Date()).toISOString() });
  await tx.query('INSERT INTO events (id, merchant_id, mode, type, body) VALUES ($1, $2, $3, $4, $5)', [id, event.merchantId, event.mode, event.type, body]);
  const targets: EventTarget[] = [...(event.targets ?? [])];
  if (event.includeWebhook !== false) {
    const [merchant] = await tx.query<{ webhook_url: string | null }>('SELECT webhook_url FROM merchants WHERE id = $1', [event.merchantId]);
    if (merchant?.webhook_url) targets.push({ url: merchant.webhook_url, signatureFormat: 'hex' });
  }
  for (const target of targets) {
    await tx.query(
      `INSERT INTO event_deliveries (id, event_id, merchant_id, mode, url, signature_format, state) VALUES ($1, $2, $3, $4, $5, $6, 'pending')`,
      [newId('whd'), id, event.merchantId, event.mode, target.url, target.signatureFormat],
    );
  }
  return { id, body };
}
