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

import type { SaleLine } from './cart.ts';

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
} as const;

/** Messages of a refused handshake (the `connect_error`'s `message`). */
export const SYNC_HANDSHAKE_ERRORS = ['missing_token', 'invalid_terminal_token', 'terminal_revoked'] as const;
export type SyncHandshakeError = (typeof SYNC_HANDSHAKE_ERRORS)[number];

/**
 * Collections that replicate. Two are pushed by the terminal and settled by the server:
 * `offline_payments` (taps and vouchers taken without the server) and `gift_card_sales` (gift
 * cards sold at the till, whose codes the terminal made and printed). `products` (the merchant's
 * catalogue, see ProductDoc) is pull only: the server refuses a push to it (`pull_only`).
 */
export const SYNC_COLLECTIONS = ['offline_payments', 'gift_card_sales', 'products'] as const;
export type SyncCollection = (typeof SYNC_COLLECTIONS)[number];

/** At most this many documents in one push (each settles money: a push is one transaction). */
export const SYNC_BATCH_SIZE_MAX = 100;
/**
 * At most this many documents in one pull answer. Pulls only read, and a fresh kiosk pulls the
 * whole catalogue (thousands of products) before it can sell items offline: fewer, larger
 * answers reach it sooner than many round trips.
 */
export const SYNC_PULL_BATCH_SIZE_MAX = 500;

export const OFFLINE_PAYMENT_KINDS = ['tap', 'qr'] as const;
export type OfflinePaymentKind = (typeof OFFLINE_PAYMENT_KINDS)[number];

/** queued: taken by the terminal, not yet settled. accepted / declined: the server's verdict. */
export const OFFLINE_PAYMENT_STATUSES = ['queued', 'accepted', 'declined'] as const;
export type OfflinePaymentStatus = (typeof OFFLINE_PAYMENT_STATUSES)[number];

/**
 * A payment the terminal took without the sync server: a wearable tap (the tag's id) or an
 * offline QR voucher (the scanned payload, see offline-qr.ts).
 */
export interface OfflinePaymentDoc {
  /** UUID v4 made by the terminal before it stores the payment: the idempotency key. */
  id: string;
  terminalId: string;
  kind: OfflinePaymentKind;
  /** kind `tap`: the tag read at the reader (TG + 8 hex). */
  tagId?: string;
  /**
   * kind `qr`: the voucher payload as scanned (TLQ1....). The server keeps only its hash, so the
   * master state it answers does not carry it; voucherId stays.
   */
  voucher?: string;
  /** kind `qr`: the voucher's id (its claims' `id`), so a voucher pays once per terminal even offline. */
  voucherId?: string;
  /** Integer minor units of `currency`. */
  amountMinor: number;
  currency: string;
  description: string;
  /** When the terminal took the payment (its clock, ISO 8601). */
  capturedAt: string;
  status: OfflinePaymentStatus;
  /** Set by the server with a verdict. */
  payerHandle?: string;
  /** The ledger transfer of an accepted payment. */
  walletRef?: string;
  /** A declined payment: the rule that failed (insufficient_funds, tag_disabled, voucher_already_used, ...). */
  declineCode?: string;
  declineReason?: string;
  settledAt?: string;
  /**
   * The lines sold (shared/src/cart.ts: minor units, tax rates in basis points), when the sale was
   * made from a cart. The server declines a document whose lines do not add up to `amountMinor`
   * (declineCode `items_total_mismatch` or another CartError code); it never declines one for stock.
   */
  items?: SaleLine[];
  /** The cart discount in minor units (shared between the lines by cartTotals); 0 when absent. */
  discountMinor?: number;
  /**
   * The server's order of changes to this terminal's documents (0 until the server has it).
   * Pull checkpoints count in it.
   */
  serverSeq: number;
}

/**
 * A product of the merchant's catalogue as the kiosk's replica holds it (pull only: the server
 * is its only author). Amounts in minor units, the tax rate in basis points. An archived product
 * replicates with `_deleted: true`; a deactivated one stays with `active: false` (not for sale).
 */
export interface ProductDoc {
  /** `prod_…` */
  id: string;
  name: string;
  /** One unit's price, integer minor units of `currency` (tax included when taxInclusive). */
  priceMinor: number;
  currency: string;
  sku: string | null;
  barcode: string | null;
  category: string | null;
  /** Basis points (750 = 7.5 %). */
  taxRate: number;
  taxInclusive: boolean;
  imageUrl: string | null;
  trackStock: boolean;
  /** Units in stock when trackStock (negative: oversold by offline sales); null otherwise. */
  stock: number | null;
  active: boolean;
  updatedAt: string;
  /** The server's order of changes to the merchant's products in this mode: the pull checkpoint. */
  serverSeq: number;
  /** True when the merchant archived the product. */
  _deleted: boolean;
}

/**
 * A gift card sold at the till (paid at the till, funded from the merchant's wallet). The terminal
 * makes the card's code itself (`gc_` + 64 hex from 32 random bytes, see gift-card-code.ts),
 * prints it for the customer and keeps only its SHA-256 here: the code never enters the replica
 * or the network. The card works once the sale is accepted (when the terminal syncs).
 */
export interface GiftCardSaleDoc {
  /** UUID v4 made by the terminal: the idempotency key. */
  id: string;
  terminalId: string;
  /** SHA-256 (lower-case hex) of the code printed for the customer. */
  codeHash: string;
  /** The code's first 10 characters, printed and shown to staff to tell cards apart. */
  codePrefix: string;
  /** Integer minor units of `currency` (a gift-card currency: USD, GHS, NGN, KES, ZAR, EUR, GBP). */
  amountMinor: number;
  currency: string;
  designTheme?: 'default' | 'birthday' | 'business' | 'celebration';
  /** At most 160 characters. */
  message?: string;
  capturedAt: string;
  status: OfflinePaymentStatus;
  /** Set by the server when accepted: the card's id and expiry. */
  cardId?: string;
  expiresAt?: string;
  declineCode?: string;
  declineReason?: string;
  settledAt?: string;
  serverSeq: number;
}

/** A document of a collection the terminal pushes. */
export type SyncDocument = OfflinePaymentDoc | GiftCardSaleDoc;

/** A document of any collection, pushed or pull only. */
export type ReplicatedDocument = SyncDocument | ProductDoc;

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

/** Longest texts a document may carry (UTF-16 code units). */
export const SYNC_TEXT_LIMITS = { description: 500, message: 160, voucher: 2048 } as const;

export interface StreamMessage<D extends ReplicatedDocument = OfflinePaymentDoc> {
  collection: SyncCollection;
  documents: D[];
  checkpoint: SyncCheckpoint;
}

/**
 * An acknowledgement that failed as a whole: a malformed request (`unknown_collection`,
 * `invalid_push`), a revoked terminal, or a server fault (`server_error`, `database_unavailable`).
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
  /** The most the terminal may hold in unsettled (queued) offline payments at once. */
  totalMaxMinor: number;
  /** A queued payment older than this stops further offline payments until the terminal syncs. */
  maxAgeSeconds: number;
  /**
   * The largest offline tap: the default no-PIN limit per tap in this currency. A tap above it
   * needs the holder's PIN, which cannot be checked offline; a holder may have lowered their own
   * tag's, and the server declines a tap above the tag's own (`no_pin_limit_exceeded`).
   * Absent from servers older than the no-PIN limits.
   */
  noPinPerTapMaxMinor?: number;
}

export interface OfflineQrKey {
  keyId: string;
  algorithm: 'Ed25519';
  /** The raw 32-byte public key, base64url. */
  publicKey: string;
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
}
