import { isGiftCardCode } from './codes.ts';

/**
 * Gift-card answers carry the plaintext code, which must never be stored (CONTRACT.md). Routes
 * that answer with codes set `config.idempotencyRedact: withoutSecrets`: the shared
 * Idempotency-Key mechanism then stores the first answer without codes and QR images, and a
 * replay answers the same cards, status and ids without `code` and `qrPng`: the code is
 * returned exactly once.
 *
 * A deep copy without gift-card codes and QR images.
 */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === 'qrPng' || (key === 'code' && isGiftCardCode(item))) continue;
      copy[key] = withoutSecrets(item);
    }
    return copy;
  }
  return value;
}
