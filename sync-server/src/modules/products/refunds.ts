import { createHash, randomUUID } from 'node:crypto';
import { type LineTotals, type SaleLine, cartTotals } from '@tapline/shared/cart';
import { TENDER_RETURN_HOURS } from '@tapline/shared/limits';
import { toMajor } from '@tapline/shared/money';
import type { ProductDoc } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { transfer, transferIds } from '../../ledger/ledger.ts';
import { findCollection, preparePayback } from '../collections/index.ts';
import { lockGiftCardTenders, returnToCard } from '../gift-cards/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { checkedCashierId } from '../till-staff/index.ts';
import { type NewPayment, type PaymentRow, onPaymentOutcome, recordPayment } from '../payments/index.ts';
import { findMerchantWallet } from '../wallets/index.ts';
import { checkManagerPin } from './manager-pin.ts';
import { moveSaleStock, saleLineRecords, storedLines, storedTenders, tenderRecords, tenderTotal, unitsByProduct } from './sales.ts';
import { type RefundRow, type RefundTender, type SaleRow, type StoredRefundLine, findRefund, findSale, insertRefund, lockRefunds, updateRefundOutcome, isWholeSaleId, normaliseSaleId, refundsOfSale, saleIdsByPrefix, offlineTapPayer, paymentTenderOf, sessionPayer, sessionTenderOf, tillSaleClaiming, tillSaleTerminal } from './sales-store.ts';

/** Who asks: the merchant's key (no PIN) or one of its terminals (its own sales, with the manager PIN). */
export interface SaleActor {
  merchantId: string;
  mode: Mode;
  terminalId: string | null;
}

export interface RefundRequest {
  saleId: string;
  lines?: { line: number; quantity: number }[] | undefined;
  managerPin?: string | undefined;
  reason?: string | undefined;
  cashierId?: string | undefined;
  shiftId?: string | undefined;
  /** The mobile money payout's reference (sandbox: test_failure, test_reversal). */
  reference?: string | undefined;
}


/** The refund id of a returned tender: derived from its session, so the return happens once. */
function tenderReturnId(sessionId: string): string {
  return createHash('sha256').update(`tender-return:${sessionId}`).digest('hex').slice(0, 32);
}

const saleNotFound = (id: string) => notFound('sale_not_found', `No sale ${id}`);
const REFUNDABLE_STATUS: Record<SaleRow['kind'], string> = { pos_session: 'completed', offline_payment: 'accepted', till_sale: 'accepted' };


/** Half-up share of `total` for `units` of `quantity` (integers): shares of every unit add up to `total`. */
function share(total: number, units: number, quantity: number): number {
  return Number((BigInt(total) * BigInt(units) * 2n + BigInt(quantity)) / (BigInt(quantity) * 2n));
}

/**
 * What refunding `units` more of a line gives back, after `before` units were: its amount and its
 * tax, as differences of cumulative half-up shares, so the refunds of every unit give back exactly
 * the line's total and tax.
 */
function lineRefund(index: number, line: SaleLine, totals: LineTotals, before: number, units: number): StoredRefundLine {
  const part = (whole: number) => share(whole, before + units, line.quantity) - share(whole, before, line.quantity);
  const amount = part(totals.total);
  const tax = part(totals.tax);
  return { line: index, quantity: units, amount, taxRate: line.taxRate, tax, taxable: amount - tax };
}

/**
 * The tax a refund gives back, per rate (minor units), from its stored lines; refunds stored
 * before lines carried their tax get a share of their sale line's tax by units.
 */
export function refundLineTaxes(storedRefundLines: unknown, saleItems: unknown, saleCartDiscount: number | null): { rate: number; taxable: number; tax: number }[] {
  const lines = (typeof storedRefundLines === 'string' ? JSON.parse(storedRefundLines) : storedRefundLines) as StoredRefundLine[];
  const sold = storedLines(saleItems);
  const totals = sold ? cartTotals({ lines: sold, discount: Number(saleCartDiscount ?? 0) }) : null;
  return lines.flatMap((line) => {
    if (line.tax !== undefined && line.taxable !== undefined && line.taxRate !== undefined) return [{ rate: line.taxRate, taxable: line.taxable, tax: line.tax }];
    const saleLine = sold?.[line.line];
    const lineTotals = totals?.lines[line.line];
    if (!saleLine || !lineTotals) return [];
    const tax = share(lineTotals.tax, line.quantity, saleLine.quantity);
    return [{ rate: saleLine.taxRate, taxable: line.amount - tax, tax }];
  });
}

/** Units already refunded per line of a sale. */
function refundedUnits(refunds: readonly RefundRow[]): Map<number, number> {
  const units = new Map<number, number>();
  for (const refund of refunds) for (const line of refund.lines) units.set(line.line, (units.get(line.line) ?? 0) + line.quantity);
  return units;
}

/** What is left to refund of a sale: its amount, and per line the units and their amount. */
function refundable(sale: SaleRow, refunds: readonly RefundRow[]) {
  // A till sale's part its tenders did not pay (an offline tap declined at sync) is not the customer's to get back.
  const paid = sale.status === REFUNDABLE_STATUS[sale.kind] ? Math.max(Number(sale.amount) - Number(sale.unpaid ?? 0), 0) : 0;
  // A refund's failed part (its payout failed or was reversed) never reached the customer: refundable again.
  const refunded = refunds.reduce((sum, refund) => sum + Number(refund.amount) - Number(refund.failed_amount ?? 0), 0);
  const lines = storedLines(sale.items);
  const done = refundedUnits(refunds);
  const totals = lines ? cartTotals({ lines, discount: Number(sale.cart_discount ?? 0) }) : null;
  const perLine = (lines ?? []).map((line, index) => {
    const before = done.get(index) ?? 0;
    return lineRefund(index, line, totals!.lines[index]!, before, line.quantity - before);
  });
  return { paid, refunded, left: Math.max(paid - refunded, 0), lines, perLine, done, totals };
}

/** A refund's status from its tenders' (docs/catalogue.md): failed when a part did not reach the customer, pending while a payout is processing. */
function refundStatus(tenders: readonly RefundTender[]): 'pending' | 'succeeded' | 'failed' {
  if (tenders.some((tender) => tender.status === 'failed')) return 'failed';
  if (tenders.some((tender) => tender.status === 'pending')) return 'pending';
  return 'succeeded';
}

export function refundRecord(row: RefundRow, sale: Pick<SaleRow, 'items' | 'payer_handle'>) {
  const lines = storedLines(sale.items);
  // Refunds made before tenders were recorded all went back to the wallet that paid.
  const tenders: RefundTender[] = row.tenders ?? [{ kind: 'wallet', amount: Number(row.amount) }];
  const status = refundStatus(tenders);
  return {
    id: row.id,
    saleId: row.sale_id,
    saleKind: row.sale_kind,
    amount: toMajor(Number(row.amount), row.currency),
    currency: row.currency,
    lines: row.lines.map((line) => ({
      line: line.line,
      productId: lines?.[line.line]?.productId ?? null,
      name: lines?.[line.line]?.name ?? '',
      quantity: line.quantity,
      amount: toMajor(line.amount, row.currency),
    })),
    reason: row.reason,
    terminalId: row.refunded_by_terminal_id,
    walletRef: row.transfer_id,
    payerHandle: sale.payer_handle ? displayHandle(sale.payer_handle) : null,
    tenders: tenders.map((tender) => ({
      kind: tender.kind,
      amount: toMajor(Number(tender.amount), row.currency),
      ...(tender.kind === 'mobile_money' && tender.reference ? { reference: tender.reference } : {}),
      ...(tender.status ? { status: tender.status } : {}),
      ...(tender.status === 'failed' ? { failureReason: tender.failureReason ?? null } : {}),
    })),
    status,
    failedAmount: toMajor(Number(row.failed_amount ?? 0), row.currency),
    ...(status === 'failed' ? { failureReason: row.failure_reason } : {}),
    cashierId: row.cashier_id,
    shiftId: row.shift_id,
    createdAt: row.created_at.toISOString(),
  };
}

export function saleRecord(sale: SaleRow, refunds: readonly RefundRow[]) {
  const state = refundable(sale, refunds);
  const major = (minor: number) => toMajor(minor, sale.currency);
  const tenders = sale.kind === 'till_sale' ? storedTenders(sale.tenders) : [{ kind: 'wallet', amount: Number(sale.amount) }];
  return {
    saleId: sale.id,
    kind: sale.kind,
    terminalId: sale.terminal_id,
    status: sale.status,
    amount: major(Number(sale.amount)),
    currency: sale.currency,
    payerHandle: sale.payer_handle ? displayHandle(sale.payer_handle) : null,
    walletRef: sale.transfer_id,
    tenders: tenderRecords(tenders, sale.currency),
    ...(sale.kind === 'till_sale' ? { unpaid: major(Number(sale.unpaid ?? 0)) } : {}),
    change: major(tenders.reduce((sum, tender) => sum + (tender.change ?? 0), 0)),
    tip: major(Number(sale.tip ?? 0)),
    cashierId: sale.cashier_id,
    createdAt: sale.created_at.toISOString(),
    settledAt: sale.settled_at?.toISOString() ?? null,
    ...(state.lines ? saleLineRecords(state.lines, Number(sale.cart_discount ?? 0), sale.currency) : { items: null, cartDiscount: 0, totals: null }),
    refunds: refunds.map((refund) => refundRecord(refund, sale)),
    refunded: major(state.refunded),
    refundable: major(state.left),
    refundableLines: state.perLine.filter((line) => line.quantity > 0).map((line) => ({ line: line.line, quantity: line.quantity, amount: major(line.amount) })),
  };
}

/**
 * How a refund of a till sale goes back: its wallet tap (online, or offline once it settled) first, up to what that tap paid less what
 * earlier refunds gave back to it; then its gift cards, each up to what it paid less what went back
 * to it; then its mobile money (a payout to the phone that paid), up to what the collection took
 * less what earlier refunds sent back; the rest in cash from the drawer.
 */
function tillRefundSplit(sale: SaleRow, refunds: readonly RefundRow[], amount: number): RefundSplit {
  const tenders = storedTenders(sale.tenders);
  // A part whose payout failed was not given back: the phone is owed it again.
  const given = refunds.flatMap((refund) => refund.tenders ?? []).filter((tender) => tender.status !== 'failed');
  // One tap per sale: a POS session, or an offline tap (its offline payment), refunded alike to the wallet that paid.
  // A declined offline tap (the sale's unpaid part) paid nothing: nothing goes back to it.
  const wallet = tenders.find((tender) => tender.kind === 'wallet' || (tender.kind === 'offline_tap' && Number(sale.unpaid ?? 0) === 0));
  let left = amount;
  const walletBack = wallet ? Math.min(left, Math.max(Number(wallet.amount) - tenderTotal(given, 'wallet'), 0)) : 0;
  left -= walletBack;
  const giftCards: { reference: string; amount: number }[] = [];
  for (const card of tenders.filter((tender) => tender.kind === 'gift_card' && tender.reference)) {
    // What went back for this card: to the card, or in cash when the card had ended.
    const back = given.filter((tender) => tender.reference === card.reference).reduce((sum, tender) => sum + Number(tender.amount), 0);
    const part = Math.min(left, Math.max(Number(card.amount) - back, 0));
    if (part > 0) giftCards.push({ reference: card.reference!, amount: part });
    left -= part;
  }
  const phone = tenders.find((tender) => tender.kind === 'mobile_money');
  const phoneBack = phone ? Math.min(left, Math.max(Number(phone.amount) - tenderTotal(given, 'mobile_money'), 0)) : 0;
  left -= phoneBack;
  return { wallet: walletBack, giftCards, mobileMoney: phoneBack, cash: left, session: wallet?.reference?.toLowerCase() ?? null, offlineTap: wallet?.kind === 'offline_tap', collection: phone?.reference ?? null };
}

interface RefundSplit {
  wallet: number;
  giftCards: { reference: string; amount: number }[];
  mobileMoney: number;
  cash: number;
  session: string | null;
  /** `session` names an offline payment (an offline_tap tender), not a POS session. */
  offlineTap?: boolean;
  collection: string | null;
}

/** Cash a till sale's refunds gave from the drawer for its cash tenders (not the cash given for a gift card that had ended). */
function drawerCashBack(refunds: readonly RefundRow[]): number {
  return refunds.flatMap((refund) => refund.tenders ?? []).filter((tender) => tender.kind === 'cash' && !tender.reference).reduce((sum, tender) => sum + Number(tender.amount), 0);
}

const giftCardBack = (split: RefundSplit) => split.giftCards.reduce((sum, part) => sum + part.amount, 0);

/** What a refund request gives back (its lines and amount) of what is still refundable; the rules it breaks are 400 / 409. */
function refundAmount(sale: SaleRow, state: ReturnType<typeof refundable>, request: RefundRequest): { amount: number; lines: StoredRefundLine[] } {
  let amount: number;
  let lines: StoredRefundLine[];
  if (request.lines === undefined) {
    lines = state.perLine.filter((line) => line.quantity > 0);
    amount = state.left;
  } else {
    if (!state.lines) throw badRequest('refund_line_invalid', 'This sale has no lines: refund it in full (no lines)');
    const asked = new Map<number, number>();
    for (const { line, quantity } of request.lines) asked.set(line, (asked.get(line) ?? 0) + quantity);
    lines = [...asked].sort(([a], [b]) => a - b).map(([line, quantity]) => {
      const sold: SaleLine | undefined = state.lines![line];
      const before = state.done.get(line) ?? 0;
      if (!sold || quantity < 1 || before + quantity > sold.quantity) {
        throw badRequest('refund_line_invalid', `Line ${line} cannot refund ${quantity} more (sold ${sold?.quantity ?? 0}, refunded ${before})`);
      }
      return lineRefund(line, sold, state.totals!.lines[line]!, before, quantity);
    });
    amount = lines.reduce((sum, line) => sum + line.amount, 0);
  }
  if (amount <= 0 || state.left === 0) throw conflict('nothing_to_refund', `Sale ${sale.id} has nothing left to refund`);
  if (amount > state.left) throw conflict('refund_exceeds_sale', `Refunds of sale ${sale.id} would exceed what was paid`);
  return { amount, lines };
}

/** The merchant's wallet back to the wallet that paid (no negative wallet: 422 insufficient_funds); answers the transfer's id. */
async function correctingTransfer(tx: Parameters<typeof transfer>[0], sale: SaleRow, refundId: string, amount: number): Promise<string> {
  const merchantWallet = sale.merchant_wallet_id ?? (await findMerchantWallet(tx, sale.merchant_id, sale.mode))?.id;
  if (!merchantWallet) throw new Error(`merchant ${sale.merchant_id} has no ${sale.mode} wallet`);
  const transferId = transferIds.posRefund(refundId);
  await transfer(tx, {
    id: transferId,
    mode: sale.mode,
    kind: 'pos_refund',
    legs: [
      { account: walletAccount(merchantWallet, sale.currency), amount: -amount },
      { account: walletAccount(sale.payer_wallet_id!, sale.currency), amount },
    ],
    metadata: { saleId: sale.id, refundId },
  });
  return transferId;
}

/** The payout that sends a refund's mobile money part to the phone: its id derives from the refund's, so a retry makes one. */
function refundPaymentId(refundId: string): string {
  return `pay_${refundId.slice(3)}`;
}

/** The refund a payout was sent for, if it was one (refundPaymentId the other way). */
function payoutRefundId(paymentId: string): string | null {
  return paymentId.startsWith('pay_') ? `rf_${paymentId.slice(4)}` : null;
}

const TENDER_OUTCOME: Partial<Record<PaymentRow['status'], 'succeeded' | 'failed'>> = { completed: 'succeeded', failed: 'failed', reversed: 'failed' };

/**
 * Payouts' outcomes (payments' listener, in the transaction that completes, fails or reverses
 * them): a payout that sent a till sale refund's mobile money part to the phone writes its outcome
 * on the refund's tender. One that failed or was reversed (after success too) did not reach the
 * customer: the refund's failed_amount counts it, so the sale's refunded amount leaves it out and
 * the next refund pays the phone again; pos.refund.failed announces it with the Refund JSON. The
 * merchant's wallet has its debit back by the same transaction. An outcome heard again, or a
 * failed tender's later news, changes nothing.
 */
export async function recordRefundPayoutOutcomes(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  const ended = rows.filter((row) => row.rail === 'mobile_money' && TENDER_OUTCOME[row.status] && payoutRefundId(row.id));
  if (ended.length === 0) return;
  for (const refund of await lockRefunds(tx, ended.map((row) => payoutRefundId(row.id)!))) {
    const payment = ended.find((row) => payoutRefundId(row.id) === refund.id)!;
    const outcome = TENDER_OUTCOME[payment.status]!;
    const tenders = refund.tenders ?? [];
    const tender = tenders.find((candidate) => candidate.kind === 'mobile_money' && candidate.reference === payment.id);
    if (!tender || tender.status === outcome || tender.status === 'failed') continue;
    const updated = tenders.map((candidate) => (candidate === tender
      ? { ...candidate, status: outcome, ...(outcome === 'failed' ? { failureReason: payment.failure_reason } : {}) }
      : candidate));
    const failedAmount = updated.filter((candidate) => candidate.status === 'failed').reduce((sum, candidate) => sum + Number(candidate.amount), 0);
    const row = await updateRefundOutcome(tx, refund.id, {
      tenders: updated,
      failed_amount: failedAmount,
      failure_reason: outcome === 'failed' ? payment.failure_reason : refund.failure_reason,
      failed_at: outcome === 'failed' ? at : refund.failed_at,
    });
    if (outcome !== 'failed') continue;
    const sale = await findSale(tx, { merchantId: row.merchant_id, mode: row.mode }, row.sale_id, { lock: false });
    if (!sale) throw new Error(`refund ${row.id}: sale ${row.sale_id} not found`);
    await enqueueEvent(tx, { merchantId: row.merchant_id, mode: row.mode, type: 'pos.refund.failed', data: refundRecord(row, sale), at });
  }
}

onPaymentOutcome('payout', recordRefundPayoutOutcomes, 'till-refunds');

/** docs/catalogue.md, "Sales and refunds". */
export function refundsService(context: AppContext) {
  const { db, config } = context;

  /**
   * A sale id as typed: the whole id, or the short one a receipt prints (its first 8 or more hex
   * digits, any case), resolved among the merchant's sales (a terminal's own sales for a
   * terminal); 409 sale_id_ambiguous when two sales start with it.
   */
  async function wholeSaleId(actor: SaleActor, saleId: string, tx: Parameters<typeof findSale>[0]): Promise<string> {
    const typed = normaliseSaleId(saleId);
    if (isWholeSaleId(typed)) return typed;
    const found = await saleIdsByPrefix(tx, actor, typed);
    if (found.length > 1) throw conflict('sale_id_ambiguous', `More than one sale starts with ${typed}: type more of its id (the whole id is at the foot of the receipt)`);
    return found[0] ?? typed;
  }

  async function visibleSale(actor: SaleActor, typedId: string, lock: boolean, tx = db as Parameters<typeof findSale>[0]): Promise<SaleRow> {
    const saleId = await wholeSaleId(actor, typedId, tx);
    const sale = await findSale(tx, actor, saleId, { lock });
    // A terminal refunds and reads its own sales only.
    if (!sale || (actor.terminalId !== null && sale.terminal_id !== actor.terminalId)) throw saleNotFound(typedId);
    return sale;
  }

  /**
   * The payout that gives a till sale's mobile money part back to the phone that paid, priced
   * outside the refund's transaction (as payroll does); null when the refund has no such part.
   * The transaction checks the split again and records it with its debit.
   */
  async function preparePhonePayout(actor: SaleActor, request: RefundRequest, refundId: string): Promise<{ payment: NewPayment; amount: number; collection: string | null } | null> {
    const sale = await visibleSale(actor, request.saleId, false);
    if (sale.kind !== 'till_sale' || !storedTenders(sale.tenders).some((tender) => tender.kind === 'mobile_money')) return null;
    const refunds = await refundsOfSale(db, sale.id);
    const split = tillRefundSplit(sale, refunds, refundAmount(sale, refundable(sale, refunds), request).amount);
    if (split.mobileMoney <= 0 || !split.collection) return null;
    const collection = await findCollection(db, split.collection);
    const merchant = await findMerchant(db, sale.merchant_id);
    if (!collection || !merchant) throw new Error(`till sale ${sale.id}: mobile money tender ${split.collection} has no collection`);
    // The collection is this sale's tender: same merchant, mode and currency (a claim checks them).
    const payment = await preparePayback(context, merchant, collection, split.mobileMoney, `Refund ${refundId} of sale ${sale.id}`, refundPaymentId(refundId), request.reference);
    return { payment, amount: split.mobileMoney, collection: split.collection };
  }

  return {
    async sale(actor: SaleActor, saleId: string) {
      const sale = await visibleSale(actor, saleId, false);
      return saleRecord(sale, await refundsOfSale(db, sale.id));
    },

    /** `derived`: an id derived from the Idempotency-Key, so that a retry after a crash finds the refund its first run made. */
    async refund(actor: SaleActor, request: RefundRequest, derived: string | undefined) {
      const id = `rf_${(derived ?? randomUUID()).replaceAll('-', '')}`;
      const done = await earlierRefund(actor, id);
      if (done) return done;
      // Found before the PIN is spent: an unknown sale or cashier costs no attempt.
      await visibleSale(actor, request.saleId, false);
      await checkedCashierId(db, actor.merchantId, request.cashierId);
      if (actor.terminalId !== null) await checkManagerPin(db, actor.terminalId, request.managerPin, context.now());
      return applyRefund(actor, request, id);
    },

    /**
     * A split tender given back (docs/till.md, "Split tender"): the cashier cancelled a till sale
     * before it was fully paid, and the POS session that paid part of it goes back to its payer in
     * full, without a manager PIN, as the money never paid for goods. Only a session opened as a
     * tender (tenderOf), completed, at this till, within TENDER_RETURN_HOURS, that no till sale
     * claims and nothing refunded yet. Its refund id derives from the session's, so asking again
     * answers the same refund.
     */
    async returnTender(actor: SaleActor, sessionId: string, request: Pick<RefundRequest, 'cashierId' | 'shiftId'>) {
      const sale = await visibleSale(actor, sessionId, false);
      const id = `rf_${tenderReturnId(sale.id)}`;
      const done = await earlierRefund(actor, id);
      if (done) return done;
      await checkedCashierId(db, actor.merchantId, request.cashierId);
      // A POS session opened with tenderOf, or an offline tap taken for part of a split sale offline.
      const tenderOf = sale.kind === 'pos_session' ? await sessionTenderOf(db, sale.id) : sale.kind === 'offline_payment' ? await paymentTenderOf(db, sale.id) : undefined;
      // A tenderOf is the till's word, never a reason to decline the tap: one naming a till sale that
      // another till recorded (this merchant's or another's) is not a split tender of this till.
      const tenderTill = tenderOf ? await tillSaleTerminal(db, tenderOf) : undefined;
      if (!tenderOf || (tenderTill !== undefined && tenderTill !== sale.terminal_id)) {
        throw conflict('not_a_tender', `Sale ${sale.id} was not opened as part of a till sale of this till (tenderOf): refund it with the manager's PIN`);
      }
      if (sale.status === REFUNDABLE_STATUS[sale.kind] && sale.settled_at !== null && context.now().getTime() - sale.settled_at.getTime() > TENDER_RETURN_HOURS * 3_600_000) {
        throw conflict('tender_return_expired', `Session ${sale.id} was paid more than ${TENDER_RETURN_HOURS} hours ago: refund it with the manager's PIN`);
      }
      return applyRefund(actor, { saleId: sale.id, reason: 'Split sale cancelled: tender returned', ...request }, id, { wholeOnly: true });
    },
  };

  /** The refund with this id, made by an earlier run of the same request (a retry). */
  async function earlierRefund(actor: SaleActor, id: string) {
    const existing = await findRefund(db, id);
    if (!existing) return undefined;
    const sale = await visibleSale(actor, existing.sale_id, false);
    return refundRecord(existing, sale);
  }

  async function applyRefund(actor: SaleActor, request: RefundRequest, id: string, options: { wholeOnly?: boolean } = {}) {
    const now = context.now();
    const phonePayout = await preparePhonePayout(actor, request, id);
    let restocked: ProductDoc[] = [];
    const { row, sale } = await db.transaction(async (tx) => {
      restocked = [];
      const sale = await visibleSale(actor, request.saleId, true, tx);
      const till = sale.kind === 'till_sale';
      if (sale.status !== REFUNDABLE_STATUS[sale.kind] || (!till && (!sale.payer_wallet_id || !sale.transfer_id))) {
        throw conflict('sale_not_refundable', `Sale ${sale.id} is ${sale.status}: only a completed sale can be refunded`);
      }
      if (sale.kind === 'pos_session' || sale.kind === 'offline_payment') {
        const claimedBy = await tillSaleClaiming(tx, sale.id);
        if (claimedBy) throw conflict('sale_in_till_sale', `${sale.kind === 'pos_session' ? 'Session' : 'Offline payment'} ${sale.id} paid part of till sale ${claimedBy}: refund that sale, and its refund goes back to each tender`);
      }
      const refunds = await refundsOfSale(tx, sale.id);
      // A returned tender goes back whole, once: a refund made in between (with the PIN) returns nothing more.
      if (options.wholeOnly && refunds.length > 0) throw conflict('nothing_to_refund', `Sale ${sale.id} was refunded already`);
      const state = refundable(sale, refunds);
      const { amount, lines } = refundAmount(sale, state, request);
      // A till sale gives back its wallet tap first (to the wallet that paid, by a ledger
      // transfer), the rest from the drawer (cash moves nothing on the ledger); any other sale
      // goes back to the wallet that paid it.
      const split: RefundSplit = till ? tillRefundSplit(sale, refunds, amount) : { wallet: amount, giftCards: [], mobileMoney: 0, cash: 0, session: null, collection: null };
      if (till && split.cash > 0) {
        // The drawer gives back at most the sale's cash (a second mobile money tender is not paid back to its phone).
        const cashPaid = tenderTotal(storedTenders(sale.tenders), 'cash');
        const cashBack = drawerCashBack(refunds);
        if (split.cash > cashPaid - cashBack) {
          throw conflict('mobile_money_refund_unavailable', `Part of this refund would go back to a mobile money payment the till cannot pay back: refund at most ${toMajor(Math.max(cashPaid - cashBack, 0) + split.wallet + giftCardBack(split) + split.mobileMoney, sale.currency)} ${sale.currency} here and the rest to the customer's phone from the merchant's side`);
        }
      }
      // The mobile money part goes back to the phone that paid: a mobile_money payout from the
      // merchant's wallet (POST /api/pay's payment, sandbox in test mode), prepared before this
      // transaction and recorded in it with its debit.
      let phonePaymentId: string | null = null;
      if (split.mobileMoney > 0) {
        if (!phonePayout || phonePayout.amount !== split.mobileMoney || phonePayout.collection !== split.collection) {
          throw conflict('sale_changed', `Sale ${sale.id} was refunded meanwhile: send the refund again`);
        }
        phonePaymentId = phonePayout.payment.id;
      }
      let payer: { walletId: string; handle: string | null } | null = sale.payer_wallet_id ? { walletId: sale.payer_wallet_id, handle: sale.payer_handle } : null;
      if (split.session && split.wallet > 0 && split.offlineTap) {
        // An offline tap goes back to its wallet once the server accepted it; before, it has paid nothing yet.
        const paid = await offlineTapPayer(tx, split.session);
        if (!paid) throw conflict('offline_tap_not_settled', `The offline tap ${split.session} of sale ${sale.id} has not settled yet: it paid nothing to give back so far. Refund the sale once the till has synced`);
        payer = { walletId: paid.payer_wallet_id, handle: paid.payer_handle };
      } else if (split.session && split.wallet > 0) {
        const paid = await sessionPayer(tx, split.session);
        if (!paid) throw new Error(`till sale ${sale.id}: wallet tender ${split.session} has no completed session`);
        payer = { walletId: paid.payer_wallet_id, handle: paid.payer_handle };
      }
      const transferId = split.wallet > 0 ? await correctingTransfer(tx, { ...sale, payer_wallet_id: payer!.walletId }, id, split.wallet) : null;
      // Each gift card's part goes back onto the card; a card that has ended takes nothing and the
      // drawer gives that part in cash (a cash tender naming the card's redemption).
      const cardTenders: { kind: string; amount: number; reference: string }[] = [];
      if (split.giftCards.length > 0) {
        const cards = await lockGiftCardTenders(tx, split.giftCards.map((part) => part.reference));
        for (const [index, part] of split.giftCards.entries()) {
          const card = cards.get(part.reference);
          if (!card) throw new Error(`till sale ${sale.id}: gift card tender ${part.reference} has no redemption`);
          const back = await returnToCard(tx, card, { id: `${id}_gc${index}`, amount: part.amount, reason: 'refund', refundId: id, terminalId: actor.terminalId, now });
          cardTenders.push({ kind: back.toCard ? 'gift_card' : 'cash', amount: part.amount, reference: part.reference });
        }
      }
      const tenders = [
        ...(split.wallet > 0 ? [{ kind: 'wallet', amount: split.wallet }] : []),
        ...cardTenders,
        // Pending until its payout's outcome (products' payment outcome listener, recordRefundPayoutOutcomes).
        ...(split.mobileMoney > 0 ? [{ kind: 'mobile_money', amount: split.mobileMoney, ...(phonePaymentId ? { reference: phonePaymentId } : {}), status: 'pending' as const }] : []),
        ...(split.cash > 0 ? [{ kind: 'cash', amount: split.cash }] : []),
      ];
      const row = await insertRefund(tx, {
        id,
        sale_id: sale.id,
        sale_kind: sale.kind,
        merchant_id: sale.merchant_id,
        mode: sale.mode,
        sale_terminal_id: sale.terminal_id,
        refunded_by_terminal_id: actor.terminalId,
        amount,
        currency: sale.currency,
        lines,
        reason: request.reason?.trim() || null,
        payer_wallet_id: split.wallet > 0 ? payer!.walletId : null,
        transfer_id: transferId,
        tenders,
        cashier_id: request.cashierId?.trim() || null,
        shift_id: request.shiftId?.toLowerCase() ?? null,
      }, now);
      // Stock comes back for the units refunded of tracked products.
      if (state.lines) {
        const units = unitsByProduct(lines.map((line) => ({ ...state.lines![line.line]!, quantity: line.quantity })));
        restocked = await moveSaleStock(tx, { merchantId: sale.merchant_id, mode: sale.mode }, units, 1, now);
      }
      await enqueueEvent(tx, { merchantId: sale.merchant_id, mode: sale.mode, type: 'pos.refund.created', data: refundRecord(row, sale), at: now });
      // The payout is recorded once its refund names it: one the sandbox ends at once (test_success,
      // test_failure) writes its outcome on the refund in this transaction, and the answer shows it.
      if (phonePayout && phonePaymentId) {
        await recordPayment(tx, phonePayout.payment, config.sandboxStepMs);
        return { row: (await findRefund(tx, id))!, sale };
      }
      return { row, sale };
    });
    if (restocked.length > 0) context.sync.productsChanged(sale.merchant_id, sale.mode, restocked);
    return refundRecord(row, sale);
  }
}
