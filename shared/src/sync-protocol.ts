/**
 * The replication protocol between a kiosk terminal's local RxDB replica and the sync server,
 * carried over socket.io. It follows RxDB's custom replication (`replicateRxCollection`): a pull
 * handler with checkpoints, a push handler that answers conflicts (the server's master state),
 * and a pull stream the server feeds as documents change.
 *
 * The terminal is the author of offline payments: it generates each document's id (a UUID v4)
 * and stores the document before sending it, so the id is the server's idempotency key. A
 * retried push of a recorded id never settles twice; the server answers its recorded document.
 * The server is the master of every verdict (accepted or declined with a reason): it replicates
 * back to the terminal's replica and to the screen.
 *
 * Connection: socket.io at the sync server's origin (default path `/socket.io`), namespace
 * SYNC_NAMESPACE, handshake `auth: { token: 'term.<token>' }`. A refused handshake ends with a
 * `connect_error` whose message is one of SYNC_HANDSHAKE_ERRORS. A handshake that fails with
 * `server_error` or `database_unavailable` is not a refusal: connect again (socket.io-client does
 * not retry a failed handshake by itself, nor a disconnect by the server).
 *
 * Amounts in this protocol are integer minor units (`amountMinor`), unlike the JSON API: the
 * replica sums them to enforce offline exposure limits and must never add floating point money.
 */

export const SYNC_PROTOCOL_VERSION = 1;
export const SYNC_NAMESPACE = '/sync';

export const SYNC_EVENTS = {
  /** Server -> terminal, once after each connect: SyncHello. */
  hello: 'sync:hello',
  /** Terminal -> server with an acknowledgement: PullRequest -> PullResponse | SyncFailure. */
  pull: 'sync:pull',
  /** Terminal -> server with an acknowledgement: PushRequest -> PushResponse | SyncFailure. */
  push: 'sync:push',
  /** Server -> terminal: StreamMessage, documents that changed on the server. */
  stream: 'sync:stream',
  /**
   * Terminal -> server with an acknowledgement: SyncStatus -> SyncStatusAnswer | SyncFailure. How
   * many documents the terminal holds unsent, after each connect and whenever that number changes,
   * so its merchant sees a kiosk that has sales waiting (the dashboard's terminals page).
   */
  status: 'sync:status',
} as const;

/** Messages of a refused handshake (the `connect_error`'s `message`). */
export const SYNC_HANDSHAKE_ERRORS = ['missing_token', 'invalid_terminal_token', 'terminal_revoked'] as const;
export type SyncHandshakeError = (typeof SYNC_HANDSHAKE_ERRORS)[number];

/**
 * Collections that replicate. Two are pushed by the terminal and settled by the server:
 * `offline_payments` (taps and vouchers taken without the server) and `gift_card_sales` (gift
 * cards sold at the till, whose codes the terminal made and printed), and one recorded by the till only:
 * `till_sales` (sales the till completed with their tenders: cash, and parts paid otherwise) and
 * `shift_events` (cashier shifts: float, paid in and out, drawer openings, the count). `products` (the merchant's
 * catalogue, see ProductDoc) and `till_staff` (who may sign in at the till, see TillStaffDoc) are
 * pull only: the server refuses a push to them (`pull_only`).
 */
export const SYNC_COLLECTIONS = ['offline_payments', 'gift_card_sales', 'till_sales', 'shift_events', 'products', 'till_staff'] as const;
export type SyncCollection = (typeof SYNC_COLLECTIONS)[number];

/**
 * The replicated documents, `OfflinePaymentDoc` (a payment the terminal took without the server:
 * a wearable tap or an offline QR voucher) and `GiftCardSaleDoc` (a gift card sold at the till,
 * whose code only the printout carries), pushed by the terminal, and `ProductDoc` (the merchant's
 * catalogue), pulled only: one TypeBox schema each in sync-documents.ts, from which their types and
 * the kiosk's RxDB schemas come.
 */
export {
  type GiftCardSaleDoc,
  OFFLINE_PAYMENT_KINDS,
  OFFLINE_PAYMENT_STATUSES,
  type OfflinePaymentDoc,
  type OfflinePaymentKind,
  type OfflinePaymentStatus,
  type ProductDoc,
  TILL_TENDER_KINDS,
  type TillSaleDoc,
  type TillTender,
  type TillTenderKind,
  SHIFT_EVENT_KINDS,
  type ShiftEventDoc,
  type ShiftEventKind,
  TILL_STAFF_ROLES,
  type TillStaffDoc,
  type TillStaffRole,
} from './sync-documents.ts';
import type { GiftCardSaleDoc, OfflinePaymentDoc, ProductDoc, ShiftEventDoc, TillSaleDoc, TillStaffDoc } from './sync-documents.ts';

/** A document of a collection the terminal pushes. */
export type SyncDocument = OfflinePaymentDoc | GiftCardSaleDoc | TillSaleDoc | ShiftEventDoc;

/** A document of any collection, pushed or pull only. */
export type ReplicatedDocument = SyncDocument | ProductDoc | TillStaffDoc;

export interface SyncCheckpoint {
  serverSeq: number;
}

export interface PullRequest {
  collection: SyncCollection;
  /** null: from the beginning. */
  checkpoint: SyncCheckpoint | null;
  batchSize: number;
}

/** `D`: the requested collection's documents (OfflinePaymentDoc, GiftCardSaleDoc or ProductDoc). */
export interface PullResponse<D extends ReplicatedDocument = OfflinePaymentDoc> {
  documents: D[];
  /** The checkpoint of the last document answered; the request's own when there is none. */
  checkpoint: SyncCheckpoint | null;
}

export interface PushRow<D extends SyncDocument = OfflinePaymentDoc> {
  /** The master state the terminal last saw (undefined for a new document). */
  assumedMasterState?: D | null;
  newDocumentState: D;
}

export interface PushRequest<D extends SyncDocument = OfflinePaymentDoc> {
  collection: SyncCollection;
  rows: PushRow<D>[];
}

/**
 * The answer to a push: one verdict per pushed document, always.
 *
 * - `conflicts`: the server's master state of every pushed document that has an id, in the order
 *   of the rows: its verdict (accepted, or declined with `declineCode` and `declineReason`). RxDB's
 *   default conflict handler keeps the master state, which is what the terminal must do.
 * - `rejected`: the rows whose document has no usable id (not a UUID), which therefore cannot be
 *   stored under an idempotency key: `index` is the row's position in the push.
 *
 * Rules the server keeps (sync-server/src/modules/offline/README.md):
 * - A push is settled in one database transaction, the documents in the order they were captured;
 *   each document on its own, so one that cannot be settled is declined (recorded, with a precise
 *   code such as `invalid_document`, `code_taken`, `offline_amount_over_limit`) and the others
 *   settle normally. A push is never answered with a SyncFailure after any part of it committed:
 *   a SyncFailure means nothing was stored and the same push may be sent again.
 * - A document id the server has already settled answers its recorded verdict and moves nothing
 *   (a replay). An id settled by another terminal of the same merchant and mode (a kiosk given a
 *   new token) answers that recorded verdict too; an id of another merchant or mode is declined
 *   `id_taken` (not recorded: the id is not this terminal's to use).
 * - Text fields are checked before they reach the database: no NUL character, no unpaired UTF-16
 *   surrogate, and the lengths below; a document that breaks them is declined `invalid_document`.
 */
export interface PushResponse<D extends SyncDocument = OfflinePaymentDoc> {
  conflicts: D[];
  rejected?: PushRejection[];
}

export interface PushRejection {
  /** The row's position in the push. */
  index: number;
  code: 'invalid_document';
  error: string;
}

export interface StreamMessage<D extends ReplicatedDocument = OfflinePaymentDoc> {
  collection: SyncCollection;
  documents: D[];
  checkpoint: SyncCheckpoint;
}

/**
 * An acknowledgement that failed as a whole: a malformed request (`unknown_collection`,
 * `invalid_push`, `invalid_checkpoint`, `invalid_status`, `pull_only`), a revoked terminal
 * (`terminal_revoked`), too many messages (`rate_limited`, see SYNC_MESSAGES_PER_SECOND_MAX in limits.ts), or a
 * server fault (`server_error`, `database_unavailable`).
 * Nothing was stored; the terminal may send the same request again.
 */
export interface SyncFailure {
  error: string;
  code: string;
}

export function isSyncFailure(value: unknown): value is SyncFailure {
  return typeof value === 'object' && value !== null && 'code' in value && 'error' in value && !('documents' in value) && !('conflicts' in value);
}

/** Limits on what one terminal may take while it cannot reach the server (minor units of `currency`). */
export interface OfflineLimits {
  currency: string;
  /** The largest single offline payment. */
  perPaymentMaxMinor: number;
  /**
   * The most the terminal may hold in unsettled (queued) offline payments at once, and the most its
   * offline taps taken on one UTC day may add up to (the server declines the rest
   * `offline_exposure_limit`, however many connections they come over).
   */
  totalMaxMinor: number;
  /** A queued payment older than this stops further offline payments until the terminal syncs. */
  maxAgeSeconds: number;
  /**
   * The largest offline tap: the default no-PIN limit per tap in this currency. A tap above it
   * needs the holder's PIN, which cannot be checked offline; a holder may have lowered their own
   * tag's, and the server declines a tap above the tag's own (`pin_required`).
   * Absent from servers older than the no-PIN limits.
   */
  noPinPerTapMaxMinor?: number;
  /**
   * The default no-PIN limit per UTC day in this currency: the kiosk takes no more from one tag in
   * a day (its own taps of that tag on that day), and the server declines what the tag's own day
   * budget, spent by every merchant online and offline, cannot pay (`pin_required`).
   */
  noPinPerDayMaxMinor?: number;
}

export interface OfflineQrKey {
  keyId: string;
  algorithm: 'Ed25519';
  /** The raw 32-byte public key, base64url. */
  publicKey: string;
}

/** What a terminal reports of itself: its documents of every pushed collection still unsent. */
export interface SyncStatus {
  queued: number;
}

export interface SyncStatusAnswer {
  ok: true;
}

/** Sent by the server after every connect. */
export interface SyncHello {
  protocolVersion: number;
  terminal: { id: string; name: string };
  merchant: { id: string; handle: string; name: string; currency: string };
  mode: 'test' | 'live';
  offlineLimits: OfflineLimits;
  /** Keys that sign offline QR vouchers: the terminal verifies vouchers with them while offline. */
  offlineQrKeys: OfflineQrKey[];
  serverTime: string;
  /**
   * The terminal's language (ISO 639-1, set by the merchant): the kiosk's default and its
   * receipts'. The server always sends it; a hello a kiosk cached before it existed lacks it.
   */
  language?: string;
  /** Tips at this till (set by the merchant): `off` when absent. */
  tipping?: { mode: 'off' | 'before' | 'after'; percentages: number[] };
}
