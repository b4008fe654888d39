import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (spec, Events): header `x-service-signature` carries the lower-case hex
 * HMAC-SHA256 of the raw request body keyed with the webhook secret; POS callbacks carry the
 * same digest as `sha256=<hex>`. Receivers must verify the raw bytes, before parsing JSON.
 */
export const SIGNATURE_HEADER = 'x-service-signature';

export type SignatureFormat = 'hex' | 'sha256=';

export function signPayload(secret: string, rawBody: string | Uint8Array, format: SignatureFormat = 'hex'): string {
  const digest = createHmac('sha256', secret).update(rawBody).digest('hex');
  return format === 'hex' ? digest : `sha256=${digest}`;
}

/** Constant-time check of a received signature (either format) against the raw body. */
export function verifySignature(secret: string, rawBody: string | Uint8Array, received: string | undefined | null): boolean {
  if (!received) return false;
  const digest = received.startsWith('sha256=') ? received.slice('sha256='.length) : received;
  if (!/^[0-9a-f]{64}$/.test(digest)) return false;
  const expected = Buffer.from(signPayload(secret, rawBody, 'hex'), 'hex');
  return timingSafeEqual(expected, Buffer.from(digest, 'hex'));
}
