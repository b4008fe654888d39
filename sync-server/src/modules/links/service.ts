import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { Config } from '../../config.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict, gone, notFound } from '../../http/errors.ts';
import { canonicalHandle, displayHandle, supportedCurrency } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { transfer, transferIds, type TransferLeg } from '../../ledger/ledger.ts';
import { type PaymentRow, findLinkPayment, insertPayment, paymentEventData } from '../payments/index.ts';
import { checkWalletPin, findMerchantWallet, findWallet, findWalletById, payerIsMerchant } from '../wallets/index.ts';
import { type LinkRow, claimLinkPayment, findLink, insertLink } from './store.ts';

export type LinkStatus = 'active' | 'inactive' | 'expired' | 'paid';

export function linkStatus(row: LinkRow, now: Date): LinkStatus {
  if (!row.active) return 'inactive';
  if (row.single_use && row.payment_count > 0) return 'paid';
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function linkRecord(row: LinkRow, publicBaseUrl: string, now: Date) {
  return {
    id: row.id,
    url: `${publicBaseUrl}/pay/link/${row.id}`,
    mode: row.mode,
    amountType: row.amount === null ? ('variable' as const) : ('fixed' as const),
    amount: row.amount === null ? null : toMajor(row.amount, row.currency),
    minAmount: row.min_amount === null ? null : toMajor(row.min_amount, row.currency),
    maxAmount: row.max_amount === null ? null : toMajor(row.max_amount, row.currency),
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    singleUse: row.single_use,
    reusable: !row.single_use,
    expiresAt: row.expires_at?.toISOString() ?? null,
    active: row.active,
    status: linkStatus(row, now),
    paymentCount: row.payment_count,
    amountCollected: toMajor(row.amount_collected, row.currency),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    deactivatedAt: row.deactivated_at?.toISOString() ?? null,
  };
}

export interface CreateLinkBody {
  amount?: number | undefined;
  currency: string;
  description?: string | undefined;
  reference?: string | undefined;
  singleUse?: boolean | undefined;
  reusable?: boolean | undefined;
  expiresAt?: string | undefined;
  minAmount?: number | undefined;
  maxAmount?: number | undefined;
}

function parseExpiry(text: string, now: Date): Date {
  const trimmed = text.trim();
  // A bare date means the end of that day, UTC.
  const value = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? Date.parse(`${trimmed}T23:59:59.999Z`) : /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(value)) throw badRequest('expires_at_invalid', 'expiresAt must be an ISO 8601 date-time or date');
  if (value <= now.getTime()) throw badRequest('expires_at_invalid', 'expiresAt must be in the future');
  return new Date(value);
}

export async function createLink(db: Queryable, caller: { merchantId: string; mode: Mode }, body: CreateLinkBody, now: Date, id: string): Promise<LinkRow> {
  const currency = supportedCurrency(body.currency);
  if (body.singleUse !== undefined && body.reusable !== undefined && body.singleUse === body.reusable) {
    throw badRequest('single_use_conflict', 'singleUse and reusable contradict each other: send one of them');
  }
  const singleUse = body.singleUse ?? (body.reusable === undefined ? false : !body.reusable);
  const amount = body.amount === undefined ? null : toMinor(body.amount, currency);
  if (amount !== null && (body.minAmount !== undefined || body.maxAmount !== undefined)) {
    throw badRequest('amount_bounds_with_fixed_amount', 'minAmount and maxAmount apply to variable-amount links only');
  }
  const minAmount = body.minAmount === undefined ? null : toMinor(body.minAmount, currency);
  const maxAmount = body.maxAmount === undefined ? null : toMinor(body.maxAmount, currency);
  if (minAmount !== null && maxAmount !== null && minAmount > maxAmount) throw badRequest('amount_bounds_invalid', 'minAmount must not exceed maxAmount');
  const expiresAt = body.expiresAt === undefined ? null : parseExpiry(body.expiresAt, now);
  return insertLink(db, {
    id,
    merchant_id: caller.merchantId,
    mode: caller.mode,
    amount,
    min_amount: minAmount,
    max_amount: maxAmount,
    currency,
    description: body.description ?? null,
    reference: body.reference ?? null,
    single_use: singleUse,
    expires_at: expiresAt,
    created_at: now,
  });
}

/** Why a link cannot be paid now, as the API answers it: 410 inactive or expired, 409 a paid single-use link. */
export function assertPayable(row: LinkRow, now: Date): void {
  const status = linkStatus(row, now);
  if (status === 'inactive') throw gone('payment_link_inactive', 'This payment link has been deactivated');
  if (status === 'expired') throw gone('payment_link_expired', `This payment link expired at ${row.expires_at!.toISOString()}`);
  if (status === 'paid') throw conflict('payment_link_already_paid', 'This single-use payment link has already been paid');
}

export interface LinkPayDeps {
  db: Database;
  config: Config;
  now: () => Date;
}

/**
 * A wallet holder pays a link with handle and PIN. The PIN is checked first (outside any
 * transaction: the KDF is slow); then one transaction claims the link (a single-use link only
 * once, under its row lock), moves the money payer -> merchant (less the payment_link fee) and
 * records the payment with its payment.completed event.
 */
/** Proves a link's payer again (wrong PIN 403, lock-out 429) before a stored answer is replayed to them. */
export async function provePayer(db: Database, linkId: string, body: { handle: string; pin: string }, now: Date): Promise<void> {
  const link = await findLink(db, linkId);
  const payer = link ? await findWallet(db, canonicalHandle(body.handle), link.mode) : undefined;
  if (!link || !payer) throw notFound('wallet_not_found', `No wallet ${displayHandle(canonicalHandle(body.handle))}`);
  await checkWalletPin(db, payer, body.pin, now);
}

/**
 * Pays a link from a wallet (handle + PIN). `paymentId`, when given, is derived from the caller's
 * Idempotency-Key: a re-run of the same request after a crash finds the payment it made instead
 * of paying again (its replay is otherwise answered by the idempotency layer).
 */
export async function payLink(deps: LinkPayDeps, linkId: string, body: { handle: string; pin: string; amount?: number | undefined }, derivedPaymentId?: string) {
  const link = await findLink(deps.db, linkId);
  if (!link) throw notFound('payment_link_not_found', `No payment link ${linkId}`);
  assertPayable(link, deps.now());
  let amount: number;
  if (link.amount !== null) {
    amount = link.amount;
    if (body.amount !== undefined && toMinor(body.amount, link.currency) !== link.amount) {
      throw badRequest('amount_mismatch', `This link is for ${toMajor(link.amount, link.currency)} ${link.currency}`);
    }
  } else {
    if (body.amount === undefined) throw badRequest('amount_required', 'This link has no fixed amount: send amount');
    amount = toMinor(body.amount, link.currency);
    if ((link.min_amount !== null && amount < link.min_amount) || (link.max_amount !== null && amount > link.max_amount)) {
      throw badRequest('amount_out_of_range', `The amount must be between ${link.min_amount === null ? 'any' : toMajor(link.min_amount, link.currency)} and ${link.max_amount === null ? 'any' : toMajor(link.max_amount, link.currency)} ${link.currency}`);
    }
  }
  const fee = percentOf(amount, deps.config.feePercentByRail.payment_link ?? '0', 'up');
  if (amount - fee <= 0) throw badRequest('amount_too_small', 'The amount does not cover the fee');

  const handle = canonicalHandle(body.handle);
  const payer = await findWallet(deps.db, handle, link.mode);
  if (!payer) throw notFound('wallet_not_found', `No ${link.mode} wallet ${displayHandle(handle)}`);
  const merchantWallet = await findMerchantWallet(deps.db, link.merchant_id, link.mode);
  if (!merchantWallet) throw notFound('wallet_not_found', 'The merchant has no wallet in this mode');
  if (payerIsMerchant(payer.id, merchantWallet.id)) throw badRequest('payer_is_merchant', 'The merchant cannot pay its own link');
  await checkWalletPin(deps.db, payer, body.pin, deps.now());

  const now = deps.now();
  const paymentId = derivedPaymentId ?? newId('pay');
  const row = await deps.db.transaction(async (tx) => {
    if (derivedPaymentId) {
      const made = await findLinkPayment(tx, derivedPaymentId, link.id);
      if (made) return made;
    }
    const claimed = await claimLinkPayment(tx, link.id, amount, now);
    if (!claimed) {
      const current = await findLink(tx, link.id);
      assertPayable(current!, now);
      throw conflict('payment_link_already_paid', 'This payment link cannot be paid now');
    }
    const legs: TransferLeg[] = [
      { account: walletAccount(payer.id, link.currency), amount: -amount },
      { account: walletAccount(merchantWallet.id, link.currency), amount: amount - fee },
    ];
    if (fee > 0) legs.push({ account: systemAccount('fees', link.currency), amount: fee });
    await transfer(tx, { id: transferIds.step(paymentId, 'debit'), mode: link.mode, kind: 'payment_link', legs, metadata: { paymentId, paymentLinkId: link.id } });
    const inserted = (await insertPayment(tx, {
      id: paymentId,
      merchant_id: link.merchant_id,
      mode: link.mode,
      kind: 'link',
      status: 'completed',
      scenario: 'link',
      rail: 'payment_link',
      from_country: payer.country,
      to_country: merchantWallet.country,
      amount,
      currency: link.currency,
      fee,
      destination_amount: amount - fee,
      destination_currency: link.currency,
      fx_rate: '1',
      mid_rate: '1',
      quote_id: null,
      receiver: { type: 'handle', handle: merchantWallet.handle },
      receiver_name: null,
      sender_name: payer.display_name,
      note: link.description,
      reference: link.reference ?? link.id,
      source_wallet_id: payer.id,
      recipient_wallet_id: merchantWallet.id,
      payment_link_id: link.id,
      failure_reason: null,
      provider: null,
      provider_reference: `${paymentId}:debit`,
      estimated_arrival: now,
      timeline: [
        { status: 'pending', at: now.toISOString(), note: `Paid by ${displayHandle(payer.handle)} through payment link ${link.id}` },
        { status: 'completed', at: now.toISOString(), note: 'Settled at once between Tapline wallets' },
      ],
      next_step_at: null,
      created_at: now,
    })) as PaymentRow;
    await enqueueEvent(tx, {
      merchantId: link.merchant_id,
      mode: link.mode,
      type: 'payment.completed',
      data: { ...paymentEventData(inserted), paymentLinkId: link.id, payerHandle: displayHandle(payer.handle) },
      at: now,
    });
    return inserted;
  });
  const merchant = await findWalletById(deps.db, merchantWallet.id);
  return {
    paymentId: row.id,
    transactionId: row.id,
    status: 'completed' as const,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    paymentLinkId: link.id,
    payerHandle: displayHandle(payer.handle),
    merchantHandle: displayHandle(merchant?.handle ?? merchantWallet.handle),
    description: link.description,
    completedAt: row.created_at.toISOString(),
  };
}
