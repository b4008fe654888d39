import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { CHECKOUT_SESSION_TTL_SECONDS } from '@tapline/shared/limits';
import { toMajor, toMinor } from '@tapline/shared/money';
import { CHECKOUT_RAILS } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict, gone, notFound, unprocessable } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { transfer, transferIds, transferPersonToMerchant } from '../../ledger/ledger.ts';
import { railAvailableIn } from '../payments/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { type WalletRow, checkWalletPin, findWallet, payerIsMerchant } from '../wallets/index.ts';
import {
  type CheckoutPaymentMethod,
  type CheckoutRail,
  type CheckoutSessionRow,
  endCheckoutSession,
  expireCheckoutSession,
  findCheckoutSession,
  insertCheckoutSession,
  lockCheckoutSession,
} from './store.ts';

/** Who opens or reads a session: a merchant's secret key or one of its publishable keys, in one mode. */
export interface CheckoutCaller {
  merchantId: string;
  mode: Mode;
  publishableKeyId: string | null;
}

/** `{base_url}/pay/checkout/<id>`: the page a scanned QR code opens. */
export function checkoutUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl}/pay/checkout/${id}`;
}

export function checkoutRecord(row: CheckoutSessionRow, publicBaseUrl: string) {
  const url = checkoutUrl(publicBaseUrl, row.id);
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    reference: row.reference,
    description: row.description,
    country: row.country,
    rails: row.rails,
    url,
    qrPayload: url,
    merchant: { name: row.merchant_name, handle: displayHandle(row.merchant_handle) },
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    ...(row.status === 'paid' && row.ended_at ? { paidAt: row.ended_at.toISOString() } : {}),
    ...(row.payment_method ? { paymentMethod: row.payment_method } : {}),
    ...(row.payer_handle ? { payerHandle: displayHandle(row.payer_handle) } : {}),
    ...(row.transfer_id ? { transferId: row.transfer_id } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
  };
}

/** The headers a CDN or proxy in front of the server sets with the visitor's country. */
const COUNTRY_HEADERS = ['cf-ipcountry', 'x-country'] as const;

/**
 * The customer's country: what the drop-in detected in the browser (customerCountry), else the
 * country a CDN saw (CF-IPCountry, X-Country), else the merchant's. An unusable header (Cloudflare
 * sends XX and T1) is skipped, not refused: the customer did not choose it.
 */
export function detectCountry(customerCountry: string | undefined, headers: Record<string, string | string[] | undefined>, merchantCountry: string): string {
  if (customerCountry !== undefined) return supportedCountry(customerCountry, 'customerCountry');
  for (const name of COUNTRY_HEADERS) {
    const value = headers[name];
    const code = typeof value === 'string' ? value.trim().toUpperCase() : '';
    if (/^[A-Z]{2}$/.test(code)) {
      try {
        return supportedCountry(code);
      } catch {
        // Not a country we serve: fall through to the next source.
      }
    }
  }
  return merchantCountry;
}

/** The drop-in's rails offered in a country (spec, Rails table). */
export function offeredRails(country: string): CheckoutRail[] {
  return CHECKOUT_RAILS.filter((rail) => railAvailableIn(rail, country));
}

function sessionNotFound(id: string) {
  return notFound('checkout_session_not_found', `No checkout session ${id}`);
}

/** Why a session cannot be paid: 410 expired, 409 paid or failed. */
function notPayable(row: CheckoutSessionRow) {
  if (row.status === 'expired') return gone('checkout_session_expired', `Checkout session ${row.id} expired at ${row.expires_at.toISOString()}`);
  return conflict('checkout_session_not_open', `Checkout session ${row.id} is ${row.status}`);
}

/** The ledger transfer that pays a session: one per session, so it can never be paid twice. */
export function checkoutTransferId(sessionId: string): string {
  return transferIds.checkout(sessionId);
}

export const SANDBOX_COLLECTION_FAILURE = 'The provider declined the collection (sandbox reference test_failure)';

export interface PayCheckoutBody {
  method: CheckoutPaymentMethod;
  handle?: string | undefined;
  pin?: string | undefined;
  phone?: string | undefined;
  accountNumber?: string | undefined;
}

/** Who pays, as named in the body: the Idempotency-Key is scoped to them (and the session). */
export function payerOf(body: PayCheckoutBody): string {
  if (body.method === 'wallet') return `wallet:${(body.handle ?? '').trim().replace(/^@/, '').toLowerCase()}`;
  return `${body.method}:${body.method === 'mobile_money' ? (body.phone ?? '') : (body.accountNumber ?? '')}`;
}

function required<T>(value: T | undefined, field: string, method: string, code: ErrorCodeWith<400>): T {
  if (value === undefined) throw badRequest(code, `method ${method} needs ${field}`);
  return value;
}

export function checkoutService(context: AppContext) {
  const { db } = context;

  /** A session past its 30 minutes reads as expired (and is written so) wherever it is met. */
  async function current(queryable: Queryable, row: CheckoutSessionRow, now: Date): Promise<CheckoutSessionRow> {
    if (row.status !== 'open' || row.expires_at.getTime() > now.getTime()) return row;
    return (await expireCheckoutSession(queryable, row.id, now)) ?? row;
  }

  /** The payer's wallet, proven by its PIN (outside any transaction: the KDF is slow). */
  async function provenWallet(session: CheckoutSessionRow, body: PayCheckoutBody): Promise<WalletRow> {
    const handle = canonicalHandle(required(body.handle, 'handle', 'wallet', 'handle_required'));
    const pin = required(body.pin, 'pin', 'wallet', 'pin_required');
    const payer = await findWallet(db, handle, session.mode);
    if (!payer) throw notFound('wallet_not_found', `No ${session.mode} wallet ${displayHandle(handle)}`);
    if (payerIsMerchant(payer.id, session.merchant_wallet_id)) throw badRequest('payer_is_merchant', 'The merchant cannot pay its own checkout');
    await checkWalletPin(db, payer, pin, context.now());
    return payer;
  }

  /**
   * Locks the session, checks it is still open, runs `settle` (the ledger transfer, if any) and
   * ends the session with its event: state, money and event in one database transaction.
   */
  async function finish(
    id: string,
    settle: (tx: Queryable, session: CheckoutSessionRow) => Promise<Omit<Parameters<typeof endCheckoutSession>[2], 'now'>>,
  ): Promise<CheckoutSessionRow> {
    const now = context.now();
    const result = await db.transaction(async (tx): Promise<{ refused: CheckoutSessionRow } | { ended: CheckoutSessionRow }> => {
      const locked = await lockCheckoutSession(tx, id);
      if (!locked) throw sessionNotFound(id);
      const session = await current(tx, locked, now);
      if (session.status !== 'open') return { refused: session };
      const ended = await endCheckoutSession(tx, id, { ...(await settle(tx, session)), now });
      await enqueueEvent(tx, {
        merchantId: ended.merchant_id,
        mode: ended.mode,
        type: ended.status === 'paid' ? 'checkout.session.completed' : 'checkout.session.failed',
        data: eventData(ended),
        at: now,
      });
      return { ended };
    });
    // An expiry found under the lock is committed before the 410 is answered.
    if ('refused' in result) throw notPayable(result.refused);
    return result.ended;
  }

  return {
    async create(caller: CheckoutCaller, body: { amount: number; currency: string; reference?: string | undefined; description?: string | undefined; customerCountry?: string | undefined }, headers: Record<string, string | string[] | undefined>) {
      const currency = supportedCurrency(body.currency);
      const amount = toMinor(body.amount, currency);
      const merchant = await findMerchant(db, caller.merchantId);
      if (!merchant) throw notFound('merchant_not_found', 'Merchant not found');
      const country = detectCountry(body.customerCountry, headers, merchant.country);
      const createdAt = context.now();
      const row = await insertCheckoutSession(db, {
        id: newId('cs'),
        merchantId: caller.merchantId,
        mode: caller.mode,
        publishableKeyId: caller.publishableKeyId,
        amount,
        currency,
        reference: body.reference?.trim() || null,
        description: body.description?.trim() || null,
        country,
        rails: offeredRails(country),
        createdAt,
        expiresAt: new Date(createdAt.getTime() + CHECKOUT_SESSION_TTL_SECONDS * 1000),
      });
      if (!row) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);
      return row;
    },

    /** A session as its merchant (either key, same mode) sees it; anything else is a 404. */
    async get(caller: Pick<CheckoutCaller, 'merchantId' | 'mode'>, id: string) {
      const row = await findCheckoutSession(db, id);
      if (!row || row.merchant_id !== caller.merchantId || row.mode !== caller.mode) throw sessionNotFound(id);
      return current(db, row, context.now());
    },

    /** A session for its public page and its payers, by id alone. */
    async getPublic(id: string) {
      const row = await findCheckoutSession(db, id);
      if (!row) throw sessionNotFound(id);
      return current(db, row, context.now());
    },

    /** Proves a wallet payer again (wrong PIN 403, lock-out 429) before a stored answer is replayed to them. */
    async provePayer(id: string, body: PayCheckoutBody): Promise<void> {
      if (body.method !== 'wallet') return;
      const session = await findCheckoutSession(db, id);
      if (!session) throw sessionNotFound(id);
      await provenWallet(session, body);
    },

    /**
     * Pays a session. Wallet: one transfer payer -> merchant (422 insufficient_funds leaves the
     * session open for another try). Mobile money and bank transfer: in test mode the sandbox
     * collects at once (funding -> merchant), reference test_failure fails the session; in live
     * mode no collection provider exists, so 422 rail_unavailable (never pretend).
     */
    async pay(id: string, body: PayCheckoutBody): Promise<CheckoutSessionRow> {
      const found = await findCheckoutSession(db, id);
      if (!found) throw sessionNotFound(id);
      const session = await current(db, found, context.now());
      if (session.status !== 'open') throw notPayable(session);
      const transferId = checkoutTransferId(session.id);

      if (body.method === 'wallet') {
        const payer = await provenWallet(session, body);
        return finish(id, async (tx, locked) => {
          await transferPersonToMerchant(tx, {
            id: transferId,
            mode: locked.mode,
            kind: 'checkout',
            payerWalletId: payer.id,
            merchantWalletId: locked.merchant_wallet_id,
            currency: locked.currency,
            amount: locked.amount,
            metadata: { checkoutSessionId: locked.id },
          });
          return { status: 'paid', method: 'wallet', payerHandle: payer.handle, payerWalletId: payer.id, payerAccount: null, transferId, failureReason: null };
        });
      }

      const account = body.method === 'mobile_money' ? required(body.phone, 'phone', body.method, 'phone_required') : required(body.accountNumber, 'accountNumber', body.method, 'account_number_required');
      if (!session.rails.includes(body.method)) {
        throw unprocessable('rail_unavailable', `${body.method} is not offered in ${session.country}; offered: ${['wallet', ...session.rails].join(', ')}`);
      }
      if (session.mode === 'live') {
        throw unprocessable('rail_unavailable', `No ${body.method} collection provider is configured for live payments: pay from a Tapline wallet`);
      }
      return finish(id, async (tx, locked) => {
        const base = { method: body.method, payerHandle: null, payerWalletId: null, payerAccount: account };
        if (locked.reference === 'test_failure') return { ...base, status: 'failed', transferId: null, failureReason: SANDBOX_COLLECTION_FAILURE };
        await transfer(tx, {
          id: transferId,
          mode: locked.mode,
          kind: 'checkout_sandbox_collection',
          legs: [
            { account: systemAccount('funding', locked.currency), amount: -locked.amount },
            { account: walletAccount(locked.merchant_wallet_id, locked.currency), amount: locked.amount },
          ],
          metadata: { checkoutSessionId: locked.id, rail: body.method },
        });
        return { ...base, status: 'paid', transferId, failureReason: null };
      });
    },
  };
}

export type CheckoutService = ReturnType<typeof checkoutService>;

/** The body of checkout.session.completed and checkout.session.failed (plus failureReason). */
function eventData(row: CheckoutSessionRow): Record<string, unknown> {
  return {
    sessionId: row.id,
    merchantId: row.merchant_id,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    reference: row.reference,
    country: row.country,
    paymentMethod: row.payment_method,
    payerHandle: row.payer_handle ? displayHandle(row.payer_handle) : null,
    transferId: row.transfer_id,
    ...(row.status === 'paid' ? { completedAt: row.ended_at?.toISOString() ?? null } : { failedAt: row.ended_at?.toISOString() ?? null, failureReason: row.failure_reason }),
  };
}

