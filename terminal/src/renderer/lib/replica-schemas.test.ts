import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRxSchema, defaultHashSha256 } from 'rxdb';
import { GIFT_CARD_SALE_SCHEMA, OFFLINE_PAYMENT_SCHEMA } from './replica.ts';

// The kiosk's RxDB schemas of the replicated documents are derived from shared's TypeBox schemas
// (shared/src/sync-documents.ts). RxDB stores a hash of each collection's schema: a replica made
// by an earlier kiosk opens only if the schema hashes the same, so the derived schemas must be
// exactly the hand-written ones they replaced (below, as they were) until a schema version says
// otherwise.
const ISO_TIME = { type: 'string', maxLength: 40 };
const TEXT = { type: 'string', maxLength: 1000 };
const SETTLED_DOCUMENT = {
  id: { type: 'string', maxLength: 36 },
  terminalId: { type: 'string', maxLength: 64 },
  amountMinor: { type: 'integer', minimum: 1 },
  currency: { type: 'string', maxLength: 3 },
  capturedAt: ISO_TIME,
  status: { type: 'string', enum: ['queued', 'accepted', 'declined'], maxLength: 8 },
  declineCode: { type: 'string', maxLength: 64 },
  declineReason: TEXT,
  settledAt: ISO_TIME,
  serverSeq: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 },
};
const HAND_WRITTEN = {
  offline_payments: {
    title: 'offline payment',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      ...SETTLED_DOCUMENT,
      kind: { type: 'string', enum: ['tap', 'qr'], maxLength: 3 },
      tagId: { type: 'string', maxLength: 64 },
      voucher: { type: 'string', maxLength: 2000 },
      voucherId: { type: 'string', maxLength: 80 },
      description: TEXT,
      payerHandle: { type: 'string', maxLength: 64 },
      walletRef: { type: 'string', maxLength: 128 },
    },
    required: ['id', 'terminalId', 'kind', 'amountMinor', 'currency', 'description', 'capturedAt', 'status', 'serverSeq'],
    indexes: ['status', 'capturedAt'],
  },
  gift_card_sales: {
    title: 'gift card sale',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      ...SETTLED_DOCUMENT,
      codeHash: { type: 'string', maxLength: 64 },
      codePrefix: { type: 'string', maxLength: 10 },
      designTheme: { type: 'string', enum: ['default', 'birthday', 'business', 'celebration'], maxLength: 16 },
      message: { type: 'string', maxLength: 160 },
      cardId: { type: 'string', maxLength: 64 },
      expiresAt: ISO_TIME,
    },
    required: ['id', 'terminalId', 'codeHash', 'codePrefix', 'amountMinor', 'currency', 'capturedAt', 'status', 'serverSeq'],
    indexes: ['status', 'capturedAt'],
  },
};

const HASHES = {
  offline_payments: 'ccbb868102bbd47703fe0b1f6cd7c6a38df23e240d460df3bc990a14e63d4c92',
  gift_card_sales: '23be27f12fa3d06fac2b33deb598c60b6a9fa3eceb864e9abb99ce4ac4d89948',
};

describe('the kiosk replica schemas, derived from shared/src/sync-documents.ts', () => {
  it('derives the RxDB schemas the kiosk used before, field for field', () => {
    assert.deepStrictEqual(OFFLINE_PAYMENT_SCHEMA, HAND_WRITTEN.offline_payments);
    assert.deepStrictEqual(GIFT_CARD_SALE_SCHEMA, HAND_WRITTEN.gift_card_sales);
  });

  it('keeps the hashes RxDB stored for them, so existing replicas open', async () => {
    assert.equal(await createRxSchema(OFFLINE_PAYMENT_SCHEMA, defaultHashSha256).hash, HASHES.offline_payments);
    assert.equal(await createRxSchema(GIFT_CARD_SALE_SCHEMA, defaultHashSha256).hash, HASHES.gift_card_sales);
  });
});
