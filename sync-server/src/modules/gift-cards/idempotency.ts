import type { FastifyRequest } from 'fastify';
import { idempotentId } from '../../http/idempotency.ts';
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

/** A prefixed id derived from the request's Idempotency-Key (stable across a crash re-run), or undefined. */
export function derivedId(request: FastifyRequest, purpose: string, prefix: string): string | undefined {
  const id = idempotentId(request, purpose);
  return id ? `${prefix}_${id.slice(id.indexOf(':') + 1)}` : undefined;
}
