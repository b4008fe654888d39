// The kiosk's push split by size (push-chunks.ts): in order, every message within the bound,
// nothing dropped, ordinary pushes in one message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYNC_MESSAGE_BYTES_MAX, SYNC_PUSH_BATCH_SIZE_MAX } from '@tapline/shared/limits';
import { PUSH_ENVELOPE_BYTES, pushChunks } from './push-chunks.ts';

const encoded = (rows: unknown[]) => new TextEncoder().encode(JSON.stringify({ collection: 'till_sales', rows })).length;

describe('pushChunks', () => {
  it('keeps an ordinary push of a hundred taps in one message', () => {
    const rows = Array.from({ length: SYNC_PUSH_BATCH_SIZE_MAX }, (_, index) => ({ newDocumentState: { id: `tap-${index}`, amountMinor: 1500, currency: 'NGN' } }));
    assert.deepEqual(pushChunks(rows, SYNC_MESSAGE_BYTES_MAX), [rows]);
  });

  it('splits a hundred sales with long carts (non-ASCII names) into messages the server accepts, in order, nothing lost', () => {
    const line = { productId: 'p', name: 'Ɛ'.repeat(120), quantity: 1, unitPriceMinor: 100 };
    const rows = Array.from({ length: SYNC_PUSH_BATCH_SIZE_MAX }, (_, index) => ({ newDocumentState: { id: `sale-${index}`, items: Array.from({ length: 200 }, () => line) } }));
    const chunks = pushChunks(rows, SYNC_MESSAGE_BYTES_MAX);
    assert.ok(chunks.length > 1, `${chunks.length} messages`);
    assert.deepEqual(chunks.flat(), rows, 'every row, in order');
    for (const chunk of chunks) assert.ok(encoded(chunk) + PUSH_ENVELOPE_BYTES <= SYNC_MESSAGE_BYTES_MAX, `${encoded(chunk)} bytes`);
  });

  it('sends a row bigger than the bound alone, and an empty push as no message', () => {
    const big = { newDocumentState: { id: 'big', note: 'x'.repeat(2_000) } };
    const small = { newDocumentState: { id: 'small' } };
    assert.deepEqual(pushChunks([small, big, small], 1_500), [[small], [big], [small]]);
    assert.deepEqual(pushChunks([], 1_500), []);
  });
});
