import { TaplineError } from './errors.ts';

/**
 * Webhook signatures: `x-service-signature` is the lower-case hex HMAC-SHA256 of the raw body,
 * keyed with the merchant's webhook secret; POS callbacks send the same digest as
 * `sha256=<hex>`. Verify the raw bytes as received, before parsing them: JSON re-serialised by a
 * framework is not the signed text. The check is Web Crypto's HMAC verify, which compares in
 * constant time, so it runs unchanged in Node 20 and in browsers.
 */

export const SIGNATURE_HEADER = 'x-service-signature';

export interface VerifyOptions {
  /**
   * Refuse an event whose signed `timestamp` is further than this many seconds from now (a
   * replayed old event). Off by default: a delivery retried after 1 min, 5 min, 30 min, 2 h and
   * 24 h keeps its event's original timestamp, so a tolerance shorter than about 27 hours refuses
   * late retries. Deduplicate on the event `id` either way.
   */
  toleranceSeconds?: number;
  /** The clock, for tests. */
  now?: () => Date;
}

export class WebhookSignatureError extends TaplineError {}

const encoder = new TextEncoder();

function bytesOf(payload: string | Uint8Array): Uint8Array<ArrayBuffer> {
  return typeof payload === 'string' ? encoder.encode(payload) : new Uint8Array(payload);
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  const bytes = new Uint8Array(32);
  for (let index = 0; index < 32; index += 1) bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

function hmacKey(secret: string) {
  return globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
}

/** The signature the server sends for a body: lower-case hex, or `sha256=<hex>` for POS callbacks. */
export async function signWebhookPayload(secret: string, payload: string | Uint8Array, format: 'hex' | 'sha256=' = 'hex'): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', await hmacKey(secret), bytesOf(payload)));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return format === 'hex' ? hex : `sha256=${hex}`;
}

/**
 * Checks a webhook or POS callback and answers its event, parsed; throws WebhookSignatureError
 * (code `signature_invalid`, or `timestamp_outside_tolerance`) otherwise.
 */
export async function verifyWebhook<Event = Record<string, unknown>>(
  payload: string | Uint8Array,
  signature: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<Event> {
  if (!(await isValidWebhookSignature(payload, signature, secret))) throw new WebhookSignatureError('The webhook signature does not match its body and secret', { code: 'signature_invalid' });
  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const event = JSON.parse(text) as Event & { timestamp?: unknown };
  if (options.toleranceSeconds !== undefined) {
    const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : Number.NaN;
    const now = (options.now?.() ?? new Date()).getTime();
    if (Number.isNaN(at) || Math.abs(now - at) > options.toleranceSeconds * 1000) {
      throw new WebhookSignatureError(`The event's timestamp is more than ${options.toleranceSeconds} seconds from now`, { code: 'timestamp_outside_tolerance' });
    }
  }
  return event;
}

/** true when the signature matches the raw body and the secret (no timestamp check, no parsing). */
export async function isValidWebhookSignature(payload: string | Uint8Array, signature: string | null | undefined, secret: string): Promise<boolean> {
  const received = signature?.trim() ?? '';
  const digest = hexToBytes(received.startsWith('sha256=') ? received.slice('sha256='.length) : received);
  return digest !== undefined && globalThis.crypto.subtle.verify('HMAC', await hmacKey(secret), digest, bytesOf(payload));
}
