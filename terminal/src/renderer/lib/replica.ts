import { type RxCollection, type RxDatabase, type RxJsonSchema, createRxDatabase } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { OFFLINE_PAYMENT_KINDS, OFFLINE_PAYMENT_STATUSES, type OfflinePaymentDoc } from '@tapline/shared/sync-protocol';

/**
 * The terminal's local replica: an RxDB database in IndexedDB (Dexie storage), one per terminal,
 * so payments taken offline survive a reload, a crash or a restart of the kiosk until they sync.
 * No dev-mode plugin here (it loads from the internet): without it RxDB needs no validator, and
 * the documents are made by this code only (lib/offline-payments.ts) and by the server.
 */
const ISO_TIME = { type: 'string', maxLength: 40 } as const;
const TEXT = { type: 'string', maxLength: 1000 } as const;

export const OFFLINE_PAYMENT_SCHEMA: RxJsonSchema<OfflinePaymentDoc> = {
  title: 'offline payment',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 36 },
    terminalId: { type: 'string', maxLength: 64 },
    kind: { type: 'string', enum: [...OFFLINE_PAYMENT_KINDS], maxLength: 3 },
    tagId: { type: 'string', maxLength: 64 },
    voucher: { type: 'string', maxLength: 2000 },
    voucherId: { type: 'string', maxLength: 80 },
    amountMinor: { type: 'integer', minimum: 1 },
    currency: { type: 'string', maxLength: 3 },
    description: TEXT,
    capturedAt: ISO_TIME,
    status: { type: 'string', enum: [...OFFLINE_PAYMENT_STATUSES], maxLength: 8 },
    payerHandle: { type: 'string', maxLength: 64 },
    walletRef: { type: 'string', maxLength: 128 },
    declineCode: { type: 'string', maxLength: 64 },
    declineReason: TEXT,
    settledAt: ISO_TIME,
    serverSeq: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, multipleOf: 1 },
  },
  required: ['id', 'terminalId', 'kind', 'amountMinor', 'currency', 'description', 'capturedAt', 'status', 'serverSeq'],
  // The exposure check reads the queued ones; the recent list sorts by capture time.
  indexes: ['status', 'capturedAt'],
};

export type OfflinePaymentCollection = RxCollection<OfflinePaymentDoc>;

export interface Replica {
  db: RxDatabase<{ offline_payments: OfflinePaymentCollection }>;
  payments: OfflinePaymentCollection;
}

export function replicaName(terminalId: string): string {
  // RxDB names: lowercase letters, digits and a few signs.
  return `tapline_terminal_${terminalId.toLowerCase().replace(/[^a-z0-9]/g, '_')}`;
}

export async function openReplica(terminalId: string): Promise<Replica> {
  // One kiosk window: no cross-tab coordination (and no leader election to wait for).
  const db = await createRxDatabase<{ offline_payments: OfflinePaymentCollection }>({ name: replicaName(terminalId), storage: getRxStorageDexie(), multiInstance: false, closeDuplicates: true });
  const { offline_payments: payments } = await db.addCollections({ offline_payments: { schema: OFFLINE_PAYMENT_SCHEMA } });
  return { db, payments };
}
