import type { CreatePosCollectionBody, PosCollectionRecord, PosSessionRecord } from '@tapline/shared/schemas';
import type { SessionItem } from './till-cart.ts';

export type PosSession = PosSessionRecord;

/** GET /api/pos/context: who the terminal token belongs to. */
export interface PosContext {
  merchant: { id: string; name: string; handle: string; country: string; currency: string };
  mode: 'test' | 'live';
  terminal: { id: string; name: string } | null;
}

/** An API answer other than 2xx: `message` is the server's `error`, meant for people. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    /** The answer's `details` (which product a sale's refusal is about, ...). */
    readonly details: readonly unknown[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The server cannot be reached: the terminal's own network (network_error) or the host's link to
 * the sync server (its proxy answers sync_server_unreachable, or a gateway error). The offline
 * path is the answer to these, never to a refusal.
 */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ApiError && (error.code === 'network_error' || error.code === 'sync_server_unreachable' || [502, 503, 504].includes(error.status));
}

/** Statuses after which a session never changes again. */
export const FINAL_STATUSES: ReadonlySet<PosSession['status']> = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** A line of a sale as the server answers it (major units; `discount` is everything taken off it). */
export interface SaleLineRecord {
  line: number;
  productId?: string | null;
  name: string;
  quantity: number;
  unitPrice: number;
  discount: number;
  taxRate: number;
  taxInclusive: boolean;
  net: number;
  tax: number;
  total: number;
}

/** GET /api/pos/sales/{saleId}: a sale with its lines, refunds and what is still refundable. */
export interface SaleRecord {
  saleId: string;
  kind: 'pos_session' | 'offline_payment';
  status: string;
  amount: number;
  currency: string;
  payerHandle?: string | null;
  createdAt: string;
  items: SaleLineRecord[] | null;
  refunds: RefundRecord[];
  refunded: number;
  refundable: number;
  refundableLines: { line: number; quantity: number; amount: number }[];
}

/** POST /api/pos/refunds: the refund made. */
export interface RefundRecord {
  id: string;
  saleId: string;
  amount: number;
  currency: string;
  lines: { line: number; productId?: string | null; name: string; quantity: number; amount: number }[];
  reason: string | null;
  walletRef: string | null;
  payerHandle?: string | null;
  /** How the money went back: cash from the drawer (a till sale's refund) or to the wallet that paid. Absent from older servers. */
  tenders?: { kind: string; amount: number }[];
  cashierId?: string | null;
  shiftId?: string | null;
  createdAt: string;
}

export interface Tally {
  count: number;
  amount: number;
}

/** An X report (the open day, `id` and `number` null) or a Z report (closed, numbered). Major units. */
export interface DayReport {
  id: string | null;
  kind: 'X' | 'Z';
  terminalId: string;
  number: number | null;
  openedAt: string;
  closedAt: string;
  currency: string;
  /** `cash`: the till's cash sales (till_sales); absent from a server before them. */
  methods: { walletTap: Tally; qrOnline: Tally; offlineVoucher: Tally; offlineTap: Tally; giftCard: Tally; cash?: Tally; mobileMoney?: Tally; giftCardTender?: Tally };
  online: Tally;
  offline: Tally;
  declinedOffline: Tally;
  giftCardsSold: Tally;
  refunds: Tally;
  taxes: { rate: number; taxable: number; tax: number }[];
  gross: number;
  net: number;
  oversold: { productId: string; name: string; stock: number }[];
}

/** GET /api/gift-cards/verify (major units). */
export interface GiftCardCheck {
  valid: boolean;
  amount: number;
  amountRemaining?: number;
  currency: string;
  expiresAt: string;
  hasPin: boolean;
  locked: boolean;
  status?: string;
}

/** POST /api/merchant/gift-cards/redeem (major units). */
export interface GiftCardRedeemed {
  card: { id: string; status: string; amountRemaining: number };
  redemption: { id: string; amount_drawn: number; credited_amount: number; credited_currency: string };
}

/** POST /api/pos/gift-card-redemptions/{id}/return (major units). */
export interface GiftCardReturn {
  id: string;
  redemptionId: string;
  amount: number;
  currency: string;
  returnedTo: 'card' | 'cash';
  cardAmountRemaining: number | null;
}

/** POST /api/terminals/pair: what a pairing code is exchanged for (no credential needed). */
export interface PairedTerminal {
  token: string;
  terminal: { id: string; name: string; mode: 'test' | 'live'; merchant: { name: string; handle: string } };
}

/** Sends a request to the page's origin and turns any failure into an ApiError. */
async function send<T>(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const sent: Record<string, string> = { ...headers };
  if (body !== undefined) sent['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers: sent, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  } catch {
    throw new ApiError('The terminal cannot reach the server', 'network_error', 0);
  }
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data ?? {}) as { error?: unknown; code?: unknown; details?: unknown };
    throw new ApiError(
      typeof error.error === 'string' ? error.error : `The server answered HTTP ${response.status}`,
      typeof error.code === 'string' ? error.code : 'http_error',
      response.status,
      Array.isArray(error.details) ? error.details : [],
    );
  }
  return data as T;
}

/** The kiosk's first start: the pairing code the merchant got is exchanged for this terminal's token. */
export function pairTerminal(code: string): Promise<PairedTerminal> {
  return send<PairedTerminal>('POST', '/api/terminals/pair', {}, { code });
}

/**
 * The sync server's POS surface as the terminal uses it. Requests go to the page's own origin;
 * the terminal host forwards /api to the sync server.
 */
export function createApi(terminalToken: string) {
  const call = <T>(method: 'GET' | 'POST', path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> =>
    send<T>(method, path, { authorization: `Bearer ${terminalToken}`, ...extraHeaders }, body);
  const sessionPath = (sessionId: string) => `/api/pos/sessions/${encodeURIComponent(sessionId)}`;
  return {
    context: () => call<PosContext>('GET', '/api/pos/context'),
    // The sale's id as the key: a Charge repeated after a lost answer or a reload opens one session.
    createSession: (body: { amount: number; currency: string; description?: string; items?: SessionItem[]; discount?: number; tenderOf?: string; cashierId?: string }, idempotencyKey: string) => call<PosSession>('POST', '/api/pos/sessions', body, { 'idempotency-key': `sale-${idempotencyKey}` }),
    session: (sessionId: string) => call<PosSession>('GET', sessionPath(sessionId)),
    // The key makes a retried tap (an answer lost on the network) replay instead of answering 409.
    // A tap answered pin_required is sent again with the customer's PIN: each PIN try is a request
    // of its own (another key), since a key may not be reused with another body.
    tap: (sessionId: string, tagId: string, pin?: { pin: string; attempt: number }) =>
      call<PosSession>('POST', `${sessionPath(sessionId)}/tap`, pin === undefined ? { tagId } : { tagId, pin: pin.pin }, { 'idempotency-key': `tap-${sessionId}-${tagId}${pin === undefined ? '' : `-pin${pin.attempt}`}` }),
    cancel: (sessionId: string) => call<PosSession>('POST', `${sessionPath(sessionId)}/cancel`),
    // Refunds and the day's reports (docs/catalogue.md): the terminal's manager PIN authorises them.
    sale: (saleId: string) => call<SaleRecord>('GET', `/api/pos/sales/${encodeURIComponent(saleId)}`),
    refund: (body: { saleId: string; lines?: { line: number; quantity: number }[]; managerPin: string; reason?: string; cashierId?: string; shiftId?: string }, idempotencyKey: string) =>
      call<RefundRecord>('POST', '/api/pos/refunds', body, { 'idempotency-key': `refund-${idempotencyKey}` }),
    // A split sale cancelled before it was paid in full: its tap goes back to the payer (no PIN; asking again answers the same refund).
    returnTender: (sessionId: string, by: { cashierId?: string; shiftId?: string }) => call<RefundRecord>('POST', `${sessionPath(sessionId)}/return`, by),
    // Gift cards paying part of a sale (docs/till.md, "Gift cards at the till"): checked, then drawn into the
    // merchant's wallet; the key makes a redeem repeated after a lost answer or a reload draw once.
    verifyGiftCard: (code: string) => call<GiftCardCheck>('GET', `/api/gift-cards/verify?code=${encodeURIComponent(code)}`),
    redeemGiftCard: (body: { code: string; redeemAmount: number; pinCode?: string }, idempotencyKey: string) =>
      call<GiftCardRedeemed>('POST', '/api/merchant/gift-cards/redeem', body, { 'idempotency-key': `giftcard-${idempotencyKey}` }),
    // A split sale cancelled: the card gets its redemption back (asking again answers the same return).
    returnGiftCard: (redemptionId: string) => call<GiftCardReturn>('POST', `/api/pos/gift-card-redemptions/${encodeURIComponent(redemptionId)}/return`),
    // Whether the terminal has a manager PIN (no PIN sent), or whether this one is it (403 wrong_manager_pin, 429 manager_pin_locked).
    managerPinCheck: (managerPin?: string) => call<{ terminalId: string; managerPinSet: boolean; verified: boolean }>('POST', '/api/pos/manager-pin/check', managerPin === undefined ? {} : { managerPin }),
    currentReport: () => call<DayReport>('GET', '/api/pos/reports/current'),
    // Mobile money at the till (docs/till.md): the key makes a Send repeated after a lost answer or a reload ask the phone once.
    createCollection: (body: CreatePosCollectionBody, idempotencyKey: string) => call<PosCollectionRecord>('POST', '/api/pos/collections', body, { 'idempotency-key': `momo-${idempotencyKey}` }),
    collection: (collectionId: string) => call<PosCollectionRecord>('GET', `/api/pos/collections/${encodeURIComponent(collectionId)}`),
    cancelCollection: (collectionId: string) => call<PosCollectionRecord>('POST', `/api/pos/collections/${encodeURIComponent(collectionId)}/cancel`),
    closeDay: (managerPin: string, idempotencyKey: string) => call<DayReport>('POST', '/api/pos/reports', { managerPin }, { 'idempotency-key': `zreport-${idempotencyKey}` }),
  };
}

export type Api = ReturnType<typeof createApi>;
