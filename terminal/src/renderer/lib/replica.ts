import { type RxCollection, type RxDatabase, type RxJsonSchema, createRxDatabase } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { GIFT_CARD_DESIGN_THEMES, GIFT_CARD_LIMITS } from '@tapline/shared/gift-card-rules';
import { OFFLINE_PAYMENT_KINDS, OFFLINE_PAYMENT_STATUSES, type GiftCardSaleDoc, type OfflinePaymentDoc } from '@tapline/shared/sync-protocol';

/**
 * The terminal's local replica: an RxDB database in IndexedDB (Dexie storage), one per terminal,
 * so payments taken and gift cards sold offline survive a reload, a crash or a restart of the
 * kiosk until they sync.
 * No dev-mode plugin here (it loads from the internet): without it RxDB needs no validator, and
 * the documents are made by this code only (lib/offline-payments.ts, lib/gift-card-sales.ts) and
 * by the server.
 */
const ISO_TIME = { type: 'string', maxLength: 40 } as const;
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

export const OFFLINE_PAYMENT_SCHEMA: RxJsonSchema<OfflinePaymentDoc> = {
  title: 'offline payment',
  version: 0,
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

export type OfflinePaymentCollection = RxCollection<OfflinePaymentDoc>;
export type GiftCardSaleCollection = RxCollection<GiftCardSaleDoc>;

interface Collections {
  offline_payments: OfflinePaymentCollection;
  gift_card_sales: GiftCardSaleCollection;
}

export interface Replica {
  db: RxDatabase<Collections>;
  payments: OfflinePaymentCollection;
  giftCardSales: GiftCardSaleCollection;
}

export function replicaName(terminalId: string): string {
  // RxDB names: lowercase letters, digits and a few signs.
  return `tapline_terminal_${terminalId.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

export async function openReplica(terminalId: string): Promise<Replica> {
  // One kiosk window: no cross-tab coordination (and no leader election to wait for).
  const db = await createRxDatabase<Collections>({ name: replicaName(terminalId), storage: getRxStorageDexie(), multiInstance: false, closeDuplicates: true });
  // A replica made before gift cards gets the new collection added next to its payments.
  const { offline_payments: payments, gift_card_sales: giftCardSales } = await db.addCollections({
    offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA },
    gift_card_sales: { schema: GIFT_CARD_SALE_SCHEMA },
  });
  return { db, payments, giftCardSales };
}
