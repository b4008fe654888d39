import { type OfflineDecision, offlineDecision } from '@tapline/shared/offline-policy';
import { VOUCHER_PROBLEM_MESSAGES, checkVoucher } from '@tapline/shared/offline-qr';
import type { SaleLine } from '@tapline/shared/cart';
import type { OfflinePaymentDoc, SyncHello } from '@tapline/shared/sync-protocol';

/** A payment the cashier is about to take without the server: what was typed on the keypad, or the cart. */
export interface OfflineSale {
  amountMinor: number;
  currency: string;
  description: string;
  /** A sale from the cart: its lines (minor units, basis points) and cart discount, which the server checks add up to the amount. */
  items?: SaleLine[];
  discountMinor?: number;
}

export type Refusal = { ok: false; code: string; reason: string };
export type OfflineAttempt = { ok: true; doc: OfflinePaymentDoc } | Refusal;

const NOT_SYNCED: Refusal = { ok: false, code: 'offline_not_synced', reason: 'This terminal has not synced with the server yet: offline payments need one connection first' };

/** Vouchers this terminal has taken already, whatever became of them: a voucher pays once. */
export function usedVoucherIds(docs: readonly Pick<OfflinePaymentDoc, 'voucherId'>[]): Set<string> {
  return new Set(docs.flatMap((doc) => (doc.voucherId === undefined ? [] : [doc.voucherId])));
}

function decide(hello: SyncHello, docs: readonly OfflinePaymentDoc[], sale: OfflineSale, now: Date, payer: { voucherId?: string; tagId?: string } = {}): OfflineDecision {
  return offlineDecision(hello.offlineLimits, docs, { amountMinor: sale.amountMinor, currency: sale.currency, ...payer }, now, usedVoucherIds(docs));
}

function queuedDoc(hello: SyncHello, sale: OfflineSale, now: Date, id: string, fields: Pick<OfflinePaymentDoc, 'kind'> & Partial<OfflinePaymentDoc>): OfflinePaymentDoc {
  const cart = sale.items === undefined ? {} : { items: sale.items, discountMinor: sale.discountMinor ?? 0 };
  return { id, terminalId: hello.terminal.id, amountMinor: sale.amountMinor, currency: sale.currency, description: sale.description, capturedAt: now.toISOString(), status: 'queued', serverSeq: 0, ...cart, ...fields };
}

/**
 * A tap while the server cannot be reached: the document to store, or why not (the offline
 * policy's reason, for the screen). `docs` is everything in the replica. `tenderOf`: the split
 * sale this tap pays part of (the same rules apply to the part as to a whole sale).
 */
export function offlineTap(hello: SyncHello | null, docs: readonly OfflinePaymentDoc[], sale: OfflineSale, tagId: string, now: Date, id: string, tenderOf?: string): OfflineAttempt {
  if (hello === null) return NOT_SYNCED;
  const decision = decide(hello, docs, sale, now, { tagId });
  if (!decision.ok) return decision;
  return { ok: true, doc: queuedDoc(hello, sale, now, id, { kind: 'tap', tagId, ...(tenderOf === undefined ? {} : { tenderOf }) }) };
}

/** What a split sale's offline tap says when the sale was cancelled before it reached the server: never sent, nothing charged. */
export const TENDER_WITHDRAWN_CODE = 'tender_withdrawn';

/**
 * A queued offline tap for part of a split sale that was cancelled: kept on this terminal as
 * declined and never sent (the push gate holds it back), so the customer is not charged. Null
 * when it is no longer queued (it reached the server: it is given back through the server).
 */
export function withdrawnTap(doc: OfflinePaymentDoc, now: Date): Pick<OfflinePaymentDoc, 'status' | 'declineCode' | 'declineReason' | 'settledAt'> | null {
  if (doc.status !== 'queued') return null;
  return {
    status: 'declined',
    declineCode: TENDER_WITHDRAWN_CODE,
    declineReason: 'The split sale was cancelled before this tap reached the server: it was withdrawn and never sent, so nothing was charged',
    settledAt: now.toISOString(),
  };
}

/** Whether a document is a tap this terminal withdrew: it must never reach the server. */
export function isWithdrawn(doc: Pick<OfflinePaymentDoc, 'status' | 'declineCode'>): boolean {
  return doc.status === 'declined' && doc.declineCode === TENDER_WITHDRAWN_CODE;
}

/**
 * A scanned offline QR voucher: its signature and claims checked with the keys of the last
 * hello (exactly as the server will), then the offline policy, then the document to store.
 */
export async function offlineVoucher(hello: SyncHello | null, docs: readonly OfflinePaymentDoc[], sale: OfflineSale, scanned: string, now: Date, id: string): Promise<OfflineAttempt> {
  if (hello === null) return NOT_SYNCED;
  const keys = new Map(hello.offlineQrKeys.map((key) => [key.keyId, key.publicKey]));
  const checked = await checkVoucher(scanned, { keys, mode: hello.mode, currency: sale.currency, amountMinor: sale.amountMinor, at: now });
  if (!checked.ok) return { ok: false, code: checked.code, reason: VOUCHER_PROBLEM_MESSAGES[checked.code] };
  const { claims } = checked.voucher;
  const decision = decide(hello, docs, sale, now, { voucherId: claims.id });
  if (!decision.ok) return decision;
  return { ok: true, doc: queuedDoc(hello, sale, now, id, { kind: 'qr', voucher: scanned.trim(), voucherId: claims.id, payerHandle: `@${claims.h}` }) };
}

/** The offline limits as the cashier sees them before a tap: per payment, and how much of the total is used. */
export interface OfflineRoom {
  currency: string;
  perPaymentMaxMinor: number;
  /** The largest tap: a tap above the tag's no-PIN limit needs a PIN, which cannot be checked offline. */
  perTapMaxMinor: number;
  totalMaxMinor: number;
  /** Queued (unsettled) offline payments, in the limits' currency. */
  usedMinor: number;
}

export function offlineRoom(hello: SyncHello | null, docs: readonly Pick<OfflinePaymentDoc, 'amountMinor' | 'currency' | 'status'>[]): OfflineRoom | null {
  if (hello === null) return null;
  const limits = hello.offlineLimits;
  const usedMinor = docs.filter((doc) => doc.status === 'queued' && doc.currency === limits.currency).reduce((sum, doc) => sum + doc.amountMinor, 0);
  const perTapMaxMinor = Math.min(limits.perPaymentMaxMinor, limits.noPinPerTapMaxMinor ?? limits.perPaymentMaxMinor);
  return { currency: limits.currency, perPaymentMaxMinor: limits.perPaymentMaxMinor, perTapMaxMinor, totalMaxMinor: limits.totalMaxMinor, usedMinor };
}

/**
 * Whether an amount could be taken offline now (the policy without a voucher), asked while the
 * cashier types, so an over-limit sale is refused before the customer taps, not after.
 */
export function offlineAmountCheck(hello: SyncHello | null, docs: readonly OfflinePaymentDoc[], sale: Pick<OfflineSale, 'amountMinor' | 'currency'>, now: Date): OfflineDecision | Refusal {
  if (hello === null) return NOT_SYNCED;
  return decide(hello, docs, { ...sale, description: '' }, now);
}
