import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { after } from 'node:test';
import { type RxJsonSchema, createRxDatabase, createRxSchema, defaultHashSha256 } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import {
  DRAWER_REFUND_SCHEMA,
  GIFT_CARD_SALE_SCHEMA,
  KEEP_AS_IS,
  KIOSK_ALERT_MIGRATIONS,
  KIOSK_ALERT_SCHEMA,
  OFFLINE_PAYMENT_MIGRATIONS,
  OFFLINE_PAYMENT_SCHEMA,
  SHIFT_EVENT_SCHEMA,
  TILL_SALE_MIGRATIONS,
  TILL_SALE_SCHEMA,
  TILL_STAFF_SCHEMA,
} from './replica.ts';
import type { KioskAlertDoc } from './alerts.ts';
import { PRODUCT_SCHEMA } from './catalogue.ts';

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
/** Version 1 of offline_payments added a cart sale's lines. */
const CART_FIELDS = {
  items: {
    type: 'array',
    maxItems: 200,
    items: {
      type: 'object',
      properties: {
        productId: { type: ['string', 'null'], maxLength: 64 },
        name: { type: 'string', maxLength: 120 },
        quantity: { type: 'integer', minimum: 1, maximum: 9_999 },
        unitPrice: { type: 'integer', minimum: 0 },
        discount: { type: 'integer', minimum: 0 },
        taxRate: { type: 'integer', minimum: 0, maximum: 10_000 },
        taxInclusive: { type: 'boolean' },
      },
      required: ['productId', 'name', 'quantity', 'unitPrice', 'discount', 'taxRate', 'taxInclusive'],
    },
  },
  discountMinor: { type: 'integer', minimum: 0 },
};
const NULLABLE_TEXT = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
const HAND_WRITTEN = {
  offline_payments: {
    title: 'offline payment',
    version: 3,
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
      cashierId: { type: 'string', maxLength: 64 },
      tenderOf: { type: 'string', maxLength: 36 },
      ...CART_FIELDS,
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
  products: {
    title: 'product',
    version: 0,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 64 },
      name: { type: 'string', maxLength: 200 },
      priceMinor: { type: 'integer', minimum: 0 },
      currency: { type: 'string', maxLength: 3 },
      sku: NULLABLE_TEXT(64),
      barcode: NULLABLE_TEXT(64),
      category: NULLABLE_TEXT(80),
      taxRate: { type: 'integer', minimum: 0, maximum: 10_000 },
      taxInclusive: { type: 'boolean' },
      imageUrl: NULLABLE_TEXT(2000),
      trackStock: { type: 'boolean' },
      stock: { type: ['integer', 'null'] },
      active: { type: 'boolean' },
      updatedAt: { type: 'string', maxLength: 40 },
      serverSeq: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 },
    },
    required: ['id', 'name', 'priceMinor', 'currency', 'taxRate', 'taxInclusive', 'trackStock', 'active', 'updatedAt'],
  },
};

/** till_sales as the kiosk's cash sales write it, field for field (its hash is pinned with the shifts' below). */
const ADDED = {
  till_sales: {
    title: 'till sale',
    version: 1,
    primaryKey: 'id',
    type: 'object',
    properties: {
      id: { type: 'string', maxLength: 36 },
      terminalId: { type: 'string', maxLength: 64 },
      amountMinor: { type: 'integer', minimum: 1 },
      currency: { type: 'string', maxLength: 3 },
      capturedAt: ISO_TIME,
      status: SETTLED_DOCUMENT.status,
      serverSeq: SETTLED_DOCUMENT.serverSeq,
      tenders: {
        type: 'array',
        items: {
          type: 'object',
          required: ['kind', 'amountMinor'],
          properties: {
            kind: { type: 'string', enum: ['cash', 'wallet', 'gift_card', 'mobile_money', 'offline_tap'], maxLength: 16 },
            amountMinor: { type: 'integer', minimum: 1 },
            tenderedMinor: { type: 'integer', minimum: 1 },
            changeMinor: { type: 'integer', minimum: 0 },
            reference: { type: 'string', maxLength: 80 },
          },
        },
        minItems: 1,
        maxItems: 8,
      },
      tipMinor: { type: 'integer', minimum: 0 },
      cashierId: { type: 'string', maxLength: 64 },
      shiftId: { type: 'string', maxLength: 36 },
      description: TEXT,
      unpaidMinor: { type: 'integer', minimum: 0 },
      declineCode: SETTLED_DOCUMENT.declineCode,
      declineReason: TEXT,
      settledAt: ISO_TIME,
      ...CART_FIELDS,
    },
    required: ['id', 'terminalId', 'amountMinor', 'currency', 'capturedAt', 'status', 'serverSeq', 'tenders'],
    indexes: ['status', 'capturedAt'],
  },
};

/** kiosk_alerts version 1 (four kinds, before a split sale's declined tap named its sale). */
const ALERTS_V1 = {
  ...KIOSK_ALERT_SCHEMA,
  version: 1,
  properties: Object.fromEntries(Object.entries(KIOSK_ALERT_SCHEMA.properties).filter(([name]) => name !== 'saleId')),
} as RxJsonSchema<KioskAlertDoc>;

/** kiosk_alerts as every kiosk before cash sales stored it (version 0: three kinds). */
const ALERTS_V0 = {
  ...ALERTS_V1,
  version: 0,
  properties: { ...ALERTS_V1.properties, kind: { type: 'string', enum: ['offline_payment_declined', 'gift_card_sale_declined', 'sale_paid_after_cancel'], maxLength: 32 } },
} as RxJsonSchema<KioskAlertDoc>;

const HASHES = {
  // Version 0 (before the cart's lines) hashed ccbb8681…, version 1 (before cashierId) a861d43b…, version 2 (before tenderOf)
  // 9815f5de…; replica.ts migrates them as they are.
  offline_payments: '060133191fc902be08218492797853baf6260068a802b7d62afef5d6c9fd4d76',
  offline_payments_v2: '9815f5de5ec95295590ecaf37da5362b880de45040c12513e7238968ff381568',
  gift_card_sales: '23be27f12fa3d06fac2b33deb598c60b6a9fa3eceb864e9abb99ce4ac4d89948',
  products: '39a7f4fb6fb61028759fe7c26e8590b4abeaaaa407f7c43bf5aaaa2a4b74ab38',
  // Version 0 hashed 51fb28e9…; version 1 added the kind till_sale_declined, version 2 saleId
  // (both migrated as they are: KIOSK_ALERT_MIGRATIONS).
  kiosk_alerts_v0: '51fb28e9ea61b3836bf8d66edd7c08f82efd93eb1edede9d32d3d71fa6b3be5e',
  kiosk_alerts_v1: '6f74ed796933fc551bcfc8635969b4f0ff55e0b68a8b044a530c1cb7dbcb2a52',
  kiosk_alerts: '1ecc425aebe608d2ac7e05ef8873f099deb95827f44a8960058f10fc8a6f54ea',
};

/**
 * The collections the till's shifts added (version 0 each): pinned from their first release, so a
 * change to shared's TypeBox schemas (or to these) that would strand a kiosk's replica fails here.
 */
const SHIFT_HASHES = {
  // Version 0 (before offline_tap and unpaidMinor) hashed 26e47a0d…; replica.ts migrates it as it is.
  till_sales_v0: '26e47a0d4442970f1e8032b40aaf0276d57c9371b2cc280edcf1ebd4c73dee1e',
  till_sales: '8693092dc1cf0fb376a89d88efd01dd45c11fe2f1668bf789273713f5af19abb',
  shift_events: 'd93dacbeb0d591cd88a523271a164f80ff8e40077d2ce78a51f6e8d82c8dc385',
  till_staff: 'e1291ce6b9afa7ed5a92d5f0a7b7f52ce7105ab639f899260910e0b6bf868833',
  drawer_refunds: '8f69602993977e5a4443df8b8de5e1253c135c89fb48f0201a96f28f6448ed30',
};

const closers: (() => Promise<unknown>)[] = [];
after(() => Promise.all(closers.map((close) => close())));

describe('the kiosk replica schemas, derived from shared/src/sync-documents.ts', () => {
  it('derives the RxDB schemas the kiosk used before, field for field', () => {
    assert.deepStrictEqual(OFFLINE_PAYMENT_SCHEMA, HAND_WRITTEN.offline_payments);
    assert.deepStrictEqual(GIFT_CARD_SALE_SCHEMA, HAND_WRITTEN.gift_card_sales);
    assert.deepStrictEqual(PRODUCT_SCHEMA, HAND_WRITTEN.products);
  });

  it('keeps the hashes RxDB stored for them, so existing replicas open', async () => {
    assert.equal(await createRxSchema(OFFLINE_PAYMENT_SCHEMA, defaultHashSha256).hash, HASHES.offline_payments);
    assert.equal(await createRxSchema(GIFT_CARD_SALE_SCHEMA, defaultHashSha256).hash, HASHES.gift_card_sales);
    assert.equal(await createRxSchema(PRODUCT_SCHEMA, defaultHashSha256).hash, HASHES.products);
  });

  it('derives till_sales (cash sales) from TillSaleDocument, field for field', async () => {
    assert.deepStrictEqual(TILL_SALE_SCHEMA, ADDED.till_sales);
    assert.equal(await createRxSchema(TILL_SALE_SCHEMA, defaultHashSha256).hash, SHIFT_HASHES.till_sales);
  });

  it('moves offline_payments to version 2 for cashierId, and a replica made before opens with its payments kept', async () => {
    const v1 = { ...OFFLINE_PAYMENT_SCHEMA, version: 1, properties: Object.fromEntries(Object.entries(OFFLINE_PAYMENT_SCHEMA.properties).filter(([key]) => key !== 'cashierId' && key !== 'tenderOf')) } as typeof OFFLINE_PAYMENT_SCHEMA;
    assert.equal(await createRxSchema(v1, defaultHashSha256).hash, 'a861d43b6d8b2dae1f221918dfeb1ecdf620ce5d3a14785d0d166c1c7c8b72ed', 'version 1 as kiosks stored it');
    const name = `payments_migration_${Date.now()}`;
    const storage = getRxStorageMemory();
    const before = await createRxDatabase({ name, storage, multiInstance: false });
    const old = (await before.addCollections({ offline_payments: { schema: v1, migrationStrategies: KEEP_AS_IS } })).offline_payments;
    const stored = { id: '00000000-0000-4000-8000-0000000000a1', terminalId: 'term_1', kind: 'tap' as const, tagId: 'TG0A1B2C3D', amountMinor: 500, currency: 'NGN', description: 'Suya', capturedAt: '2026-11-28T12:00:00.000Z', status: 'queued' as const, serverSeq: 0 };
    await old.insert(stored);
    await before.close();
    const reopened = await createRxDatabase({ name, storage, multiInstance: false });
    closers.push(() => reopened.close());
    const payments = (await reopened.addCollections({ offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA, migrationStrategies: OFFLINE_PAYMENT_MIGRATIONS } })).offline_payments;
    assert.deepEqual((await payments.findOne(stored.id).exec())?.toJSON(), stored);
    await payments.insert({ ...stored, id: '00000000-0000-4000-8000-0000000000a2', cashierId: 'staff_ada' });
    assert.equal((await payments.findOne('00000000-0000-4000-8000-0000000000a2').exec())?.toJSON().cashierId, 'staff_ada');
  });

  it('moves offline_payments to version 3 (tenderOf) and till_sales to version 1 (offline_tap, unpaidMinor), and replicas made before open with their documents kept', async () => {
    const v2 = { ...OFFLINE_PAYMENT_SCHEMA, version: 2, properties: Object.fromEntries(Object.entries(OFFLINE_PAYMENT_SCHEMA.properties).filter(([key]) => key !== 'tenderOf')) } as typeof OFFLINE_PAYMENT_SCHEMA;
    assert.equal(await createRxSchema(v2, defaultHashSha256).hash, HASHES.offline_payments_v2, 'version 2 as kiosks stored it');
    const tillV0 = ADDED.till_sales as unknown as typeof TILL_SALE_SCHEMA;
    const tillV0Schema = {
      ...tillV0,
      version: 0,
      properties: Object.fromEntries(
        Object.entries(tillV0.properties)
          .filter(([key]) => key !== 'unpaidMinor')
          .map(([key, value]) => [key, key === 'tenders' ? { ...value, items: { ...(value as { items: { properties: object } }).items, properties: { ...(value as { items: { properties: object } }).items.properties, kind: { type: 'string', enum: ['cash', 'wallet', 'gift_card', 'mobile_money'], maxLength: 16 } } } } : value]),
      ),
    } as typeof TILL_SALE_SCHEMA;
    assert.equal(await createRxSchema(tillV0Schema, defaultHashSha256).hash, SHIFT_HASHES.till_sales_v0, 'till_sales version 0 as kiosks stored it');
    const name = `split_offline_migration_${Date.now()}`;
    const storage = getRxStorageMemory();
    const before = await createRxDatabase({ name, storage, multiInstance: false });
    const old = await before.addCollections({ offline_payments: { schema: v2, migrationStrategies: OFFLINE_PAYMENT_MIGRATIONS }, till_sales: { schema: tillV0Schema } });
    const payment = { id: '00000000-0000-4000-8000-0000000000b1', terminalId: 'term_1', kind: 'tap' as const, tagId: 'TG0A1B2C3D', amountMinor: 500, currency: 'NGN', description: 'Suya', capturedAt: '2026-11-28T12:00:00.000Z', status: 'queued' as const, serverSeq: 0, cashierId: 'staff_ada' };
    const sale = { id: '00000000-0000-4000-8000-0000000000b2', terminalId: 'term_1', amountMinor: 500, currency: 'NGN', capturedAt: '2026-11-28T12:00:00.000Z', status: 'queued' as const, serverSeq: 0, tenders: [{ kind: 'cash' as const, amountMinor: 500, tenderedMinor: 500, changeMinor: 0 }] };
    await old.offline_payments!.insert(payment);
    await old.till_sales!.insert(sale);
    await before.close();
    const reopened = await createRxDatabase({ name, storage, multiInstance: false });
    closers.push(() => reopened.close());
    const now = await reopened.addCollections({ offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA, migrationStrategies: OFFLINE_PAYMENT_MIGRATIONS }, till_sales: { schema: TILL_SALE_SCHEMA, migrationStrategies: TILL_SALE_MIGRATIONS } });
    assert.deepEqual((await now.offline_payments!.findOne(payment.id).exec())?.toJSON(), payment);
    assert.deepEqual((await now.till_sales!.findOne(sale.id).exec())?.toJSON(), sale);
    await now.offline_payments!.insert({ ...payment, id: '00000000-0000-4000-8000-0000000000b3', tenderOf: sale.id });
    await now.till_sales!.insert({ ...sale, id: '00000000-0000-4000-8000-0000000000b4', tenders: [{ kind: 'offline_tap', amountMinor: 500, reference: '00000000-0000-4000-8000-0000000000b3' }] });
    assert.equal((await now.offline_payments!.findOne('00000000-0000-4000-8000-0000000000b3').exec())?.toJSON().tenderOf, sale.id);
    assert.equal(await now.till_sales!.count().exec(), 2);
  });

  it('moves kiosk_alerts to version 2 (a new kind, then a split sale\'s id), and replicas made before open with their alerts kept', async () => {
    assert.equal(await createRxSchema(ALERTS_V0, defaultHashSha256).hash, HASHES.kiosk_alerts_v0);
    assert.equal(await createRxSchema(ALERTS_V1, defaultHashSha256).hash, HASHES.kiosk_alerts_v1);
    assert.equal(await createRxSchema(KIOSK_ALERT_SCHEMA, defaultHashSha256).hash, HASHES.kiosk_alerts);
    assert.deepEqual((KIOSK_ALERT_SCHEMA.properties.kind as { enum: string[] }).enum, ['offline_payment_declined', 'gift_card_sale_declined', 'sale_paid_after_cancel', 'till_sale_declined']);
    const name = `alerts_migration_${Date.now()}`;
    const storage = getRxStorageMemory();
    const before = await createRxDatabase({ name, storage, multiInstance: false });
    const old = (await before.addCollections({ kiosk_alerts: { schema: ALERTS_V0 } })).kiosk_alerts;
    const stored: KioskAlertDoc = { id: 'offline_payment_declined:pay_1', kind: 'offline_payment_declined', refId: 'pay_1', amountMinor: 500, currency: 'NGN', capturedAt: '2026-11-24T12:00:00.000Z', raisedAt: '2026-11-24T12:05:00.000Z', status: 'open', code: 'insufficient_funds' };
    await old.insert(stored);
    await before.close();
    const reopened = await createRxDatabase({ name, storage, multiInstance: false });
    closers.push(() => reopened.close());
    const alerts = (await reopened.addCollections({ kiosk_alerts: { schema: KIOSK_ALERT_SCHEMA, migrationStrategies: KIOSK_ALERT_MIGRATIONS } })).kiosk_alerts;
    const kept = await alerts.findOne(stored.id).exec();
    assert.deepEqual(kept?.toJSON(), stored);
    await alerts.insert({ ...stored, id: 'till_sale_declined:sale_1', kind: 'till_sale_declined', refId: 'sale_1', code: 'cash_short' });
    assert.equal(await alerts.count().exec(), 2);

    // A kiosk on version 1: its alerts kept, and a split sale's declined tap names its sale.
    const v1Name = `alerts_migration_v1_${Date.now()}`;
    const v1 = await createRxDatabase({ name: v1Name, storage, multiInstance: false });
    await (await v1.addCollections({ kiosk_alerts: { schema: ALERTS_V1 } })).kiosk_alerts.insert({ ...stored, id: 'till_sale_declined:sale_2', kind: 'till_sale_declined', refId: 'sale_2' });
    await v1.close();
    const v2 = await createRxDatabase({ name: v1Name, storage, multiInstance: false });
    closers.push(() => v2.close());
    const migrated = (await v2.addCollections({ kiosk_alerts: { schema: KIOSK_ALERT_SCHEMA, migrationStrategies: KIOSK_ALERT_MIGRATIONS } })).kiosk_alerts;
    assert.equal((await migrated.findOne('till_sale_declined:sale_2').exec())?.toJSON().refId, 'sale_2');
    await migrated.insert({ ...stored, id: 'offline_payment_declined:pay_9', refId: 'pay_9', saleId: 'sale_9' });
    assert.equal((await migrated.findOne('offline_payment_declined:pay_9').exec())?.toJSON().saleId, 'sale_9');
  });

  it('pins the hashes of the shifts\' collections: till sales, shift events, till staff, drawer refunds', async () => {
    assert.equal(await createRxSchema(TILL_SALE_SCHEMA, defaultHashSha256).hash, SHIFT_HASHES.till_sales);
    assert.equal(await createRxSchema(SHIFT_EVENT_SCHEMA, defaultHashSha256).hash, SHIFT_HASHES.shift_events);
    assert.equal(await createRxSchema(TILL_STAFF_SCHEMA, defaultHashSha256).hash, SHIFT_HASHES.till_staff);
    assert.equal(await createRxSchema(DRAWER_REFUND_SCHEMA, defaultHashSha256).hash, SHIFT_HASHES.drawer_refunds);
    // The ones the till queries by: required, bounded (RxDB indexes need both).
    assert.deepEqual(SHIFT_EVENT_SCHEMA.required, ['id', 'terminalId', 'shiftId', 'kind', 'cashierId', 'amountMinor', 'currency', 'capturedAt', 'status', 'serverSeq']);
    assert.deepEqual(TILL_STAFF_SCHEMA.required, ['id', 'name', 'role', 'active', 'pinVerifier', 'updatedAt']);
  });
});
