import { type RxCollection, type RxDatabase, type RxJsonSchema, addRxPlugin, createRxDatabase } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { MAX_CART_LINES, MAX_LINE_NAME_LENGTH, MAX_LINE_QUANTITY, MAX_TAX_RATE_BPS } from '@tapline/shared/cart';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { GIFT_CARD_DESIGN_THEMES, GIFT_CARD_LIMITS } from '@tapline/shared/gift-card-rules';
import { OFFLINE_PAYMENT_KINDS, OFFLINE_PAYMENT_STATUSES, type GiftCardSaleDoc, type OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { PRODUCT_SCHEMA, type ProductDoc } from './catalogue.ts';
import { KIOSK_ALERT_KINDS, KIOSK_ALERT_STATUSES, type KioskAlertDoc } from './alerts.ts';
import { POS_SALE_LOCAL_ENDS, POS_SALE_STATUSES, type PosSaleDoc } from './pos-sales.ts';

/**
 * The terminal's local replica: an RxDB database in IndexedDB (Dexie storage), one per terminal,
 * so payments taken and gift cards sold offline survive a reload, a crash or a restart of the
 * kiosk until they sync, and so does the sale on screen (pos_sales) and the cashier's alerts
 * (kiosk_alerts); those two stay on the terminal. The merchant's catalogue (products) is pulled
 * from the server and never pushed.
 * No dev-mode plugin here (it loads from the internet): without it RxDB needs no validator, and
 * the documents are made by this code only (lib/offline-payments.ts, lib/gift-card-sales.ts) and
 * by the server.
 */
addRxPlugin(RxDBMigrationSchemaPlugin);

const ISO_TIME = { type: 'string', maxLength: 40 } as const;

/** A sale's lines (shared/src/cart.ts's SaleLine) and its cart discount, on pos_sales and offline_payments. */
const CART_FIELDS = {
  items: {
    type: 'array',
    maxItems: MAX_CART_LINES,
    items: {
      type: 'object',
      properties: {
        productId: { type: ['string', 'null'], maxLength: 64 },
        name: { type: 'string', maxLength: MAX_LINE_NAME_LENGTH },
        quantity: { type: 'integer', minimum: 1, maximum: MAX_LINE_QUANTITY },
        unitPrice: { type: 'integer', minimum: 0 },
        discount: { type: 'integer', minimum: 0 },
        taxRate: { type: 'integer', minimum: 0, maximum: MAX_TAX_RATE_BPS },
        taxInclusive: { type: 'boolean' },
      },
      required: ['productId', 'name', 'quantity', 'unitPrice', 'discount', 'taxRate', 'taxInclusive'],
    },
  },
  discountMinor: { type: 'integer', minimum: 0 },
} as const;

/** An offline payment as the replica keeps it: a sale from the cart carries its lines. */
export type OfflinePaymentRecord = OfflinePaymentDoc;

/**
 * Version 1 added the sale's lines (CART_FIELDS) to pos_sales and offline_payments: documents
 * stored before keep what they had (no lines: a keypad amount).
 */
export const KEEP_AS_IS = { 1: (doc: unknown) => doc };
const TEXT = { type: 'string', maxLength: 1000 } as const;

/**
 * The fields every replicated document has: made by the terminal, settled by the server. RxDB
 * sorts a schema's keys before it hashes it, so the order here does not change a stored schema.
 */
const SETTLED_DOCUMENT = {
  id: { type: 'string', maxLength: 36 },
  terminalId: { type: 'string', maxLength: 64 },
  amountMinor: { type: 'integer', minimum: 1 },
  currency: { type: 'string', maxLength: 3 },
  capturedAt: ISO_TIME,
  status: { type: 'string', enum: [...OFFLINE_PAYMENT_STATUSES], maxLength: 8 },
  declineCode: { type: 'string', maxLength: 64 },
  declineReason: TEXT,
  settledAt: ISO_TIME,
  serverSeq: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 },
} as const;

export const OFFLINE_PAYMENT_SCHEMA: RxJsonSchema<OfflinePaymentRecord> = {
  title: 'offline payment',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    ...SETTLED_DOCUMENT,
    kind: { type: 'string', enum: [...OFFLINE_PAYMENT_KINDS], maxLength: 3 },
    tagId: { type: 'string', maxLength: 64 },
    voucher: { type: 'string', maxLength: 2000 },
    voucherId: { type: 'string', maxLength: 80 },
    description: TEXT,
    payerHandle: { type: 'string', maxLength: 64 },
    walletRef: { type: 'string', maxLength: 128 },
    ...CART_FIELDS,
  },
  required: ['id', 'terminalId', 'kind', 'amountMinor', 'currency', 'description', 'capturedAt', 'status', 'serverSeq'],
  // The exposure check reads the queued ones; the recent list sorts by capture time.
  indexes: ['status', 'capturedAt'],
};

/** A gift card sold at the till: the code's hash and prefix only, never the code (it is printed). */
export const GIFT_CARD_SALE_SCHEMA: RxJsonSchema<GiftCardSaleDoc> = {
  title: 'gift card sale',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    ...SETTLED_DOCUMENT,
    codeHash: { type: 'string', maxLength: 64 },
    codePrefix: { type: 'string', maxLength: 10 },
    designTheme: { type: 'string', enum: [...GIFT_CARD_DESIGN_THEMES], maxLength: 16 },
    message: { type: 'string', maxLength: GIFT_CARD_LIMITS.messageLengthMax },
    cardId: { type: 'string', maxLength: 64 },
    expiresAt: ISO_TIME,
  },
  required: ['id', 'terminalId', 'codeHash', 'codePrefix', 'amountMinor', 'currency', 'capturedAt', 'status', 'serverSeq'],
  // The status bar counts the queued ones; the recent list sorts by capture time.
  indexes: ['status', 'capturedAt'],
};

/** A sale charged through the server, from Charge on (lib/pos-sales.ts). Not replicated. */
export const POS_SALE_SCHEMA: RxJsonSchema<PosSaleDoc> = {
  title: 'pos sale',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 36 },
    terminalId: { type: 'string', maxLength: 64 },
    amountMinor: { type: 'integer', minimum: 1 },
    currency: { type: 'string', maxLength: 3 },
    description: TEXT,
    capturedAt: ISO_TIME,
    status: { type: 'string', enum: [...POS_SALE_STATUSES], maxLength: 16 },
    sessionId: { type: 'string', maxLength: 64 },
    qrPayload: TEXT,
    deadlineAt: ISO_TIME,
    payerHandle: { type: 'string', maxLength: 64 },
    walletRef: { type: 'string', maxLength: 128 },
    tagId: { type: 'string', maxLength: 64 },
    completedAt: ISO_TIME,
    endedAt: ISO_TIME,
    errorMessage: TEXT,
    localEnd: { type: 'string', enum: [...POS_SALE_LOCAL_ENDS], maxLength: 16 },
    offlinePaymentId: { type: 'string', maxLength: 36 },
    receiptPrinted: { type: 'boolean' },
    closedAt: ISO_TIME,
    ...CART_FIELDS,
  },
  required: ['id', 'terminalId', 'amountMinor', 'currency', 'description', 'capturedAt', 'status'],
  // The poll loop reads the unresolved ones; the history and the resume sort by capture time.
  indexes: ['status', 'capturedAt'],
};

/** Something the cashier must see and acknowledge (lib/alerts.ts). Not replicated. */
export const KIOSK_ALERT_SCHEMA: RxJsonSchema<KioskAlertDoc> = {
  title: 'kiosk alert',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 80 },
    kind: { type: 'string', enum: [...KIOSK_ALERT_KINDS], maxLength: 32 },
    refId: { type: 'string', maxLength: 36 },
    amountMinor: { type: 'integer', minimum: 1 },
    currency: { type: 'string', maxLength: 3 },
    capturedAt: ISO_TIME,
    raisedAt: ISO_TIME,
    payer: { type: 'string', maxLength: 64 },
    code: { type: 'string', maxLength: 64 },
    reason: TEXT,
    status: { type: 'string', enum: [...KIOSK_ALERT_STATUSES], maxLength: 16 },
    acknowledgedAt: ISO_TIME,
  },
  required: ['id', 'kind', 'refId', 'amountMinor', 'currency', 'capturedAt', 'raisedAt', 'status'],
  indexes: ['status', 'raisedAt'],
};

export type OfflinePaymentCollection = RxCollection<OfflinePaymentRecord>;
export type GiftCardSaleCollection = RxCollection<GiftCardSaleDoc>;
export type PosSaleCollection = RxCollection<PosSaleDoc>;
export type KioskAlertCollection = RxCollection<KioskAlertDoc>;
export type ProductCollection = RxCollection<ProductDoc>;

interface Collections {
  offline_payments: OfflinePaymentCollection;
  gift_card_sales: GiftCardSaleCollection;
  pos_sales: PosSaleCollection;
  kiosk_alerts: KioskAlertCollection;
  products: ProductCollection;
}

export interface Replica {
  db: RxDatabase<Collections>;
  payments: OfflinePaymentCollection;
  giftCardSales: GiftCardSaleCollection;
  posSales: PosSaleCollection;
  alerts: KioskAlertCollection;
  /** The merchant's catalogue, pulled from the server (lib/catalogue.ts). */
  products: ProductCollection;
}

export function replicaName(terminalId: string): string {
  // RxDB names: lowercase letters, digits and a few signs.
  return `tapline_terminal_${terminalId.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

export async function openReplica(terminalId: string): Promise<Replica> {
  // One kiosk window: no cross-tab coordination (and no leader election to wait for).
  const db = await createRxDatabase<Collections>({ name: replicaName(terminalId), storage: getRxStorageDexie(), multiInstance: false, closeDuplicates: true });
  // A replica made before a collection existed gets it added next to the others (5 of RxDB's 13).
  const collections = await db.addCollections({
    offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA, migrationStrategies: KEEP_AS_IS },
    gift_card_sales: { schema: GIFT_CARD_SALE_SCHEMA },
    pos_sales: { schema: POS_SALE_SCHEMA, migrationStrategies: KEEP_AS_IS },
    kiosk_alerts: { schema: KIOSK_ALERT_SCHEMA },
    products: { schema: PRODUCT_SCHEMA },
  });
  return {
    db,
    payments: collections.offline_payments,
    giftCardSales: collections.gift_card_sales,
    posSales: collections.pos_sales,
    alerts: collections.kiosk_alerts,
    products: collections.products,
  };
}
