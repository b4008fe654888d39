import { type CATALOGUES, type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import type { GiftCardSaleDoc, OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { type PosSaleDoc, isServerFinal } from './pos-sales.ts';
import type { PosRefundDoc } from './replica.ts';
import { isWithdrawn } from './offline-payments.ts';

/**
 * Today's sales of this terminal, online and offline, in one list for the cashier: time, amount,
 * how it was paid, by whom, and what became of it. Built from the replica alone, so it works
 * without the server.
 */
export type HistoryKind = 'pos' | 'offline' | 'gift-card' | 'cash' | 'refund';

/** paid: money in. waiting: not final yet. ended: nothing was charged. declined: refused after the fact. refunded: money out (a refund made here). */
export type HistoryOutcome = 'paid' | 'waiting' | 'ended' | 'declined' | 'refunded';

export interface HistoryRow {
  kind: HistoryKind;
  id: string;
  capturedAt: string;
  /** Negative for a refund: money that went back to the customer. */
  amountMinor: number;
  currency: string;
  method: string;
  payer: string;
  status: string;
  outcome: HistoryOutcome;
  /** The code behind a decline or failure, for support. */
  code?: string;
  /** A receipt can be printed again (a paid sale, a payment taken offline, a cash sale; never a gift card: its code is gone). */
  reprintable: boolean;
}

/** The words of the rows, in the kiosk's language (tests get English). */
function texts(words: Translator<MessageKey>) {
  const method = (key: keyof typeof CATALOGUES.en.kiosk.history.methods) => words.t(`kiosk.history.methods.${key}`);
  const status = (key: keyof typeof CATALOGUES.en.kiosk.history.statuses) => words.t(`kiosk.history.statuses.${key}`);
  return {
    tap: method('tap'),
    qr: method('qr'),
    offlineTap: method('offlineTap'),
    offlineQr: method('offlineQr'),
    giftCard: method('giftCard'),
    cash: method('cash'),
    giftCardTender: method('giftCardTender'),
    mobileMoney: method('mobileMoney'),
    wallet: method('wallet'),
    split: method('split'),
    refund: method('refund'),
    refunded: status('refunded'),
    none: '—',
    paid: status('paid'),
    paidUnsynced: status('paidUnsynced'),
    failed: status('failed'),
    expired: status('expired'),
    cancelled: status('cancelled'),
    cancelledLocally: status('cancelledLocally'),
    timedOut: status('timedOut'),
    waiting: status('waiting'),
    opening: status('opening'),
    waitingToSettle: status('waitingToSettle'),
    declined: status('declined'),
    active: status('active'),
    activatesOnline: status('activatesOnline'),
  };
}
type Texts = ReturnType<typeof texts>;

function posRow(sale: PosSaleDoc, TEXT: Texts): HistoryRow {
  const base = { kind: 'pos' as const, id: sale.id, capturedAt: sale.capturedAt, amountMinor: sale.amountMinor, currency: sale.currency, payer: sale.payerHandle ?? TEXT.none };
  const method = sale.status === 'completed' ? (sale.tagId === undefined ? TEXT.qr : TEXT.tap) : TEXT.none;
  if (sale.status === 'completed') return { ...base, method, status: TEXT.paid, outcome: 'paid', reprintable: true };
  if (isServerFinal(sale)) {
    const status = sale.status === 'failed' ? TEXT.failed : sale.status === 'expired' ? TEXT.expired : TEXT.cancelled;
    return { ...base, method, status, outcome: 'ended', reprintable: false };
  }
  if (sale.localEnd !== undefined) return { ...base, method, status: sale.localEnd === 'cancelled' ? TEXT.cancelledLocally : TEXT.timedOut, outcome: 'ended', reprintable: false };
  return { ...base, method, status: sale.status === 'opening' ? TEXT.opening : TEXT.waiting, outcome: 'waiting', reprintable: false };
}

function offlineRow(doc: OfflinePaymentDoc, TEXT: Texts): HistoryRow {
  const base = { kind: 'offline' as const, id: doc.id, capturedAt: doc.capturedAt, amountMinor: doc.amountMinor, currency: doc.currency, method: doc.kind === 'qr' ? TEXT.offlineQr : TEXT.offlineTap, payer: doc.payerHandle ?? doc.tagId ?? TEXT.none };
  if (doc.status === 'accepted') return { ...base, status: TEXT.paid, outcome: 'paid', reprintable: true };
  if (doc.status === 'declined') return { ...base, status: TEXT.declined, outcome: 'declined', reprintable: false, ...(doc.declineCode === undefined ? {} : { code: doc.declineCode }) };
  return { ...base, status: TEXT.waitingToSettle, outcome: 'waiting', reprintable: true };
}

function giftCardRow(doc: GiftCardSaleDoc, TEXT: Texts): HistoryRow {
  const base = { kind: 'gift-card' as const, id: doc.id, capturedAt: doc.capturedAt, amountMinor: doc.amountMinor, currency: doc.currency, method: TEXT.giftCard, payer: `${doc.codePrefix}…`, reprintable: false };
  if (doc.status === 'accepted') return { ...base, status: TEXT.active, outcome: 'paid' };
  if (doc.status === 'declined') return { ...base, status: TEXT.declined, outcome: 'declined', ...(doc.declineCode === undefined ? {} : { code: doc.declineCode }) };
  return { ...base, status: TEXT.activatesOnline, outcome: 'waiting' };
}

/**
 * How a till sale was paid: its one tender's kind (a gift card or mobile money alone, from the
 * sale screen's buttons, is not cash), or Split when several tenders paid it.
 */
function tillSaleMethod(doc: TillSaleDoc, TEXT: Texts): string {
  const kinds = new Set(doc.tenders.map((tender) => tender.kind));
  if (kinds.size > 1) return TEXT.split;
  const [kind] = kinds;
  return kind === 'gift_card' ? TEXT.giftCardTender : kind === 'mobile_money' ? TEXT.mobileMoney : kind === 'wallet' ? TEXT.wallet : kind === 'offline_tap' ? TEXT.offlineTap : TEXT.cash;
}

/**
 * A cash sale is paid when the cash is in the drawer, synced or not; the server records it (its
 * lines and stock) once it syncs, and may decline a malformed one.
 */
function cashRow(doc: TillSaleDoc, TEXT: Texts): HistoryRow {
  const base = { kind: 'cash' as const, id: doc.id, capturedAt: doc.capturedAt, amountMinor: doc.amountMinor, currency: doc.currency, method: tillSaleMethod(doc, TEXT), payer: TEXT.none };
  if (doc.status === 'declined') return { ...base, status: TEXT.declined, outcome: 'declined', reprintable: false, ...(doc.declineCode === undefined ? {} : { code: doc.declineCode }) };
  return { ...base, status: doc.status === 'accepted' ? TEXT.paid : TEXT.paidUnsynced, outcome: 'paid', reprintable: true };
}

function refundRow(doc: PosRefundDoc, TEXT: Texts): HistoryRow {
  return { kind: 'refund', id: doc.id, capturedAt: doc.createdAt, amountMinor: -doc.amountMinor, currency: doc.currency, method: TEXT.refund, payer: doc.payerHandle ?? TEXT.none, status: TEXT.refunded, outcome: 'refunded', reprintable: false };
}

/**
 * Whether a sale is listed. Left out: sales still opening (no session yet: nothing can have
 * happened), taps for part of a split sale, and a sale taken offline instead whose offline payment is listed: that payment is
 * the sale (one row, not "Cancelled on this till" beside it), unless the customer had paid the
 * sale by QR meanwhile, when both are shown (the sale paid, the offline payment declined).
 */
function listed(sale: PosSaleDoc, paymentIds: ReadonlySet<string>): boolean {
  // A tap for part of a split sale is listed as that sale's tender (its till sale row), not alone.
  if (sale.status === 'opening' || sale.tenderOf !== undefined) return false;
  return sale.offlinePaymentId === undefined || sale.status === 'completed' || !paymentIds.has(sale.offlinePaymentId);
}

/** Every row, newest first; the refunds made here as rows of their own (negative amounts). */
export function historyRows(
  sales: readonly PosSaleDoc[],
  payments: readonly OfflinePaymentDoc[],
  giftCards: readonly GiftCardSaleDoc[],
  words: Translator<MessageKey> = translator('en'),
  refunds: readonly PosRefundDoc[] = [],
  cashSales: readonly TillSaleDoc[] = [],
): HistoryRow[] {
  const TEXT = texts(words);
  const paymentIds = new Set(payments.map((doc) => doc.id));
  return [
    ...sales.filter((sale) => listed(sale, paymentIds)).map((sale) => posRow(sale, TEXT)),
    // A split sale's offline tap is listed as that sale's tender (its till sale row), unless the server declined it (the shortfall shows).
    ...payments.filter((doc) => doc.tenderOf === undefined || (doc.status === 'declined' && !isWithdrawn(doc))).map((doc) => offlineRow(doc, TEXT)),
    ...giftCards.map((doc) => giftCardRow(doc, TEXT)),
    ...cashSales.map((doc) => cashRow(doc, TEXT)),
    ...refunds.map((doc) => refundRow(doc, TEXT)),
  ].sort((a, b) => b.capturedAt.localeCompare(a.capturedAt));
}

export interface DayTotals {
  currency: string;
  /** Paid in, and how many sales. */
  amountMinor: number;
  count: number;
  /** Given back by the refunds listed (a positive amount), and how many. */
  refundedMinor: number;
  refundCount: number;
  /** Paid less refunded. */
  netMinor: number;
}

/** Paid today, refunded today and the net, per currency (a till normally has one). */
export function paidTotals(rows: readonly HistoryRow[]): DayTotals[] {
  const totals = new Map<string, DayTotals>();
  for (const row of rows) {
    if (row.outcome !== 'paid' && row.outcome !== 'refunded') continue;
    const total = totals.get(row.currency) ?? { currency: row.currency, amountMinor: 0, count: 0, refundedMinor: 0, refundCount: 0, netMinor: 0 };
    if (row.outcome === 'paid') {
      total.amountMinor += row.amountMinor;
      total.count += 1;
    } else {
      total.refundedMinor -= row.amountMinor;
      total.refundCount += 1;
    }
    total.netMinor = total.amountMinor - total.refundedMinor;
    totals.set(row.currency, total);
  }
  return [...totals.values()];
}

/** Midnight of today on this kiosk's clock, as the replica stores times (UTC ISO 8601, which sorts). */
export function startOfToday(now: Date): string {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return midnight.toISOString();
}
