import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { isGiftCardCode } from './codes.ts';

/**
 * Gift-card answers carry the plaintext code, which must never be stored (CONTRACT.md). The shared
 * Idempotency-Key mechanism stores the first answer to replay it; for these routes the answer is
 * stored here instead, with every code and QR image removed, and the shared hook is told the key
 * is settled (request.idempotency = null). A replay therefore answers the same cards, status and
 * ids without `code` and `qrPng`: the code is returned exactly once.
 */
export async function settleWithoutSecrets(db: Database, request: FastifyRequest, status: number, body: unknown): Promise<void> {
  const claim = request.idempotency;
  if (!claim) return;
  await db.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_body = $4, completed_at = now()
     WHERE scope = $1 AND key = $2`,
    [claim.scope, claim.key, status, JSON.stringify(withoutSecrets(body))],
  );
  request.idempotency = null;
}

/** A deep copy without gift-card codes and QR images. */
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
