import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import { GiftCardSaleDocument, OfflinePaymentDocument, SYNC_DOCUMENT_SCHEMAS, pushedDocumentProblems, rxJsonSchema } from './sync-documents.ts';
import { SYNC_COLLECTIONS } from './sync-protocol.ts';

// One TypeBox schema per replicated document: what it accepts and refuses. The kiosk's RxDB
// schemas derived from it are pinned in terminal/src/renderer/lib/replica-schemas.test.ts.
const payment = {
  id: '8f14e45f-ceea-4e7a-9b1f-2a6c1d3e4f50',
  terminalId: 'term_1',
  kind: 'tap',
  tagId: 'TG0A1B2C3D',
  amountMinor: 1250,
  currency: 'NGN',
  description: 'Jollof rice',
  capturedAt: '2026-11-25T01:00:00.000Z',
  status: 'queued',
  serverSeq: 0,
};
const sale = {
  id: '1c9a7d52-3b4e-4f60-8a71-9b2c3d4e5f60',
  terminalId: 'term_1',
  codeHash: 'a'.repeat(64),
  codePrefix: 'gc_0123456',
  amountMinor: 5000,
  currency: 'GHS',
  designTheme: 'birthday',
  message: 'Happy birthday',
  capturedAt: '2026-11-25T01:00:00.000Z',
  status: 'queued',
  serverSeq: 0,
};

describe('replicated document schemas (sync-documents.ts)', () => {
  it('accepts the documents the kiosk makes and the server answers', () => {
    const payments = Compile(OfflinePaymentDocument);
    const sales = Compile(GiftCardSaleDocument);
    assert.equal(payments.Check(payment), true);
    assert.equal(payments.Check({ ...payment, kind: 'qr', tagId: undefined, voucher: 'TLQ1.x', voucherId: 'v_1' }), true);
    assert.equal(payments.Check({ ...payment, status: 'declined', declineCode: 'insufficient_funds', declineReason: 'Not enough', settledAt: '2026-11-25T01:00:05.000Z', serverSeq: 7 }), true);
    assert.equal(sales.Check(sale), true);
    assert.equal(sales.Check({ ...sale, status: 'accepted', cardId: 'gc_1', expiresAt: '2027-11-25T01:00:00.000Z', serverSeq: 3 }), true);
  });

  it('refuses documents the schema does not allow: missing, mistyped or out-of-range fields', () => {
    const payments = Compile(OfflinePaymentDocument);
    const sales = Compile(GiftCardSaleDocument);
    const { id: _id, ...withoutId } = payment;
    assert.equal(payments.Check(withoutId), false);
    assert.equal(payments.Check({ ...payment, kind: 'card' }), false);
    assert.equal(payments.Check({ ...payment, amountMinor: 0 }), false);
    assert.equal(payments.Check({ ...payment, amountMinor: 12.5 }), false);
    assert.equal(payments.Check({ ...payment, status: 'settled' }), false);
    assert.equal(payments.Check({ ...payment, serverSeq: -1 }), false);
    assert.equal(payments.Check({ ...payment, currency: 'NGNX' }), false);
    assert.equal(payments.Check({ ...payment, voucher: 'x'.repeat(2001) }), false);
    assert.equal(sales.Check({ ...sale, designTheme: 'wedding' }), false);
    assert.equal(sales.Check({ ...sale, message: 'x'.repeat(161) }), false);
    assert.equal(sales.Check({ ...sale, codePrefix: 'gc_01234567' }), false);
  });

  it('covers every replicated collection and derives plain RxDB JSON (no TypeBox markers)', () => {
    assert.deepEqual(Object.keys(SYNC_DOCUMENT_SCHEMAS), [...SYNC_COLLECTIONS]);
    const derived = rxJsonSchema(OfflinePaymentDocument, { title: 'offline payment', version: 0, primaryKey: 'id', indexes: ['status', 'capturedAt'] });
    assert.deepEqual(JSON.parse(JSON.stringify(derived)), derived);
    assert.deepEqual(derived.required, ['id', 'terminalId', 'kind', 'amountMinor', 'currency', 'description', 'capturedAt', 'status', 'serverSeq']);
    assert.deepEqual((derived.properties as Record<string, unknown>).description, { type: 'string', maxLength: 1000 });
  });
});

describe('pushedDocumentProblems: the push checks derived from the schemas', () => {
  it('judges the fields a terminal writes, one sentence per field, and ignores the server\'s and unknown ones', () => {
    const problems = pushedDocumentProblems('offline_payments', {
      amountMinor: 'a',
      items: [{ productId: null, name: 'Suya', quantity: 0, unitPrice: 500, discount: 0, taxRate: 0, taxInclusive: true }],
      status: 'nonsense',
      serverSeq: -1,
      tagId: null,
      extra: { anything: true },
    });
    assert.deepEqual([...problems], [
      ['amountMinor', 'amountMinor must be integer'],
      ['items', 'items.0.quantity must be >= 1'],
    ]);
    assert.deepEqual([...pushedDocumentProblems('gift_card_sales', { designTheme: 'disco', message: null })], [['designTheme', 'designTheme must be equal to one of the allowed values']]);
    assert.equal(pushedDocumentProblems('offline_payments', { kind: 'tap', amountMinor: 500, currency: 'NGN', description: '', capturedAt: '2026-11-25T10:00:00.000Z', tagId: 'TG0000AAAA' }).size, 0);
  });
});
