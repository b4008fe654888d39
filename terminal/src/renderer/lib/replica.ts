import { type RxCollection, type RxDatabase, type RxJsonSchema, addRxPlugin, createRxDatabase } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { GiftCardSaleDocument, OfflinePaymentDocument, ShiftEventDocument, TillSaleDocument, TillStaffDocument, rxJsonSchema } from '@tapline/shared/sync-documents';
import type { GiftCardSaleDoc, OfflinePaymentDoc, ShiftEventDoc, TillSaleDoc, TillStaffDoc as ReplicatedTillStaffDoc } from '@tapline/shared/sync-protocol';
import { PRODUCT_SCHEMA, type ProductDoc } from './catalogue.ts';
import { KIOSK_ALERT_KINDS, KIOSK_ALERT_STATUSES, type KioskAlertDoc } from './alerts.ts';
import { POS_SALE_LOCAL_ENDS, POS_SALE_STATUSES, type PosSaleDoc } from './pos-sales.ts';
import type { DrawerRefundDoc } from './shifts.ts';

/**
 * The terminal's local replica: an RxDB database in IndexedDB (Dexie storage), one per terminal,
 * so payments taken, gift cards sold and cash sales made offline survive a reload, a crash or a
 * restart of the kiosk until they sync, and so does the sale on screen (pos_sales) and the cashier's alerts
 * (kiosk_alerts) and the refunds made here (pos_refunds); those three stay on the terminal. The merchant's catalogue (products) is pulled
 * from the server and never pushed, and so are the till staff (till_staff); the till's sales with
 * their tenders (till_sales) and its cashier shifts (shift_events) are pushed; the cash refunds
 * given from the drawer by shift (drawer_refunds) stay here.
 * No dev-mode plugin here (it loads from the internet): without it RxDB needs no validator, and
 * the documents are made by this code only (lib/offline-payments.ts, lib/gift-card-sales.ts,
 * lib/cash-sales.ts, lib/shifts.ts) and by the server.
 */
addRxPlugin(RxDBMigrationSchemaPlugin);

const ISO_TIME = { type: 'string', maxLength: 40 } as const;

/** An offline payment as the replica keeps it: a sale from the cart carries its lines. */
export type OfflinePaymentRecord = OfflinePaymentDoc;

/**
 * Version 1 added the sale's lines (CART_FIELDS) to pos_sales and offline_payments: documents
 * stored before keep what they had (no lines: a keypad amount). Version 1 of kiosk_alerts added
 * an alert kind: the alerts stored before are valid as they are.
 */
export const KEEP_AS_IS = { 1: (doc: unknown) => doc };
// Version 2 of pos_sales added tenderOf (a tap for part of a split sale): sales stored before are whole sales, as they are.
const TEXT = { type: 'string', maxLength: 1000 } as const;

/**
 * The replicated documents' schemas are derived from shared's TypeBox schemas (one per document,
 * shared/src/sync-documents.ts): the same fields, types and lengths as the server and the
 * protocol's types. RxDB hashes the schema it stores, so a change there needs a new `version`
 * (and a migration strategy); replica-schemas.test.ts pins the hashes.
 */
// Version 2 of offline_payments added cashierId (who took it at the till), version 3 tenderOf (a
// tap for part of a split sale offline): payments stored before keep what they had.
export const OFFLINE_PAYMENT_MIGRATIONS = { ...KEEP_AS_IS, 2: (doc: unknown) => doc, 3: (doc: unknown) => doc };
export const OFFLINE_PAYMENT_SCHEMA = rxJsonSchema(OfflinePaymentDocument, {
  title: 'offline payment',
  version: 3,
  primaryKey: 'id',
  // The exposure check reads the queued ones; the recent list sorts by capture time.
  indexes: ['status', 'capturedAt'],
}) as unknown as RxJsonSchema<OfflinePaymentDoc>;

/** A sale's lines (shared/src/cart.ts's SaleLine) and its cart discount, as offline_payments keeps them: pos_sales keeps them too. */
const CART_FIELDS = {
  items: OFFLINE_PAYMENT_SCHEMA.properties.items,
  discountMinor: OFFLINE_PAYMENT_SCHEMA.properties.discountMinor,
};

/** A gift card sold at the till: the code's hash and prefix only, never the code (it is printed). */
export const GIFT_CARD_SALE_SCHEMA = rxJsonSchema(GiftCardSaleDocument, {
  title: 'gift card sale',
  version: 0,
  primaryKey: 'id',
  // The status bar counts the queued ones; the recent list sorts by capture time.
  indexes: ['status', 'capturedAt'],
}) as unknown as RxJsonSchema<GiftCardSaleDoc>;

/**
 * A sale completed at the till with its tenders (cash...), with the cashier and shift that made it
 * (collection till_sales, pushed): a cash sale, written when the cashier confirms the cash, online
 * or offline alike (lib/cash-sales.ts). Its cash tenders count in the shift's expected cash (lib/shifts.ts).
 */
// Version 1 of till_sales added the tender kind offline_tap and unpaidMinor: sales stored before are as they were.
export const TILL_SALE_MIGRATIONS = KEEP_AS_IS;
export const KIOSK_ALERT_MIGRATIONS = { ...KEEP_AS_IS, 2: (doc: unknown) => doc };
export const TILL_SALE_SCHEMA = rxJsonSchema(TillSaleDocument, {
  title: 'till sale',
  version: 1,
  primaryKey: 'id',
  indexes: ['status', 'capturedAt'],
}) as unknown as RxJsonSchema<TillSaleDoc>;

/** One event of a cashier's shift: open with the float, paid in / out, no sale, close with the count (lib/shifts.ts). */
export const SHIFT_EVENT_SCHEMA = rxJsonSchema(ShiftEventDocument, {
  title: 'shift event',
  version: 0,
  primaryKey: 'id',
  indexes: ['status', 'capturedAt'],
}) as unknown as RxJsonSchema<ShiftEventDoc>;

/** A member of the till staff as the replica keeps it (RxDB keeps `_deleted` itself). */
export type TillStaffDoc = Omit<ReplicatedTillStaffDoc, '_deleted'>;

/** The merchant's till staff with their PIN verifiers (pull only: lib/till-pin.ts checks PINs offline). */
export const TILL_STAFF_SCHEMA = rxJsonSchema(TillStaffDocument, {
  title: 'till staff',
  version: 0,
  primaryKey: 'id',
}) as unknown as RxJsonSchema<TillStaffDoc>;

/** A cash refund given from the drawer during a shift (Refund.svelte), for the shift's expected cash. Not replicated. */
export const DRAWER_REFUND_SCHEMA: RxJsonSchema<DrawerRefundDoc> = {
  title: 'drawer refund',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 64 },
    shiftId: { type: 'string', maxLength: 36 },
    cashierId: { type: 'string', maxLength: 64 },
    amountMinor: { type: 'integer', minimum: 0 },
    currency: { type: 'string', maxLength: 3 },
    createdAt: ISO_TIME,
  },
  required: ['id', 'shiftId', 'cashierId', 'amountMinor', 'currency', 'createdAt'],
  indexes: ['shiftId'],
};

/** A sale charged through the server, from Charge on (lib/pos-sales.ts). Not replicated. */
export const POS_SALE_SCHEMA: RxJsonSchema<PosSaleDoc> = {
  title: 'pos sale',
  version: 2,
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
    tenderOf: { type: 'string', maxLength: 36 },
    cashierId: { type: 'string', maxLength: 64 },
  },
  required: ['id', 'terminalId', 'amountMinor', 'currency', 'description', 'capturedAt', 'status'],
  // The poll loop reads the unresolved ones; the history and the resume sort by capture time.
  indexes: ['status', 'capturedAt'],
};

/**
 * A refund made at this kiosk, as the server answered it (lib/history.ts lists it in Sales
 * today). Not replicated: the server has the refund itself; this is the till's own record.
 */
export interface PosRefundDoc {
  /** The server's id (rf_…). */
  id: string;
  /** The sale refunded, as the server names it (a POS session id or an offline payment id). */
  saleId: string;
  amountMinor: number;
  currency: string;
  /** When the server made it. */
  createdAt: string;
  payerHandle?: string;
}

export const POS_REFUND_SCHEMA: RxJsonSchema<PosRefundDoc> = {
  title: 'pos refund',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 64 },
    saleId: { type: 'string', maxLength: 64 },
    amountMinor: { type: 'integer', minimum: 1 },
    currency: { type: 'string', maxLength: 3 },
    createdAt: ISO_TIME,
    payerHandle: { type: 'string', maxLength: 64 },
  },
  required: ['id', 'saleId', 'amountMinor', 'currency', 'createdAt'],
  indexes: ['createdAt'],
};

/**
 * Something the cashier must see and acknowledge (lib/alerts.ts). Not replicated. Version 1 added
 * the kind `till_sale_declined`, version 2 the optional `saleId` (a split sale's declined tap):
 * the alerts stored before are kept as they are (KIOSK_ALERT_MIGRATIONS).
 */
export const KIOSK_ALERT_SCHEMA: RxJsonSchema<KioskAlertDoc> = {
  title: 'kiosk alert',
  version: 2,
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
    saleId: { type: 'string', maxLength: 36 },
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
export type PosRefundCollection = RxCollection<PosRefundDoc>;
export type TillSaleCollection = RxCollection<TillSaleDoc>;
export type ShiftEventCollection = RxCollection<ShiftEventDoc>;
export type TillStaffCollection = RxCollection<TillStaffDoc>;
export type DrawerRefundCollection = RxCollection<DrawerRefundDoc>;

interface Collections {
  offline_payments: OfflinePaymentCollection;
  gift_card_sales: GiftCardSaleCollection;
  pos_sales: PosSaleCollection;
  kiosk_alerts: KioskAlertCollection;
  products: ProductCollection;
  pos_refunds: PosRefundCollection;
  till_sales: TillSaleCollection;
  shift_events: ShiftEventCollection;
  till_staff: TillStaffCollection;
  drawer_refunds: DrawerRefundCollection;
}

export interface Replica {
  db: RxDatabase<Collections>;
  payments: OfflinePaymentCollection;
  giftCardSales: GiftCardSaleCollection;
  posSales: PosSaleCollection;
  alerts: KioskAlertCollection;
  /** The merchant's catalogue, pulled from the server (lib/catalogue.ts). */
  products: ProductCollection;
  /** Refunds made at this kiosk. */
  refunds: PosRefundCollection;
  /** Sales completed at the till with their tenders (pushed). */
  tillSales: TillSaleCollection;
  /** This till's shift events (pushed): lib/shifts.ts. */
  shiftEvents: ShiftEventCollection;
  /** The merchant's till staff (pull only). */
  tillStaff: TillStaffCollection;
  /** Cash refunds given from the drawer, by shift (this till only). */
  drawerRefunds: DrawerRefundCollection;
}

export function replicaName(terminalId: string): string {
  // RxDB names: lowercase letters, digits and a few signs.
  return `tapline_terminal_${terminalId.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

export async function openReplica(terminalId: string): Promise<Replica> {
  // One kiosk window: no cross-tab coordination (and no leader election to wait for).
  const db = await createRxDatabase<Collections>({ name: replicaName(terminalId), storage: getRxStorageDexie(), multiInstance: false, closeDuplicates: true });
  // A replica made before a collection existed gets it added next to the others (10 of RxDB's 13).
  const collections = await db.addCollections({
    offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA, migrationStrategies: OFFLINE_PAYMENT_MIGRATIONS },
    gift_card_sales: { schema: GIFT_CARD_SALE_SCHEMA },
    pos_sales: { schema: POS_SALE_SCHEMA, migrationStrategies: { ...KEEP_AS_IS, 2: (doc: unknown) => doc } },
    kiosk_alerts: { schema: KIOSK_ALERT_SCHEMA, migrationStrategies: KIOSK_ALERT_MIGRATIONS },
    products: { schema: PRODUCT_SCHEMA },
    pos_refunds: { schema: POS_REFUND_SCHEMA },
    till_sales: { schema: TILL_SALE_SCHEMA, migrationStrategies: TILL_SALE_MIGRATIONS },
    shift_events: { schema: SHIFT_EVENT_SCHEMA },
    till_staff: { schema: TILL_STAFF_SCHEMA },
    drawer_refunds: { schema: DRAWER_REFUND_SCHEMA },
  });
  return {
    db,
    payments: collections.offline_payments,
    giftCardSales: collections.gift_card_sales,
    posSales: collections.pos_sales,
    alerts: collections.kiosk_alerts,
    products: collections.products,
    refunds: collections.pos_refunds,
    tillSales: collections.till_sales,
    shiftEvents: collections.shift_events,
    tillStaff: collections.till_staff,
    drawerRefunds: collections.drawer_refunds,
  };
}
