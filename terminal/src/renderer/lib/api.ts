import { type Answer, type Body, type Method, type PartsArgument, type Route, partsUrl } from '@tapline/shared/api';

/**
 * The kiosk's records are the routes' answers (`@tapline/shared/api`, generated from the server's
 * OpenAPI document): each name below is the type of the route it comes from, never a copy.
 */
/** GET /api/pos/sessions/{sessionId} (and what creating, tapping and cancelling answer). */
export type PosSession = Answer<'GET', '/api/pos/sessions/{sessionId}'>;
/** GET /api/pos/context: who the terminal token belongs to. */
export type PosContext = Answer<'GET', '/api/pos/context'>;
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

/** GET /api/pos/sales/{saleId}: a sale with its lines, refunds and what is still refundable (major units). */
export type SaleRecord = Answer<'GET', '/api/pos/sales/{saleId}'>;
/** A line of a sale as the server answers it (`discount` is everything taken off it). */
export type SaleLineRecord = NonNullable<SaleRecord['items']>[number];
/** POST /api/pos/refunds: the refund made. */
export type RefundRecord = Answer<'POST', '/api/pos/refunds'>;
/** An X report (the open day, `id` and `number` null) or a Z report (closed, numbered). Major units. */
export type DayReport = Answer<'GET', '/api/pos/reports/current'>;
export type Tally = DayReport['online'];
/** GET /api/gift-cards/verify (major units). */
export type GiftCardCheck = Answer<'GET', '/api/gift-cards/verify'>;
/** POST /api/merchant/gift-cards/redeem (major units). */
export type GiftCardRedeemed = Answer<'POST', '/api/merchant/gift-cards/redeem'>;
/** POST /api/pos/gift-card-redemptions/{redemptionId}/return (major units). */
export type GiftCardReturn = Answer<'POST', '/api/pos/gift-card-redemptions/{redemptionId}/return'>;
/** POST /api/terminals/pair: what a pairing code is exchanged for (no credential needed). */
export type PairedTerminal = Answer<'POST', '/api/terminals/pair'>;

/** Sends a request to the page's origin and turns any failure into an ApiError. */
async function send(method: Method, path: string, headers: Record<string, string>, body?: unknown): Promise<unknown> {
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
  return data;
}

/** One call to a route, typed by it, with these headers besides the call's own. */
function request<M extends Method, P extends Route<M>>(headers: Record<string, string>, method: M, path: P, ...[parts]: PartsArgument<M, P>): Promise<Answer<M, P>> {
  return send(method, partsUrl(path, parts), { ...headers, ...parts?.headers }, parts?.body) as Promise<Answer<M, P>>;
}

/** The kiosk's first start: the pairing code the merchant got is exchanged for this terminal's token. */
export function pairTerminal(code: string): Promise<PairedTerminal> {
  return request({}, 'POST', '/api/terminals/pair', { body: { code } });
}

/**
 * The sync server's POS surface as the terminal uses it. Requests go to the page's own origin;
 * the terminal host forwards /api to the sync server. Each method names its route: its body and
 * answer are the route's.
 */
export function createApi(terminalToken: string) {
  const call = <M extends Method, P extends Route<M>>(method: M, path: P, ...parts: PartsArgument<M, P>): Promise<Answer<M, P>> =>
    request({ authorization: `Bearer ${terminalToken}` }, method, path, ...parts);
  return {
    context: () => call('GET', '/api/pos/context'),
    // The sale's id as the key: a Charge repeated after a lost answer or a reload opens one session.
    createSession: (body: Body<'POST', '/api/pos/sessions'>, idempotencyKey: string) => call('POST', '/api/pos/sessions', { body, headers: { 'idempotency-key': `sale-${idempotencyKey}` } }),
    session: (sessionId: string) => call('GET', '/api/pos/sessions/{sessionId}', { params: { sessionId } }),
    // The key makes a retried tap (an answer lost on the network) replay instead of answering 409.
    // A tap answered pin_required is sent again with the customer's PIN: each PIN try is a request
    // of its own (another key), since a key may not be reused with another body.
    tap: (sessionId: string, tagId: string, pin?: { pin: string; attempt: number }) =>
      call('POST', '/api/pos/sessions/{sessionId}/tap', {
        params: { sessionId },
        body: pin === undefined ? { tagId } : { tagId, pin: pin.pin },
        headers: { 'idempotency-key': `tap-${sessionId}-${tagId}${pin === undefined ? '' : `-pin${pin.attempt}`}` },
      }),
    cancel: (sessionId: string) => call('POST', '/api/pos/sessions/{sessionId}/cancel', { params: { sessionId } }),
    // Refunds and the day's reports (docs/catalogue.md): the terminal's manager PIN authorises them.
    sale: (saleId: string) => call('GET', '/api/pos/sales/{saleId}', { params: { saleId } }),
    refund: (body: Body<'POST', '/api/pos/refunds'>, idempotencyKey: string) => call('POST', '/api/pos/refunds', { body, headers: { 'idempotency-key': `refund-${idempotencyKey}` } }),
    // A split sale cancelled before it was paid in full: its tap goes back to the payer (no PIN; asking again answers the same refund).
    returnTender: (sessionId: string, by: Body<'POST', '/api/pos/sessions/{sessionId}/return'>) => call('POST', '/api/pos/sessions/{sessionId}/return', { params: { sessionId }, body: by }),
    // Gift cards paying part of a sale (docs/till.md, "Gift cards at the till"): checked, then drawn into the
    // merchant's wallet; the key makes a redeem repeated after a lost answer or a reload draw once.
    verifyGiftCard: (code: string) => call('GET', '/api/gift-cards/verify', { query: { code } }),
    redeemGiftCard: (body: Body<'POST', '/api/merchant/gift-cards/redeem'>, idempotencyKey: string) =>
      call('POST', '/api/merchant/gift-cards/redeem', { body, headers: { 'idempotency-key': `giftcard-${idempotencyKey}` } }),
    // A split sale cancelled: the card gets its redemption back (asking again answers the same return).
    returnGiftCard: (redemptionId: string) => call('POST', '/api/pos/gift-card-redemptions/{redemptionId}/return', { params: { redemptionId } }),
    // Whether the terminal has a manager PIN (no PIN sent), or whether this one is it (403 wrong_manager_pin, 429 manager_pin_locked).
    managerPinCheck: (managerPin?: string) => call('POST', '/api/pos/manager-pin/check', { body: managerPin === undefined ? {} : { managerPin } }),
    currentReport: () => call('GET', '/api/pos/reports/current'),
    // Mobile money at the till (docs/till.md): the key makes a Send repeated after a lost answer or a reload ask the phone once.
    createCollection: (body: Body<'POST', '/api/pos/collections'>, idempotencyKey: string) => call('POST', '/api/pos/collections', { body, headers: { 'idempotency-key': `momo-${idempotencyKey}` } }),
    collection: (collectionId: string) => call('GET', '/api/pos/collections/{id}', { params: { id: collectionId } }),
    cancelCollection: (collectionId: string) => call('POST', '/api/pos/collections/{id}/cancel', { params: { id: collectionId } }),
    // A split sale cancelled after its mobile money part was paid: the collection goes back to the phone (a payout whose id
    // derives from the collection's, so asking again answers the same return and never pays twice).
    returnCollection: (collectionId: string, by: Body<'POST', '/api/pos/collections/{id}/return'>) => call('POST', '/api/pos/collections/{id}/return', { params: { id: collectionId }, body: by }),
    closeDay: (managerPin: string, idempotencyKey: string) => call('POST', '/api/pos/reports', { body: { managerPin }, headers: { 'idempotency-key': `zreport-${idempotencyKey}` } }),
  };
}

export type Api = ReturnType<typeof createApi>;
