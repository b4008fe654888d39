import type { DeclineCode } from '@tapline/shared/decline-codes';
import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { isSupportedCurrency } from '@tapline/shared/countries';
import { toMajor } from '@tapline/shared/money';
import { type VoucherProblem, VOUCHER_PROBLEM_MESSAGES, checkVoucher } from '@tapline/shared/offline-qr';
import { type OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { storableText, textProblem, textProblemMessage } from '@tapline/shared/text';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, sha256Hex } from '../../auth/secrets.ts';
import { type NewEvent, enqueueEvent } from '../../events/outbox.ts';
import { type ApiError, badRequest, conflict, gone, unprocessable } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { LedgerError, transfer, transferIds, type TransferLeg } from '../../ledger/ledger.ts';
import { payerIsMerchant } from '../wallets/index.ts';
import { normalizeTagId } from '../wearables/index.ts';
import { publicKeyMap } from './keys.ts';
import type { Cart, CartError } from '@tapline/shared/cart';
import { AMOUNT_MAJOR_MAX, DESCRIPTION_LENGTH_MAX, OFFLINE_QR_VOUCHER_LENGTH_MAX } from '@tapline/shared/limits';
import { cartOfDocument, saleLineRecords, storedLines } from '../products/index.ts';
import { type OfflinePaymentRow, endVoucher, findOfflinePayment, insertOfflinePayment, lockVoucherByHash } from './store.ts';
import { nextTerminalSeq } from '../terminals/index.ts';
import { CAPTURED_AT_PROBLEM, parseCapturedAt, schemaProblems } from '../push/index.ts';

/** Where an offline payment settles: the merchant's wallet in the terminal's mode. */
export interface SettlementScope {
  merchantId: string;
  merchantWalletId: string;
  mode: Mode;
  /** null: a voucher redeemed online with a merchant key. */
  terminalId: string | null;
}

/** A document as the terminal sent it, checked; or why it cannot be settled. */
export interface Candidate {
  id: string;
  kind: 'tap' | 'qr';
  tagId: string | null;
  voucher: string | null;
  amount: number;
  currency: string;
  description: string;
  capturedAt: Date;
  invalid: string | null;
  /** The lines sold, when sent and they add up to `amount` (docs/catalogue.md). */
  cart: Cart | null;
  /** Why the lines sent cannot be kept: the document is declined with this CartError's code. */
  cartProblem: CartError | null;
  /** Who took it at the till; null when none was sent or it was not a usable id (the payment is never declined for it). */
  cashierId: string | null;
  /** A tap for part of a split sale: the till sale's id (lower case); null otherwise or when not a UUID (never a reason to decline). */
  tenderOf: string | null;
}

export type Verdict =
  | { status: 'accepted'; payerWalletId: string; payerHandle: string; transferId: string; voucherId: string | null }
  | { status: 'declined'; code: DeclineCode; reason: string; payerWalletId?: string; payerHandle?: string; voucherId?: string | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const offlineTransferId = transferIds.offlinePayment;

/** Whether a pushed document can be stored at all: without a UUID id there is no idempotency key. */
export function documentId(doc: unknown): string | undefined {
  const id = typeof doc === 'object' && doc !== null ? (doc as { id?: unknown }).id : undefined;
  return typeof id === 'string' && UUID.test(id.toLowerCase()) ? id.toLowerCase() : undefined;
}

/**
 * A pushed offline payment, read and checked: `invalid` says in sentences why it cannot be settled.
 * `scopeCurrency` is recorded with the decline when the document's currency is not one the server knows.
 */
export function candidateOf(doc: Record<string, unknown>, id: string, scopeCurrency: string): Candidate {
  const problems: string[] = [];
  const kind = doc.kind === 'tap' || doc.kind === 'qr' ? doc.kind : null;
  if (!kind) problems.push('kind must be tap or qr');
  const amount = typeof doc.amountMinor === 'number' && Number.isSafeInteger(doc.amountMinor) && doc.amountMinor > 0 ? doc.amountMinor : 0;
  if (amount === 0) problems.push('amountMinor must be a positive integer');
  const sent = typeof doc.currency === 'string' ? doc.currency.toUpperCase() : null;
  const currency = sent !== null && /^[A-Z]{3}$/.test(sent) && isSupportedCurrency(sent) ? sent : scopeCurrency;
  if (sent === null || currency !== sent) problems.push('currency must be a supported ISO 4217 code (an African currency, USD, GBP or EUR)');
  else if (amount > 0 && toMajor(amount, currency) > AMOUNT_MAJOR_MAX) problems.push(`amountMinor must be at most ${AMOUNT_MAJOR_MAX} ${currency} in major units`);
  const capturedAt = parseCapturedAt(doc.capturedAt);
  if (capturedAt === null) problems.push(CAPTURED_AT_PROBLEM);
  const tagId = kind === 'tap' ? (typeof doc.tagId === 'string' ? (normalizeTagId(doc.tagId) ?? null) : null) : null;
  if (kind === 'tap' && tagId === null) problems.push('tagId must be TG followed by 8 hexadecimal characters');
  const voucherText = kind === 'qr' && typeof doc.voucher === 'string' ? doc.voucher.trim() : null;
  const voucherProblem = voucherText === null ? null : textProblem(voucherText, OFFLINE_QR_VOUCHER_LENGTH_MAX);
  if (kind === 'qr' && (voucherText === null || voucherProblem !== null)) problems.push('voucher must be the scanned QR text');
  const voucher = voucherProblem === null ? voucherText : null;
  let description = '';
  if (doc.description !== undefined && typeof doc.description !== 'string') problems.push('description must be a string');
  else if (typeof doc.description === 'string') {
    const problem = textProblem(doc.description, DESCRIPTION_LENGTH_MAX);
    if (problem) problems.push(textProblemMessage('description', problem, DESCRIPTION_LENGTH_MAX));
    // A declined document is still recorded: what cannot be stored is replaced.
    description = problem ? storableText(doc.description, DESCRIPTION_LENGTH_MAX) : doc.description;
  }
  const cart = cartOfDocument(doc.items, doc.discountMinor, amount);
  const sorted = cart.cartProblem ? ['items', 'discountMinor'] : [];
  // The customer paid whoever the cashier was: an unusable cashier id is dropped, never a reason to decline.
  const cashierId = typeof doc.cashierId === 'string' && doc.cashierId.trim() !== '' && textProblem(doc.cashierId, 64) === null ? doc.cashierId : null;
  const tenderOf = typeof doc.tenderOf === 'string' && UUID.test(doc.tenderOf.toLowerCase()) ? doc.tenderOf.toLowerCase() : null;
  problems.push(...schemaProblems('offline_payments', doc, problems, [...sorted, 'cashierId', 'tenderOf']));
  return {
    id,
    kind: kind ?? 'tap',
    tagId,
    voucher,
    amount,
    currency,
    description,
    capturedAt: capturedAt ?? new Date(0),
    invalid: problems.length > 0 ? problems.join('; ') : null,
    ...cart,
    cashierId,
    tenderOf,
  };
}

/** The master state of a settled payment, as the terminal's replica holds it. */
export function paymentDocument(row: OfflinePaymentRow): OfflinePaymentDoc {
  return {
    id: row.id,
    terminalId: row.terminal_id ?? '',
    kind: row.kind,
    ...(row.tag_id ? { tagId: row.tag_id } : {}),
    ...(row.voucher_id ? { voucherId: row.voucher_id } : {}),
    amountMinor: row.amount,
    currency: row.currency,
    description: row.description,
    capturedAt: row.captured_at.toISOString(),
    status: row.status,
    ...(row.payer_handle ? { payerHandle: displayHandle(row.payer_handle) } : {}),
    ...(row.transfer_id ? { walletRef: row.transfer_id } : {}),
    ...(row.decline_code ? { declineCode: row.decline_code, declineReason: row.decline_reason ?? '' } : {}),
    settledAt: row.settled_at.toISOString(),
    serverSeq: row.server_seq,
    ...(row.cashier_id ? { cashierId: row.cashier_id } : {}),
    ...(row.tender_of ? { tenderOf: row.tender_of } : {}),
    ...documentLines(row),
  };
}

/** A payment's lines as the replica holds them (minor units), when it has some. */
function documentLines(row: OfflinePaymentRow): Pick<OfflinePaymentDoc, 'items' | 'discountMinor'> {
  const items = storedLines(row.items);
  return items ? { items, discountMinor: Number(row.cart_discount ?? 0) } : {};
}

/** A payment's lines as the API and webhooks answer them (major units), when it has some. */
function recordLines(row: OfflinePaymentRow) {
  const items = storedLines(row.items);
  return items ? saleLineRecords(items, Number(row.cart_discount ?? 0), row.currency) : {};
}

/** The merchant-facing record (API and webhooks): amounts in major units. */
export function paymentRecord(row: OfflinePaymentRow) {
  return {
    id: row.id,
    terminalId: row.terminal_id,
    kind: row.kind,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    description: row.description,
    tagId: row.tag_id,
    voucherId: row.voucher_id,
    payerHandle: row.payer_handle ? displayHandle(row.payer_handle) : null,
    walletRef: row.transfer_id,
    declineCode: row.decline_code,
    declineReason: row.decline_reason,
    capturedAt: row.captured_at.toISOString(),
    receivedAt: row.received_at.toISOString(),
    settledAt: row.settled_at.toISOString(),
    cashierId: row.cashier_id ?? null,
    tenderOf: row.tender_of ?? null,
    ...recordLines(row),
  };
}

const VOUCHER_STATE_DECLINES: Record<string, { code: DeclineCode; reason: string }> = {
  used: { code: 'voucher_already_used', reason: 'The QR code has already paid (first payment wins)' },
  revoked: { code: 'voucher_revoked', reason: 'The customer revoked this QR code before the payment reached the server' },
  expired: { code: 'voucher_expired', reason: 'The QR code expired and its reserved money went back to the customer' },
};

export function declined(code: DeclineCode, reason: string, extra: Partial<Extract<Verdict, { status: 'declined' }>> = {}): Verdict {
  return { status: 'declined', code, reason, ...extra };
}

/** The decline of a payer whose wallet could not pay when the payment reached the server. */
export function insufficientFunds(candidate: Pick<Candidate, 'amount' | 'currency'>, payer: { walletId: string; handle: string }, voucherId: string | null = null): Verdict {
  return declined('insufficient_funds', `${displayHandle(payer.handle)} did not have ${toMajor(candidate.amount, candidate.currency)} ${candidate.currency} when the payment reached the server`, {
    payerWalletId: payer.walletId,
    payerHandle: payer.handle,
    voucherId,
  });
}

/** The row that records a settled payment (accepted or declined). */
export function paymentRow(scope: SettlementScope, candidate: Candidate, verdict: Verdict, now: Date, seq: number): OfflinePaymentRow & { voucher_hash: string | null } {
  return {
    id: candidate.id,
    terminal_id: scope.terminalId,
    merchant_id: scope.merchantId,
    mode: scope.mode,
    kind: candidate.kind,
    tag_id: candidate.tagId,
    voucher_id: verdict.voucherId ?? null,
    voucher_hash: candidate.voucher === null ? null : sha256Hex(candidate.voucher),
    amount: candidate.amount,
    currency: candidate.currency,
    description: candidate.description,
    captured_at: candidate.capturedAt,
    received_at: now,
    status: verdict.status,
    payer_wallet_id: verdict.payerWalletId ?? null,
    payer_handle: verdict.payerHandle ?? null,
    transfer_id: verdict.status === 'accepted' ? verdict.transferId : null,
    decline_code: verdict.status === 'declined' ? verdict.code : null,
    decline_reason: verdict.status === 'declined' ? verdict.reason : null,
    settled_at: now,
    server_seq: seq,
    items: candidate.cart?.lines ?? null,
    cart_discount: candidate.cart ? candidate.cart.discount : null,
    cashier_id: candidate.cashierId,
    tender_of: candidate.tenderOf,
  };
}

/** The merchant's event for a settled payment (offline.payment.accepted / .declined). */
export function paymentEvent(row: OfflinePaymentRow, now: Date): NewEvent {
  const record = paymentRecord(row);
  return {
    merchantId: row.merchant_id,
    mode: row.mode,
    type: row.status === 'accepted' ? 'offline.payment.accepted' : 'offline.payment.declined',
    data: { paymentId: record.id, terminalId: record.terminalId, kind: record.kind, amount: record.amount, currency: record.currency, payerHandle: record.payerHandle, walletRef: record.walletRef, declineCode: record.declineCode, declineReason: record.declineReason, capturedAt: record.capturedAt, ...recordLines(row) },
    at: now,
  };
}

/**
 * How offline QR vouchers settle: the verdict and the one transfer of a voucher payment, and the
 * online redeem (`POST /api/offline/qr/redeem`), which settles one voucher payment at once in its
 * own transaction. Terminals' pushes settle through push.ts, which uses voucherVerdict.
 */
export function offlineSettlement(context: AppContext) {
  const { db } = context;

  /** A voucher payment's verdict and, when accepted, its transfer and the voucher's end, in `tx`. */
  async function voucherVerdict(tx: Queryable, scope: SettlementScope, candidate: Candidate, keys: Map<string, string>): Promise<Verdict> {
    const check = await checkVoucher(candidate.voucher!, { keys, mode: scope.mode, currency: candidate.currency, amountMinor: candidate.amount, at: candidate.capturedAt });
    if (!check.ok) return declined(check.code, VOUCHER_PROBLEM_MESSAGES[check.code], { voucherId: check.voucher?.claims.id ?? null });
    const voucher = await lockVoucherByHash(tx, sha256Hex(candidate.voucher!));
    if (!voucher) return declined('voucher_unknown', 'The QR code is signed but this server has no such voucher', { voucherId: check.voucher.claims.id });
    const state = VOUCHER_STATE_DECLINES[voucher.status];
    if (state) return declined(state.code, state.reason, { voucherId: voucher.id, payerWalletId: voucher.wallet_id, payerHandle: voucher.handle });
    if (payerIsMerchant(voucher.wallet_id, scope.merchantWalletId)) return declined('payer_is_merchant', 'The voucher belongs to the merchant itself', { voucherId: voucher.id });
    const change = voucher.amount - candidate.amount;
    const legs: TransferLeg[] = [{ account: systemAccount('offline_qr_reserve', voucher.currency), amount: -voucher.amount }];
    // A voucher pays once: what the payment did not take goes back to the holder in the same transfer.
    if (change > 0) legs.push({ account: walletAccount(voucher.wallet_id, voucher.currency), amount: change });
    const transferId = offlineTransferId(candidate.id);
    try {
      await transfer(tx, {
        id: transferId,
        mode: scope.mode,
        kind: 'offline_qr',
        legs: [...legs, { account: walletAccount(scope.merchantWalletId, candidate.currency), amount: candidate.amount }],
        metadata: { offlinePaymentId: candidate.id, terminalId: scope.terminalId },
      });
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'insufficient_funds') return insufficientFunds(candidate, { walletId: voucher.wallet_id, handle: voucher.handle }, voucher.id);
      throw error;
    }
    await endVoucher(tx, voucher.id, 'used', context.now(), { paymentId: candidate.id, amount: candidate.amount });
    return { status: 'accepted', payerWalletId: voucher.wallet_id, payerHandle: voucher.handle, transferId, voucherId: voucher.id };
  }

  /**
   * Settles one voucher payment online, in one transaction: a decline is an error and stores
   * nothing; an accepted payment is recorded (under the terminal's next change number when a
   * terminal redeemed it) with its event. A replayed id answers the recorded payment.
   */
  async function redeem(scope: SettlementScope, doc: Record<string, unknown>, scopeCurrency: string): Promise<OfflinePaymentRow> {
    const id = documentId(doc);
    if (!id) throw badRequest('invalid_document', 'An offline payment needs a UUID id');
    const candidate = candidateOf(doc, id, scopeCurrency);
    if (candidate.invalid !== null) throw badRequest('invalid_document', candidate.invalid);
    if (candidate.kind !== 'qr') throw badRequest('invalid_document', 'Only voucher payments are redeemed online');
    // Keys are read outside the transaction: verifying a signature needs no lock.
    const keys = await publicKeyMap(db);
    return db.transaction(async (tx) => {
      const now = context.now();
      const seq = scope.terminalId === null ? 0 : await nextTerminalSeq(tx, scope.terminalId);
      // A replay answers the recorded payment. Under the terminal's lock a concurrent push of the
      // same id has either committed or not begun, so this check cannot miss one.
      const recorded = await findOfflinePayment(tx, id);
      if (recorded) return ownRecorded(recorded, scope);
      const verdict = await voucherVerdict(tx, scope, candidate, keys);
      if (verdict.status === 'declined') throw declineError(verdict);
      const row = await insertOfflinePayment(tx, paymentRow(scope, candidate, verdict, now, seq));
      await enqueueEvent(tx, paymentEvent(row, now));
      return row;
    });
  }

  return { voucherVerdict, redeem };
}

/** A recorded payment answers a replay only to its own terminal (or merchant, for online redeems). */
function ownRecorded(row: OfflinePaymentRow, scope: SettlementScope): OfflinePaymentRow {
  if (row.merchant_id !== scope.merchantId || row.mode !== scope.mode || (scope.terminalId !== null && row.terminal_id !== scope.terminalId)) {
    throw conflict('payment_id_taken', `Offline payment id ${row.id} is already used by another terminal`);
  }
  return row;
}

function declineError(verdict: Extract<Verdict, { status: 'declined' }>): ApiError {
  const code = verdict.code as VoucherProblem | string;
  switch (code) {
    case 'voucher_already_used':
    case 'voucher_revoked':
      return conflict(code, verdict.reason);
    case 'voucher_expired':
      return gone(code, verdict.reason);
    case 'amount_exceeds_voucher':
    case 'insufficient_funds':
    case 'payer_is_merchant':
    case 'voucher_currency_mismatch':
    case 'voucher_wrong_mode':
      return unprocessable(code, verdict.reason);
    default:
      // The voucher's other problems (malformed, unknown, signature): registered with 400, and the test servers' error coverage fails a suite that answers one that is not.
      return badRequest(code as ErrorCodeWith<400>, verdict.reason);
  }
}
