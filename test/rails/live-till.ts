// What the till collection tests of each provider share: a live merchant with a terminal, and the
// events a collection wrote.
import assert from 'node:assert/strict';
import type { TestServer } from '@tapline/sync-server/testing';

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
