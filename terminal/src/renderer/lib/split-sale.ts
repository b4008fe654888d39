import { TILL_TENDERS_MAX } from '@tapline/shared/limits';
import type { TillSaleDoc, TillTender } from '@tapline/shared/sync-protocol';
import type { OfflineSale } from './offline-payments.ts';
import type { DrawerRefundDoc } from './shifts.ts';

/**
 * A sale paid by several tenders (cash + a tap, part mobile money), the till's side: the sale on
 * screen with its tip, the tenders completed so far and the one being paid. Kept in localStorage
 * per terminal from the first tender on, so a reload or a crash finds every tender already taken
 * (money the customer paid is never forgotten). When nothing is left to pay it becomes one till
 * sale document (collection `till_sales`) naming every tender; cancelled, each completed tender is
 * given back (a tap through POST /api/pos/sessions/{id}/return, mobile money to the phone through
 * POST /api/pos/collections/{id}/return, cash from the drawer).
 */
export interface SplitSale {
  /** The till sale's id: also the `tenderOf` of its wallet taps. */
  id: string;
  terminalId: string;
  sale: OfflineSale;
  /** The tip on top of the sale (minor units), paid by the tenders too. */
  tipMinor: number;
  /** Tenders completed, in the order they were taken. */
  tenders: TillTender[];
  /** A tap or QR payment under way for part of the sale: the id of its stored POS sale (lib/pos-sales.ts). */
  pendingWallet?: { saleId: string; amountMinor: number };
  /** A mobile-money collection under way: its amount (the collection itself is remembered by lib/mobile-money.ts). */
  pendingMobile?: { amountMinor: number };
  /**
   * A gift card being taken: the most it pays and the key of its redeem request, kept before the
   * request is sent so that a reload or a lost answer redeems once (the code itself is never kept).
   */
  pendingGift?: { key: string; amountMinor: number };
  /**
   * A tap for part of the sale while the server cannot be reached: the offline payment screen
   * takes it under the same rules as a whole sale's offline tap. `paymentId` is the offline
   * payment's id, kept just before the payment is stored, so a reload finds it in the replica.
   */
  pendingOffline?: { amountMinor: number; paymentId?: string };
  /** The phone (masked, as the server shows it) each mobile money tender was paid from, by collection id: a cancel says where the money goes back. */
  mobilePhones?: Record<string, string>;
  startedAt: string;
}

export function startSplit(sale: OfflineSale, terminalId: string, now: Date, id: string = crypto.randomUUID(), tipMinor = 0): SplitSale {
  return { id, terminalId, sale, tipMinor, tenders: [], startedAt: now.toISOString() };
}

/** What the customer pays in all: the sale and the tip. */
export function dueMinor(split: Pick<SplitSale, 'sale' | 'tipMinor'>): number {
  return split.sale.amountMinor + split.tipMinor;
}

export function paidMinor(split: Pick<SplitSale, 'tenders'>): number {
  return split.tenders.reduce((sum, tender) => sum + tender.amountMinor, 0);
}

/** What is still to pay (never below zero: the tenders never pay more than is due). */
export function remainingMinor(split: SplitSale): number {
  return Math.max(0, dueMinor(split) - paidMinor(split));
}

export type SplitRefusal = { ok: false; code: 'invalid_amount' | 'amount_exceeds_remaining' | 'tenders_full' | 'wallet_taken' | 'tender_in_progress' | 'tip_after_tenders'; reason: string };
export type SplitChange = { ok: true; split: SplitSale } | SplitRefusal;

/** A tender is being taken (a tap, mobile money, a gift card): nothing else starts until it ends. */
export function tenderUnderWay(split: SplitSale): boolean {
  return split.pendingWallet !== undefined || split.pendingMobile !== undefined || split.pendingGift !== undefined || split.pendingOffline !== undefined;
}

/** Why another tender cannot start now, or null. */
function blocked(split: SplitSale): SplitRefusal | null {
  if (tenderUnderWay(split)) return { ok: false, code: 'tender_in_progress', reason: 'A payment is under way: wait for it or cancel it' };
  if (split.tenders.length >= TILL_TENDERS_MAX) return { ok: false, code: 'tenders_full', reason: `A sale takes at most ${TILL_TENDERS_MAX} tenders` };
  return null;
}

/** A part amount for a tender other than cash: a whole number of minor units, from 1 up to what is left. */
export function checkPart(split: SplitSale, amountMinor: number): SplitRefusal | null {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 1) return { ok: false, code: 'invalid_amount', reason: 'Type the amount this tender pays' };
  if (amountMinor > remainingMinor(split)) return { ok: false, code: 'amount_exceeds_remaining', reason: 'More than is left to pay' };
  return null;
}

/**
 * Cash handed over: it pays what is left at most, and anything above that is change (so only the
 * tender that finishes the sale gives change).
 */
export function addCash(split: SplitSale, tenderedMinor: number): SplitChange {
  const refused = blocked(split);
  if (refused) return refused;
  if (!Number.isSafeInteger(tenderedMinor) || tenderedMinor < 1) return { ok: false, code: 'invalid_amount', reason: 'Type the cash handed over' };
  const remaining = remainingMinor(split);
  if (remaining === 0) return { ok: false, code: 'amount_exceeds_remaining', reason: 'Nothing is left to pay' };
  const amountMinor = Math.min(tenderedMinor, remaining);
  const tender: TillTender = { kind: 'cash', amountMinor, tenderedMinor, changeMinor: tenderedMinor - amountMinor };
  return { ok: true, split: { ...split, tenders: [...split.tenders, tender] } };
}

/** A tap (or QR payment) for part of the sale is starting: one per sale, as the server records one. */
export function startWallet(split: SplitSale, saleId: string, amountMinor: number): SplitChange {
  const refused = blocked(split) ?? checkPart(split, amountMinor);
  if (refused) return refused;
  if (tapTaken(split)) return { ok: false, code: 'wallet_taken', reason: 'A sale takes one wallet tap' };
  return { ok: true, split: { ...split, pendingWallet: { saleId, amountMinor } } };
}

/** A wallet tap paid part of the sale already, online or offline: the server records one per sale. */
export function tapTaken(split: Pick<SplitSale, 'tenders'>): boolean {
  return split.tenders.some((tender) => tender.kind === 'wallet' || tender.kind === 'offline_tap');
}

/** A tap for part of the sale while offline is starting (the offline payment screen takes it). */
export function startOfflineTap(split: SplitSale, amountMinor: number): SplitChange {
  const refused = blocked(split) ?? checkPart(split, amountMinor);
  if (refused) return refused;
  if (tapTaken(split)) return { ok: false, code: 'wallet_taken', reason: 'A sale takes one wallet tap' };
  return { ok: true, split: { ...split, pendingOffline: { amountMinor } } };
}

/** The offline payment about to be stored for the part: remembered first, so a reload finds it. */
export function offlineTapStoring(split: SplitSale, paymentId: string): SplitSale {
  if (split.pendingOffline === undefined) return split;
  return { ...split, pendingOffline: { ...split.pendingOffline, paymentId } };
}

/** The offline tap is stored (queued for the server): the tender names its offline payment. */
export function offlineTapTaken(split: SplitSale, paymentId: string, amountMinor: number): SplitSale {
  const { pendingOffline: _done, ...rest } = split;
  if (split.tenders.some((tender) => tender.reference === paymentId)) return rest;
  return { ...rest, tenders: [...split.tenders, { kind: 'offline_tap', amountMinor, reference: paymentId }] };
}

/** No offline tap was taken (refused by the policy, or the cashier went back): nothing was taken. */
export function offlineTapEnded(split: SplitSale): SplitSale {
  const { pendingOffline: _ended, ...rest } = split;
  return rest;
}

/** The tap paid (its POS session completed): the tender names the session. */
export function walletPaid(split: SplitSale, sessionId: string): SplitSale {
  const pending = split.pendingWallet;
  if (pending === undefined) return split;
  const { pendingWallet: _done, ...rest } = split;
  return { ...rest, tenders: [...split.tenders, { kind: 'wallet', amountMinor: pending.amountMinor, reference: sessionId }] };
}

/** The tap did not pay (declined, expired, cancelled): nothing was taken, the sale goes on. */
export function walletEnded(split: SplitSale): SplitSale {
  const { pendingWallet: _ended, ...rest } = split;
  return rest;
}

export function startMobile(split: SplitSale, amountMinor: number): SplitChange {
  const refused = blocked(split) ?? checkPart(split, amountMinor);
  if (refused) return refused;
  return { ok: true, split: { ...split, pendingMobile: { amountMinor } } };
}

/** The collection completed: the tender names it (and the masked phone that paid is kept beside it, for a cancel). */
export function mobilePaid(split: SplitSale, collectionId: string, amountMinor: number, phone?: string): SplitSale {
  const { pendingMobile: _done, ...rest } = split;
  const tenders: TillTender[] = [...split.tenders, { kind: 'mobile_money', amountMinor, reference: collectionId }];
  return phone === undefined ? { ...rest, tenders } : { ...rest, tenders, mobilePhones: { ...split.mobilePhones, [collectionId]: phone } };
}

export function mobileEnded(split: SplitSale): SplitSale {
  const { pendingMobile: _ended, ...rest } = split;
  return rest;
}

/** A gift card is being taken for at most `amountMinor` (what is left, or the part typed). */
export function startGift(split: SplitSale, amountMinor: number, key: string = crypto.randomUUID()): SplitChange {
  const refused = blocked(split) ?? checkPart(split, amountMinor);
  if (refused) return refused;
  return { ok: true, split: { ...split, pendingGift: { key, amountMinor } } };
}

/** The card paid (its redemption): the tender names the redemption; it may pay less than asked (its balance). */
export function giftPaid(split: SplitSale, redemptionId: string, amountMinor: number): SplitSale {
  const { pendingGift: _done, ...rest } = split;
  if (split.tenders.some((tender) => tender.reference === redemptionId)) return rest;
  return { ...rest, tenders: [...split.tenders, { kind: 'gift_card', amountMinor, reference: redemptionId }] };
}

export function giftEnded(split: SplitSale): SplitSale {
  const { pendingGift: _ended, ...rest } = split;
  return rest;
}

/**
 * A tender the sale screen offers beside Cash and Split (issue 25): pressed there, the split screen
 * opens with that tender's panel already open for everything due. The split sale itself is the
 * same as one opened with Split, so partial payment, cancel and history are the split screen's.
 */
export type StraightTender = 'gift_card' | 'mobile_money';

/**
 * The tender pressed on the sale screen, started for everything left to pay; null while it must
 * wait (the tip is asked first, or a tender is already taken or under way: the cashier chooses from
 * there, as in Split).
 */
export function openStraightTender(split: SplitSale, tender: StraightTender, askingTip: boolean, key: string = crypto.randomUUID()): SplitChange | null {
  if (askingTip || split.tenders.length > 0 || tenderUnderWay(split)) return null;
  const remaining = remainingMinor(split);
  return tender === 'gift_card' ? startGift(split, remaining, key) : startMobile(split, remaining);
}

/**
 * Back (or Another tender) on a panel the sale screen opened: with nothing taken the cashier goes
 * back to the sale as it was; once a tender has paid part of it, the split screen stays with what
 * is left.
 */
export function backLeavesSplit(split: Pick<SplitSale, 'tenders'>, straight: StraightTender | null): boolean {
  return straight !== null && split.tenders.length === 0;
}

/** The tip chosen before the first tender (or after the sale is paid, when nothing more is being paid). */
export function setTip(split: SplitSale, tipMinor: number): SplitChange {
  if (!Number.isSafeInteger(tipMinor) || tipMinor < 0) return { ok: false, code: 'invalid_amount', reason: 'A tip is a whole amount from 0 up' };
  if (tenderUnderWay(split)) return { ok: false, code: 'tender_in_progress', reason: 'A payment is under way' };
  // A tip never makes what was paid more than is due: the change already given stays given.
  if (dueMinor({ sale: split.sale, tipMinor }) < paidMinor(split)) return { ok: false, code: 'tip_after_tenders', reason: 'The tenders already pay more than that' };
  return { ok: true, split: { ...split, tipMinor } };
}

/** The till sale document once nothing is left to pay (null before). */
export function splitSaleDoc(split: SplitSale, now: Date, by: { cashierId?: string; shiftId?: string } = {}): TillSaleDoc | null {
  if (remainingMinor(split) !== 0 || tenderUnderWay(split) || split.tenders.length === 0) return null;
  const description = split.sale.description.trim();
  return {
    id: split.id,
    terminalId: split.terminalId,
    amountMinor: split.sale.amountMinor,
    currency: split.sale.currency,
    capturedAt: now.toISOString(),
    status: 'queued',
    serverSeq: 0,
    tenders: split.tenders,
    ...(split.tipMinor > 0 ? { tipMinor: split.tipMinor } : {}),
    ...(by.cashierId === undefined ? {} : { cashierId: by.cashierId }),
    ...(by.shiftId === undefined ? {} : { shiftId: by.shiftId }),
    ...(description === '' ? {} : { description }),
    ...(split.sale.items === undefined ? {} : { items: split.sale.items, discountMinor: split.sale.discountMinor ?? 0 }),
  };
}

/**
 * The cash a cancelled split sale hands out of the drawer that never came into it: the parts paid
 * by gift cards that had ended by the time they were given back (the server answers
 * `returnedTo: "cash"`). Cash tenders given back came from the customer during this sale, so they
 * change nothing; this does, and leaves the shift's expected cash as a cash refund from the
 * drawer by the cashier who cancelled (lib/shifts.ts). Null when nothing leaves or no shift is open.
 */
export function cancelledSplitDrawerRefund(split: Pick<SplitSale, 'id' | 'sale'>, giftCashMinor: number, by: { cashierId?: string; shiftId?: string }, now: Date): DrawerRefundDoc | null {
  if (giftCashMinor <= 0 || by.shiftId === undefined || by.cashierId === undefined) return null;
  return { id: `split-cancel-${split.id}`, shiftId: by.shiftId, cashierId: by.cashierId, amountMinor: giftCashMinor, currency: split.sale.currency, createdAt: now.toISOString() };
}

/** The tip suggested for a percentage of the sale, rounded half up to a whole minor unit. */
export function tipFor(amountMinor: number, percent: number): number {
  return Math.round((amountMinor * percent) / 100);
}

const KEY_PREFIX = 'tapline.splitSale.';
type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function rememberSplit(split: SplitSale, store: Store = localStorage): void {
  store.setItem(KEY_PREFIX + split.terminalId, JSON.stringify(split));
}

/** The split sale left unfinished on this terminal (a reload, a crash), or null; anything unreadable is ignored. */
export function loadSplit(terminalId: string, store: Store = localStorage): SplitSale | null {
  const text = store.getItem(KEY_PREFIX + terminalId);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as SplitSale;
    const ok =
      typeof value.id === 'string' &&
      value.terminalId === terminalId &&
      Array.isArray(value.tenders) &&
      value.tenders.every((tender) => Number.isSafeInteger(tender.amountMinor) && tender.amountMinor > 0) &&
      Number.isSafeInteger(value.sale?.amountMinor) &&
      Number.isSafeInteger(value.tipMinor);
    return ok ? value : null;
  } catch {
    return null;
  }
}

export function forgetSplit(terminalId: string, store: Store = localStorage): void {
  store.removeItem(KEY_PREFIX + terminalId);
}
