import { POS_SESSION_TTL_SECONDS } from '@tapline/shared/limits';
import { randomUUID } from 'node:crypto';
import type { TypedApp } from '../../http/typed-app.ts';
import { toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { type Database, type Queryable, relaxedCommits } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { badRequest, conflict, forbidden, gone, notFound } from '../../http/errors.ts';
import { displayHandle, supportedCurrency } from '../../http/validate.ts';
import { validateWebhookUrl } from '../../http/webhook-url.ts';
import { posTap } from '../../ledger/pos-tap.ts';
import { transferIds } from '../../ledger/ledger.ts';
import { findWearable, normalizeTagId, tagDisabled, tagNotFound } from '../wearables/index.ts';
import { checkWalletPin, findWalletById } from '../wallets/index.ts';
import { checkedCashierId } from '../till-staff/index.ts';
import { type SaleItemInput, cartFromItems, checkCartAmount, checkStock, moveSaleStock, saleLineRecords, storedLines, unitsByProduct } from '../products/index.ts';
import type { ProductDoc } from '@tapline/shared/sync-protocol';
import {
  type PosSessionRow,
  type SessionAt,
  type SessionScope,
  expireDueSessions,
  expireMerchantSessions,
  expireSession,
  findSession,
  insertSession,
  listSessions,
  lockSession,
  markCancelled,
} from './store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The merchant side of a session: a merchant key or one of its terminals. */
export interface PosMerchant {
  merchantId: string;
  handle: string;
  mode: Mode;
  terminalId: string | null;
}

export function sessionNotFound(id: string) {
  return notFound('session_not_found', `No POS session ${id}`);
}

function sessionExpired(id: string) {
  return gone('session_expired', `POS session ${id} has expired: create a new one`);
}

function sessionNotPending(row: PosSessionRow) {
  return conflict('session_not_pending', `POS session ${row.id} is ${row.status}, not pending`);
}

function pinRequired(tagId: string) {
  return forbidden(
    'pin_required',
    `This tap is above the no-PIN limits of tag ${tagId} (per tap, per day, or in another currency than its wallet's): ask the holder for their wallet PIN and repeat the tap with pin. The session stays pending`,
  );
}

/** The holder has not allowed this merchant to charge the tag without her PIN (modules/wearables/README.md). */
function pinRequiredAtMerchant(tagId: string) {
  return forbidden(
    'pin_required',
    `Tag ${tagId} has not paid this merchant with its holder's PIN before: ask the holder for their wallet PIN and repeat the tap with pin (after that, taps here need no PIN within the tag's limits). The session stays pending`,
  );
}

/** `{base_url}/tap/<sessionId>`: the page where a customer without NFC pays this session. */
export function sessionTapUrl(publicBaseUrl: string, sessionId: string): string {
  return `${publicBaseUrl}/tap/${sessionId}`;
}

/** A session's lines as the API answers them (docs/catalogue.md), or nothing for a session without items. */
function sessionLines(row: PosSessionRow) {
  const lines = storedLines(row.items);
  return lines ? saleLineRecords(lines, Number(row.cart_discount ?? 0), row.currency) : {};
}

/** A session as the API answers it; `forPayer` leaves out what only its merchant may see (callbackUrl). */
export function sessionRecord(row: PosSessionRow, publicBaseUrl: string, options: { forPayer?: boolean } = {}) {
  const tapUrl = sessionTapUrl(publicBaseUrl, row.id);
  const ended = row.ended_at?.toISOString();
  return {
    sessionId: row.id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    description: row.description,
    ...(row.callback_url && !options.forPayer ? { callbackUrl: row.callback_url } : {}),
    tapUrl,
    qrPayload: tapUrl,
    ttlSeconds: POS_SESSION_TTL_SECONDS,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    merchantId: row.merchant_id,
    mode: row.mode,
    ...(row.terminal_id && !options.forPayer ? { terminalId: row.terminal_id } : {}),
    ...(row.payer_handle ? { payerHandle: displayHandle(row.payer_handle) } : {}),
    ...(row.status === 'completed' && row.wallet_ref ? { walletRef: row.wallet_ref } : {}),
    ...(row.tag_id ? { tagId: row.tag_id } : {}),
    ...(ended && (row.status === 'completed' || row.status === 'failed') ? { completedAt: ended } : {}),
    ...(ended ? { endedAt: ended } : {}),
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
    ...sessionLines(row),
    ...(row.tender_of && !options.forPayer ? { tenderOf: row.tender_of } : {}),
    ...(row.cashier_id && !options.forPayer ? { cashierId: row.cashier_id } : {}),
  };
}

/**
 * What a sale's lines add to its pos.session.completed / pos.session.failed event (items,
 * cartDiscount, totals, as the API answers them), as the members of a JSON object: pos_tap
 * writes the event and appends them to its body.
 */
function saleEventMembers(row: PosSessionRow): string {
  return JSON.stringify(sessionLines(row)).slice(1, -1);
}

/** The ledger transfer of a session: one per session, so a session can never be paid twice. */
export function sessionTransferId(sessionId: string): string {
  return transferIds.posSession(sessionId);
}

type Gate = { open: true } | { open: false; expired: PosSessionRow };

/**
 * Whether a locked session may still move: pending and within its 90 seconds. A pending session
 * past its time is expired here and now (committed with the caller's transaction), so it can
 * never be cancelled (or paid) even if the sweeper has not reached it.
 */
async function gate(tx: Queryable, row: SessionAt, now: Date): Promise<Gate> {
  if (row.overdue) {
    const expired = await expireSession(tx, row.id, now);
    return { open: false, expired: expired ?? row };
  }
  if (row.status === 'expired') throw sessionExpired(row.id);
  if (row.status !== 'pending') throw sessionNotPending(row);
  return { open: true };
}

export interface PosService {
  /** `id`: derived from an Idempotency-Key (derivedUuid); a retry after a crash answers the session its first run created. */
  create(
    merchant: PosMerchant,
    fields: {
      amount: number;
      currency: string;
      description?: string | undefined;
      callbackUrl?: string | undefined;
      items?: SaleItemInput[] | undefined;
      discount?: number | undefined;
      /** The till sale this session pays part of (a split tender): no items with it. */
      tenderOf?: string | undefined;
      /** The till staff member who charged it (recorded). */
      cashierId?: string | undefined;
    },
    id?: string,
  ): Promise<PosSessionRow>;
  get(scope: SessionScope, id: string): Promise<PosSessionRow>;
  /** A page of the merchant's sessions in its mode, newest first; overdue ones are expired first, so none shows as pending past its time. */
  list(
    merchant: Pick<PosMerchant, 'merchantId' | 'mode'>,
    filter: { status?: string | undefined; terminalId?: string | undefined },
    limit: number,
    offset: number,
  ): Promise<{ rows: PosSessionRow[]; total: number }>;
  /** `pin`: the tag holder's wallet PIN, for a tap above the tag's no-PIN limits. */
  tap(merchant: PosMerchant, id: string, rawTagId: string, pin?: string): Promise<PosSessionRow>;
  payWithWallet(wallet: { walletId: string; handle: string; mode: Mode }, id: string): Promise<PosSessionRow>;
  cancel(merchant: PosMerchant, id: string): Promise<PosSessionRow>;
}

export function posService(context: AppContext): PosService {
  const { db } = context;
  const relaxed = relaxedCommits(db);

  /**
   * tapped -> processing -> completed | failed (spec, POS session status), in pos_tap: one
   * statement that is its own transaction, so the payer's debit and the merchant's credit (ONE
   * ledger transfer, the last statement before the commit), the session's new state and its
   * pos.session.completed / pos.session.failed event (to the merchant's webhook URL and the
   * session's callbackUrl) commit together, in a single round trip.
   */
  async function settle(
    scope: SessionScope,
    id: string,
    payer: { tagId: string; pinWalletId: string | null } | { walletId: string; handle: string },
  ): Promise<PosSessionRow> {
    if (!UUID.test(id)) throw sessionNotFound(id);
    const now = context.now();
    const sessionId = id.toLowerCase();
    const byTag = 'tagId' in payer;
    // A tag id that cannot exist still goes through the session checks first: 404/409/410 for the
    // session take precedence, then it is answered as an unknown tag.
    const tagId = byTag ? (normalizeTagId(payer.tagId) ?? payer.tagId.slice(0, 64)) : null;
    const fields = {
      sessionId,
      mode: scope.mode,
      merchantId: scope.merchantId,
      tagId,
      payerWalletId: byTag ? null : payer.walletId,
      payerHandle: byTag ? null : payer.handle,
      now,
      transferId: sessionTransferId(sessionId),
      pinWalletId: byTag ? payer.pinWalletId : null,
    };
    // A session without lines settles in one call. pos_tap answers `needs_lines` for a session
    // with lines (before changing anything), which then settles in a transaction: the catalogue
    // products it sells are locked and their stock checked first, pos_tap writes the event with
    // the lines, and the stock goes down with the payment (docs/catalogue.md, Stock).
    let result = await posTap<PosSessionRow>(db, fields);
    if (result.outcome === 'needs_lines' && result.row) {
      const lines = storedLines(result.row.items);
      const sold = lines?.some((line) => line.productId !== null) ? lines : null;
      let restocked: ProductDoc[] = [];
      const productScope = { merchantId: result.row.merchant_id, mode: result.row.mode };
      const saleMembers = saleEventMembers(result.row);
      result = await db.transaction(async (tx) => {
        restocked = [];
        if (sold) await checkStock(tx, productScope, sold, { lock: true });
        const settled = await posTap<PosSessionRow>(tx, { ...fields, saleMembers });
        if (sold && settled.outcome === 'completed') restocked = await moveSaleStock(tx, productScope, unitsByProduct(sold), -1, now);
        return settled;
      });
      if (restocked.length > 0) context.sync.productsChanged(productScope.merchantId, productScope.mode, restocked);
    }
    const { outcome, row } = result;
    switch (outcome) {
      case 'completed':
      case 'failed':
        return row!;
      case 'expired':
        throw sessionExpired(id);
      case 'not_pending':
        // The same tag again on the session it settled: a retry whose answer was lost (a crash,
        // a dropped connection) learns what happened. Any other tag is a second payer: 409.
        if (byTag && row!.tag_id === tagId && (row!.status === 'completed' || row!.status === 'failed')) return row!;
        throw sessionNotPending(row!);
      case 'session_not_found':
        throw sessionNotFound(id);
      case 'tag_not_found':
        throw tagNotFound(tagId ?? '');
      case 'tag_disabled':
        throw tagDisabled(tagId ?? '');
      case 'pin_required':
        throw pinRequired(tagId ?? '');
      case 'pin_required_merchant':
        throw pinRequiredAtMerchant(tagId ?? '');
      case 'needs_lines':
        throw new Error('pos_tap asked for the lines it was given');
    }
  }

  /** A session as it stands now: a pending one past its 90 seconds is expired on the way. */
  async function current(scope: SessionScope, sessionId: string): Promise<PosSessionRow | undefined> {
    const now = context.now();
    const row = await findSession(db, sessionId, scope, now);
    if (row?.overdue) {
      return (await expireSession(db, row.id, now)) ?? (await findSession(db, row.id, scope, now)) ?? row;
    }
    return row;
  }

  /**
   * Checks the tag holder's PIN for a tap (wallet lock-out rules: 403 wrong_pin, 429 after five)
   * and answers their wallet, which pos_tap then lets pay above the no-PIN limits. A session
   * that cannot be paid, or a tag that cannot pay, is left to pos_tap to answer (404, 409, 410
   * first), so no PIN attempt is spent on it.
   */
  async function holderPinWallet(scope: SessionScope, id: string, rawTagId: string, pin: string): Promise<string | null> {
    if (!UUID.test(id)) return null;
    const session = await findSession(db, id.toLowerCase(), scope, context.now());
    if (!session || session.status !== 'pending' || session.overdue) return null;
    const tagId = normalizeTagId(rawTagId);
    const tag = tagId ? await findWearable(db, tagId) : undefined;
    if (!tag || tag.mode !== scope.mode || tag.status !== 'active') return null;
    const wallet = await findWalletById(db, tag.wallet_id);
    if (!wallet) return null;
    await checkWalletPin(db, wallet, pin, context.now());
    return wallet.id;
  }

  return {
    async create(merchant, fields, derivedId) {
      const currency = supportedCurrency(fields.currency);
      const amount = toMinor(fields.amount, currency);
      const callbackUrl = fields.callbackUrl === undefined ? null : validateWebhookUrl(fields.callbackUrl, merchant.mode, 'callbackUrl');
      const cart = fields.items === undefined ? null : cartFromItems(fields.items, fields.discount, currency);
      if (cart === null && fields.discount !== undefined) throw badRequest('items_invalid', 'A cart discount needs items');
      // A split tender pays part of a till sale whose own lines move the stock: it carries none.
      if (fields.tenderOf !== undefined && cart !== null) throw badRequest('items_invalid', 'A session paying part of a till sale (tenderOf) carries no items: the till sale has the lines');
      if (fields.tenderOf !== undefined && merchant.terminalId === null) throw badRequest('tender_needs_terminal', 'tenderOf is for a terminal paying part of a till sale: open it with the terminal\'s token');
      if (cart) {
        checkCartAmount(cart, amount, currency);
        // Refused before anything is charged; checked again, under lock, when the tap settles.
        await checkStock(db, { merchantId: merchant.merchantId, mode: merchant.mode }, cart.lines, { lock: false });
      }
      // Who charges it: one of the merchant's till staff or dashboard users, else 422 cashier_unknown.
      const cashierId = await checkedCashierId(db, merchant.merchantId, fields.cashierId);
      const createdAt = context.now();
      const id = derivedId ?? randomUUID();
      const row = await insertSession(relaxed, {
        id,
        merchantId: merchant.merchantId,
        merchantHandle: merchant.handle,
        mode: merchant.mode,
        terminalId: merchant.terminalId,
        amount,
        currency,
        description: fields.description?.trim() ?? '',
        callbackUrl,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + POS_SESSION_TTL_SECONDS * 1000),
        items: cart ? JSON.stringify(cart.lines) : null,
        cartDiscount: cart ? cart.discount : null,
        tenderOf: fields.tenderOf?.toLowerCase() ?? null,
        cashierId,
      });
      if (row) return row;
      const existing = derivedId ? await current({ mode: merchant.mode, merchantId: merchant.merchantId }, id) : undefined;
      if (existing) return existing;
      throw new Error(`merchant ${merchant.merchantId} has no ${merchant.mode} wallet`);
    },

    async list(merchant, filter, limit, offset) {
      await expireMerchantSessions(db, merchant.merchantId, merchant.mode, context.now());
      return listSessions(db, merchant.merchantId, merchant.mode, filter, limit, offset);
    },

    async get(scope, id) {
      if (!UUID.test(id)) throw sessionNotFound(id);
      const row = await current(scope, id.toLowerCase());
      if (!row) throw sessionNotFound(id);
      return row;
    },

    async tap(merchant, id, rawTagId, pin) {
      const scope = { mode: merchant.mode, merchantId: merchant.merchantId };
      const pinWalletId = pin === undefined ? null : await holderPinWallet(scope, id, rawTagId, pin);
      return settle(scope, id, { tagId: rawTagId, pinWalletId });
    },

    payWithWallet(wallet, id) {
      return settle({ mode: wallet.mode, merchantId: null }, id, { walletId: wallet.walletId, handle: wallet.handle });
    },

    async cancel(merchant, id) {
      if (!UUID.test(id)) throw sessionNotFound(id);
      const now = context.now();
      const outcome = await db.transaction(async (tx): Promise<Gate & { row?: PosSessionRow }> => {
        const row = await lockSession(tx, id.toLowerCase(), { mode: merchant.mode, merchantId: merchant.merchantId }, now);
        if (!row) throw sessionNotFound(id);
        const checked = await gate(tx, row, now);
        if (!checked.open) return checked;
        return { open: true, row: await markCancelled(tx, row.id, now) };
      });
      if (!outcome.open) throw sessionExpired(id);
      return outcome.row!;
    },
  };
}

/** Sessions expired per sweeper statement: short transactions, even after a long outage. */
const SWEEP_BATCH = 500;

/** Expires every pending session whose 90 seconds have passed by `now`; returns how many. */
export async function sweepExpiredPosSessions(db: Database, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await expireDueSessions(db, now, SWEEP_BATCH);
    total += expired;
    if (expired < SWEEP_BATCH) return total;
  }
}

/** Runs the sweeper every `intervalMs` on the app's clock until the app closes; 0 disables it. */
export function startPosSessionSweeper(app: TypedApp, context: AppContext, intervalMs: number): void {
  if (intervalMs <= 0) return;
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(() => {
    inFlight ??= sweepExpiredPosSessions(context.db, context.now())
      .then(() => undefined)
      .catch((error: unknown) => app.log.error({ err: error }, 'POS session sweeper failed'))
      .finally(() => {
        inFlight = undefined;
      });
  }, intervalMs);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    // The database closes after the app: let a sweep that already started finish first.
    await inFlight;
  });
}
