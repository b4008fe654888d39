// What the till collection tests of each provider share: a live merchant with a terminal, a
// collection followed until it ends, and the events a collection wrote.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestServer } from '@tapline/sync-server/testing';
import { until } from './until.ts';

/** A till's mobile money collection as the API answers it (or its refusal). */
export type Collection = { id: string; status: string; amountMinor: number; currency: string; provider: string; providerReference?: string; failureCode?: string; failureReason?: string; code?: string };

/** The types of the events one collection wrote, in order. */
export async function eventTypes(s: TestServer, merchantId: string, collectionId: string): Promise<string[]> {
  const rows = await s.db.query<{ type: string; body: string }>('SELECT type, body FROM events WHERE merchant_id = $1 ORDER BY created_at, id', [merchantId]);
  return rows.filter((row) => (JSON.parse(row.body) as { collectionId?: string }).collectionId === collectionId).map((row) => row.type);
}

/** A live merchant in `country` with a terminal: its key and the terminal's Authorization header. */
export async function liveTill(s: TestServer, country: string, currency: string) {
  const merchant = await s.createMerchant({ webhookUrl: 'https://example.com/hooks', country, currency });
  const key = { 'x-merchant-api-key': merchant.liveKey };
  const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { merchant, key, term: { authorization: `Bearer term.${created.body.token}` } };
}

/**
 * A till's collection made through the live provider and followed until it is `wanted` (completed,
 * failed), through `provider` when given: each look that finds it still pending moves the
 * injected clock 2 s and runs the collections job once, so a lost callback is polled too. Its id.
 */
export async function collectUntil(
  s: TestServer,
  term: Record<string, string>,
  body: { amountMinor: number; currency: string; phone: string },
  wanted: string,
  clock: { advance(ms: number): unknown },
  provider?: string,
): Promise<string> {
  const created = await s.request<Collection>('POST', '/api/pos/collections', { headers: { ...term, 'idempotency-key': randomUUID() }, body: { ...body, description: 'Groceries' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  if (provider !== undefined) assert.equal(created.body.provider, provider);
  const id = created.body.id;
  await until(`collection ${id} ${wanted}`, async () => {
    const now = await s.request<Collection>('GET', `/api/pos/collections/${id}`, { headers: term });
    if (now.body.status === wanted) return true;
    assert.equal(now.body.status, 'pending', JSON.stringify(now.body));
    clock.advance(2_000);
    await s.context.collections.runOnce();
    return undefined;
  });
  return id;
}
