import type { DeclineCode } from '@tapline/shared/decline-codes';
import { isSupportedCurrency } from '@tapline/shared/countries';
import { toMajor } from '@tapline/shared/money';
import { TILL_TENDER_KINDS, type TillSaleDoc, type TillTender, type TillTenderKind } from '@tapline/shared/sync-protocol';
import { storableText, textProblem, textProblemMessage } from '@tapline/shared/text';
import type { Cart, CartError } from '@tapline/shared/cart';
import { AMOUNT_MAJOR_MAX, DESCRIPTION_LENGTH_MAX, TILL_TENDERS_MAX } from '@tapline/shared/limits';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { OfflinePaymentRow } from './store.ts';
import { type NewEvent, enqueueEvents } from '../../events/outbox.ts';
import { cartOfDocument, lockProducts, moveSaleStock, saleLineRecords, storedLines, tenderRecords, unitsByProduct } from '../products/index.ts';
import { type CollectionSettler, type PushTerminal, CAPTURED_AT_PROBLEM, inCapturedOrder, inSavepoint, parseCapturedAt, schemaProblems, timeDecline } from '../push/index.ts';
import { type CollectionRow, lockCollections } from '../collections/index.ts';
import { type GiftCardTender, giftCardTenderProblem, lockGiftCardTenders } from '../gift-cards/index.ts';
import {
  type StoredTender,
  type TenderPaymentRow,
  type TenderSessionRow,
  type TillSaleRow,
  addUnpaid,
  claimsOfPayments,
  findTenderPayments,
  findTillSales,
  insertTenderClaims,
  insertTillSales,
  lockTenderSessions,
} from './till-sales-store.ts';

/**
 * The tenders this server records on a till sale today: cash, a wallet tap (a POS session), mobile
 * money (a completed collection, modules/collections), a gift card redemption and an offline tap
 * (an offline payment, settled on its own) for part of it. The others are declined, never
 * half-recorded.
 */
const RECORDED_TENDERS: ReadonlySet<TillTenderKind> = new Set(['cash', 'wallet', 'mobile_money', 'gift_card', 'offline_tap']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_TEXT = 64;

/** A till sale as the terminal sent it, checked; or why it cannot be recorded. */
interface Candidate {
  id: string;
  amount: number;
  tip: number;
  currency: string;
  tenders: StoredTender[];
  cashierId: string | null;
  shiftId: string | null;
  description: string | null;
  capturedAt: Date;
  cart: Cart | null;
  invalid: string | null;
  cartProblem: CartError | null;
}

type Verdict = { status: 'accepted' } | { status: 'declined'; code: DeclineCode; reason: string };
const decline = (code: DeclineCode, reason: string): Verdict => ({ status: 'declined', code, reason });

const isCount = (value: unknown, minimum: number): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum;

/** The tenders as sent, in minor units; problems name the tender by its position. */
function tendersOf(value: unknown, problems: string[]): StoredTender[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > TILL_TENDERS_MAX) {
    problems.push(`tenders must be a list of 1 to ${TILL_TENDERS_MAX} tenders`);
    return [];
  }
  return value.map((entry: unknown, index): StoredTender => {
    const at = `tenders.${index}`;
    const tender = (entry !== null && typeof entry === 'object' ? entry : {}) as Record<string, unknown>;
    const kind = (TILL_TENDER_KINDS as readonly unknown[]).includes(tender.kind) ? (tender.kind as TillTenderKind) : null;
    if (kind === null) problems.push(`${at}.kind must be one of ${TILL_TENDER_KINDS.join(', ')}`);
    const amount = isCount(tender.amountMinor, 1) ? tender.amountMinor : 0;
    if (amount === 0) problems.push(`${at}.amountMinor must be a positive integer`);
    const stored: StoredTender = { kind: kind ?? 'unknown', amount };
    for (const [field, key] of [['tenderedMinor', 'tendered'], ['changeMinor', 'change']] as const) {
      const raw = tender[field];
      if (raw === undefined || raw === null) continue;
      if (kind !== 'cash') problems.push(`${at}.${field} is for cash tenders only`);
      else if (!isCount(raw, field === 'changeMinor' ? 0 : 1)) problems.push(`${at}.${field} must be an integer of minor units`);
      else stored[key] = raw;
    }
    if (tender.reference !== undefined && tender.reference !== null) {
      if (typeof tender.reference !== 'string' || textProblem(tender.reference, 80)) problems.push(`${at}.reference must be an id of at most 80 characters`);
      else stored.reference = tender.reference;
    }
    return stored;
  });
}

function optionalId(value: unknown, field: string, problems: string[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || textProblem(value, ID_TEXT)) {
    problems.push(`${field} must be an id of at most ${ID_TEXT} characters`);
    return null;
  }
  return value;
}

/** `scopeCurrency` is recorded with a decline when the sale's currency is not one the server knows. */
export function tillSaleCandidate(doc: Record<string, unknown>, id: string, scopeCurrency: string): Candidate {
  const problems: string[] = [];
  const amount = isCount(doc.amountMinor, 1) ? doc.amountMinor : 0;
  if (amount === 0) problems.push('amountMinor must be a positive integer');
  const sent = typeof doc.currency === 'string' ? doc.currency.toUpperCase() : null;
  const currency = sent !== null && /^[A-Z]{3}$/.test(sent) && isSupportedCurrency(sent) ? sent : scopeCurrency;
  if (sent === null || currency !== sent) problems.push('currency must be a supported ISO 4217 code (an African currency, USD, GBP or EUR)');
  else if (amount > 0 && toMajor(amount, currency) > AMOUNT_MAJOR_MAX) problems.push(`amountMinor must be at most ${AMOUNT_MAJOR_MAX} ${currency} in major units`);
  let tip = 0;
  if (doc.tipMinor !== undefined && doc.tipMinor !== null) {
    if (isCount(doc.tipMinor, 0)) tip = doc.tipMinor;
    else problems.push('tipMinor must be an integer of minor units from 0 up');
  }
  const tenders = tendersOf(doc.tenders, problems);
  const cashierId = optionalId(doc.cashierId, 'cashierId', problems);
  const shiftId = optionalId(doc.shiftId, 'shiftId', problems);
  let description: string | null = null;
  if (doc.description !== undefined && doc.description !== null) {
    if (typeof doc.description !== 'string') problems.push('description must be a string');
    else if (doc.description.trim() !== '') {
      const problem = textProblem(doc.description, DESCRIPTION_LENGTH_MAX);
      if (problem) problems.push(textProblemMessage('description', problem, DESCRIPTION_LENGTH_MAX));
      // A declined sale is still recorded: what cannot be stored is replaced.
      description = problem ? storableText(doc.description, DESCRIPTION_LENGTH_MAX) : doc.description;
    }
  }
  const capturedAt = parseCapturedAt(doc.capturedAt);
  if (capturedAt === null) problems.push(CAPTURED_AT_PROBLEM);
  problems.push(...schemaProblems('till_sales', doc, problems, ['tenders']));
  const { cart, cartProblem } = cartOfDocument(doc.items, doc.discountMinor, amount);
  return {
    id,
    amount,
    tip,
    currency,
    tenders,
    cashierId,
    shiftId,
    description,
    capturedAt: capturedAt ?? new Date(0),
    cart,
    invalid: problems.length > 0 ? problems.join('; ') : null,
    cartProblem,
  };
}

/**
 * The rules a sale's tenders keep: they pay the sale and the tip exactly, cash covers its part
 * with what was handed over and gives back the difference, and only tenders the server can
 * record are on it.
 */
export function tenderDecline(sale: Pick<Candidate, 'amount' | 'tip' | 'currency' | 'tenders'>): Verdict | null {
  const major = (minor: number) => `${toMajor(minor, sale.currency)} ${sale.currency}`;
  const unsupported = sale.tenders.find((tender) => !RECORDED_TENDERS.has(tender.kind as TillTenderKind));
  if (unsupported) {
    return decline('tender_not_supported', `A ${unsupported.kind} tender cannot be recorded on a till sale yet: this server records cash, wallet taps, mobile money and gift cards at the till`);
  }
  const wallets = sale.tenders.filter((tender) => tender.kind === 'wallet');
  const offlineTaps = sale.tenders.filter((tender) => tender.kind === 'offline_tap');
  if (wallets.length + offlineTaps.length > 1) return decline('tender_not_supported', 'A till sale takes at most one wallet tap (online or offline)');
  if (offlineTaps.some((tender) => tender.reference === undefined || !UUID.test(tender.reference))) {
    return decline('tender_unverified', 'An offline_tap tender must name the offline payment that took it (reference, its UUID)');
  }
  if (wallets.some((tender) => tender.reference === undefined)) return decline('tender_unverified', 'A wallet tender must name the POS session that took it (reference)');
  if (sale.tenders.some((tender) => tender.kind === 'mobile_money' && tender.reference === undefined)) {
    return decline('tender_unverified', 'A mobile_money tender must name the collection that took it (reference)');
  }
  if (sale.tenders.some((tender) => tender.kind === 'gift_card' && tender.reference === undefined)) {
    return decline('tender_unverified', 'A gift_card tender must name the redemption that took it (reference)');
  }
  const paid = sale.tenders.reduce((sum, tender) => sum + tender.amount, 0);
  if (paid !== sale.amount + sale.tip) {
    return decline('tenders_mismatch', `The tenders add up to ${major(paid)}, the sale and tip to ${major(sale.amount + sale.tip)}`);
  }
  for (const [index, tender] of sale.tenders.entries()) {
    if (tender.kind !== 'cash') continue;
    const tendered = tender.tendered ?? tender.amount;
    if (tendered < tender.amount) return decline('cash_short', `Cash tender ${index + 1}: ${major(tendered)} handed over for ${major(tender.amount)} due`);
    const change = tender.change ?? 0;
    if (change !== tendered - tender.amount) return decline('change_mismatch', `Cash tender ${index + 1}: change must be ${major(tendered - tender.amount)} (handed over ${major(tendered)}, due ${major(tender.amount)}), not ${major(change)}`);
  }
  return null;
}

function rowOf(terminal: PushTerminal, sale: Candidate, verdict: Verdict, now: Date, seq: number, unpaid = 0): TillSaleRow {
  const cash = sale.tenders.filter((tender) => tender.kind === 'cash');
  const accepted = verdict.status === 'accepted';
  return {
    id: sale.id,
    terminal_id: terminal.terminalId,
    merchant_id: terminal.merchantId,
    mode: terminal.mode,
    amount: sale.amount,
    tip: sale.tip,
    currency: sale.currency,
    tenders: sale.tenders,
    // Only an accepted sale's cash is the drawer's.
    cash_amount: accepted ? cash.reduce((sum, tender) => sum + tender.amount, 0) : 0,
    cash_tendered: accepted ? cash.reduce((sum, tender) => sum + (tender.tendered ?? tender.amount), 0) : 0,
    cash_change: accepted ? cash.reduce((sum, tender) => sum + (tender.change ?? 0), 0) : 0,
    items: sale.cart?.lines ?? null,
    cart_discount: sale.cart ? sale.cart.discount : null,
    cashier_id: sale.cashierId,
    shift_id: sale.shiftId,
    description: sale.description,
    captured_at: sale.capturedAt,
    received_at: now,
    status: verdict.status,
    decline_code: verdict.status === 'declined' ? verdict.code : null,
    decline_reason: verdict.status === 'declined' ? verdict.reason : null,
    settled_at: now,
    server_seq: seq,
    unpaid: accepted ? unpaid : 0,
  };
}

const tenderDocument = (tender: StoredTender): TillTender => ({
  kind: tender.kind as TillTenderKind,
  amountMinor: tender.amount,
  ...(tender.tendered !== undefined ? { tenderedMinor: tender.tendered } : {}),
  ...(tender.change !== undefined ? { changeMinor: tender.change } : {}),
  ...(tender.reference !== undefined ? { reference: tender.reference } : {}),
});

/** The master state of a till sale, as the terminal's replica holds it. */
export function tillSaleDocument(row: TillSaleRow): TillSaleDoc {
  const lines = storedLines(row.items);
  return {
    id: row.id,
    terminalId: row.terminal_id,
    amountMinor: row.amount,
    currency: row.currency,
    capturedAt: row.captured_at.toISOString(),
    status: row.status,
    serverSeq: row.server_seq,
    // A tender the terminal sent that is not one of the kinds is answered as it was stored only when valid.
    tenders: row.tenders.filter((tender) => tender.amount > 0 && (TILL_TENDER_KINDS as readonly string[]).includes(tender.kind)).map(tenderDocument),
    ...(row.tip > 0 ? { tipMinor: row.tip } : {}),
    ...(row.cashier_id ? { cashierId: row.cashier_id } : {}),
    ...(row.shift_id ? { shiftId: row.shift_id } : {}),
    ...(row.description ? { description: row.description } : {}),
    ...(row.decline_code ? { declineCode: row.decline_code, declineReason: row.decline_reason ?? '' } : {}),
    ...(row.unpaid > 0 ? { unpaidMinor: row.unpaid } : {}),
    settledAt: row.settled_at.toISOString(),
    ...(lines ? { items: lines, discountMinor: Number(row.cart_discount ?? 0) } : {}),
  };
}

/** The sale as webhooks and the API carry it: major units. */
export function tillSaleRecord(row: Pick<TillSaleRow, Exclude<keyof TillSaleRow, 'unpaid'>> & { unpaid?: number }) {
  const major = (minor: number) => toMajor(minor, row.currency);
  const lines = storedLines(row.items);
  return {
    saleId: row.id,
    terminalId: row.terminal_id,
    status: row.status,
    amount: major(row.amount),
    tip: major(row.tip),
    currency: row.currency,
    tenders: tenderRecords(row.tenders, row.currency),
    cashTendered: major(row.cash_tendered),
    change: major(row.cash_change),
    cashierId: row.cashier_id,
    shiftId: row.shift_id,
    description: row.description,
    declineCode: row.decline_code,
    declineReason: row.decline_reason,
    // What the tenders did not pay: offline taps the server declined at sync (the merchant's shortfall).
    unpaid: major(row.unpaid ?? 0),
    capturedAt: row.captured_at.toISOString(),
    ...(lines ? saleLineRecords(lines, Number(row.cart_discount ?? 0), row.currency) : {}),
  };
}

function saleEvent(row: TillSaleRow, now: Date): NewEvent {
  return {
    merchantId: row.merchant_id,
    mode: row.mode,
    type: row.status === 'accepted' ? 'pos.till_sale.recorded' : 'pos.till_sale.declined',
    data: tillSaleRecord(row),
    at: now,
  };
}

type TenderClaim = { reference: string; sale_id: string; amount: number };
type BatchEntry = { sale: Candidate; seq: number; verdict: Verdict; unpaid?: number };

/** The references of one kind of tender on the batch's accepted sales. */
function referencesOf(batch: readonly BatchEntry[], kind: TillTenderKind): string[] {
  return batch.flatMap((entry) => (entry.verdict.status === 'accepted' ? entry.sale.tenders.flatMap((tender) => (tender.kind === kind && tender.reference ? [tender.reference] : [])) : []));
}

/**
 * Checks each accepted sale's tenders of `kind` (`declineOf`, with the references this batch
 * claimed so far): a refused sale is declined and gives up the claims it took for other kinds;
 * otherwise its tenders of `kind` are claimed.
 */
function claimTenders(
  batch: readonly BatchEntry[],
  claims: TenderClaim[],
  kind: TillTenderKind,
  declineOf: (sale: Candidate, claimed: Set<string>) => Verdict | null,
  normalise: (reference: string) => string = (reference) => reference,
): void {
  const claimed = new Set<string>();
  for (const entry of batch) {
    if (entry.verdict.status !== 'accepted') continue;
    const refused = declineOf(entry.sale, claimed);
    if (refused) {
      entry.verdict = refused;
      for (let index = claims.length - 1; index >= 0; index -= 1) if (claims[index]!.sale_id === entry.sale.id) claims.splice(index, 1);
    } else for (const tender of entry.sale.tenders) if (tender.kind === kind) claims.push({ reference: normalise(tender.reference!), sale_id: entry.sale.id, amount: tender.amount });
  }
}

/**
 * Offline payments just settled that a till sale recorded before them names as its offline_tap
 * tender: a tap that did not pay that part (declined, or not the tap the sale says: another till,
 * kind or amount) adds it to the sale's `unpaid`, and the merchant hears of the shortfall
 * (`pos.till_sale.tender_unpaid`). An accepted tap paid its part: nothing changes.
 */
export async function tillSaleTapsSettled(
  tx: Queryable,
  payments: readonly Pick<OfflinePaymentRow, 'id' | 'terminal_id' | 'kind' | 'amount' | 'currency' | 'status' | 'decline_code' | 'decline_reason'>[],
  now: Date,
): Promise<void> {
  const claims = await claimsOfPayments(tx, payments.map((payment) => payment.id));
  if (claims.length === 0) return;
  const byId = new Map(payments.map((payment) => [payment.id.toLowerCase(), payment]));
  const events: NewEvent[] = [];
  for (const claim of claims) {
    const payment = byId.get(claim.reference)!;
    const [sale] = await findTillSales(tx, [claim.sale_id]);
    if (!sale) continue;
    const paid = payment.status === 'accepted' && payment.kind === 'tap' && payment.terminal_id === sale.terminal_id && payment.currency === sale.currency && Number(payment.amount) === claim.amount;
    if (paid) continue;
    const updated = await addUnpaid(tx, sale.id, claim.amount);
    if (!updated) continue;
    events.push({
      merchantId: updated.merchant_id,
      mode: updated.mode,
      type: 'pos.till_sale.tender_unpaid',
      data: {
        ...tillSaleRecord(updated),
        paymentId: payment.id,
        tenderAmount: toMajor(claim.amount, updated.currency),
        paymentDeclineCode: payment.status === 'declined' ? payment.decline_code : 'tender_unverified',
        paymentDeclineReason: payment.status === 'declined' ? payment.decline_reason : 'The offline payment is not the tap this sale names (another till, kind or amount)',
      },
      at: now,
    });
  }
  await enqueueEvents(tx, events);
}

const SETTLEMENT_FAILED = decline(
  'settlement_failed',
  'The server could not record this sale and recorded it as declined so that the terminal\'s other sales are not held up; its stock did not move',
);

/**
 * Sales the till completed (collection `till_sales`), recorded in the order they were made: each
 * checked (its fields, its lines adding up, its tenders paying it), the catalogue products it
 * names locked, and the accepted ones' stock moved (never refused: the sale happened, so offline it
 * may oversell). Cash moves no wallet money: there is no ledger transfer to post.
 */
export function tillSaleSettler(_context: AppContext): CollectionSettler<TillSaleRow, TillSaleDoc> {
  function verdictOf(terminal: PushTerminal, sale: Candidate, now: Date): Verdict {
    if (sale.invalid !== null) return decline('invalid_document', sale.invalid);
    if (sale.cartProblem !== null) return decline(sale.cartProblem.code, sale.cartProblem.message);
    if (sale.currency !== terminal.limits.currency) return decline('currency_not_accepted', `This till sells in ${terminal.limits.currency} only`);
    const rule = timeDecline(sale.capturedAt, now, terminal.createdAt);
    if (rule) return decline(rule.code, rule.reason);
    return tenderDecline(sale) ?? { status: 'accepted' };
  }

  /**
   * A wallet tender is the POS session that took that part: completed, at this till, in this
   * currency, for exactly the tender's amount, without lines of its own (the till sale's lines
   * move the stock), and claimed by no other till sale. `claimed`: references this batch took.
   */
  function walletDecline(terminal: PushTerminal, sale: Candidate, sessions: ReadonlyMap<string, TenderSessionRow>, claimed: Set<string>): Verdict | null {
    for (const tender of sale.tenders) {
      if (tender.kind !== 'wallet') continue;
      const reference = tender.reference!.toLowerCase();
      const session = sessions.get(reference);
      const unverified = (why: string) => decline('tender_unverified', `Wallet tender ${reference}: ${why}`);
      if (!session || session.terminal_id !== terminal.terminalId) return unverified('no POS session of this till has this id');
      if (session.status !== 'completed') return unverified(`the session is ${session.status}, not completed`);
      if (session.currency !== sale.currency || session.amount !== tender.amount) return unverified(`the session took ${toMajor(session.amount, session.currency)} ${session.currency}, the tender says ${toMajor(tender.amount, sale.currency)} ${sale.currency}`);
      if (session.items !== null && session.items !== undefined) return unverified('the session has lines of its own: a part payment carries none');
      if (session.refunded) return unverified('the session was given back to its payer (refunded): it pays nothing now');
      if ((session.claimed_by !== null && session.claimed_by !== sale.id) || claimed.has(reference)) return decline('tender_claimed', `Wallet tender ${reference} already pays another till sale`);
      claimed.add(reference);
    }
    return null;
  }

  /**
   * A mobile_money tender is the collection that took that part (POST /api/pos/collections):
   * completed, asked by this till (same merchant, mode and terminal), not cancelled by it, not given
   * back to the phone (POST /api/pos/collections/{id}/return), in this currency, for exactly the tender's amount, and claimed by no other till sale.
   */
  function mobileMoneyDecline(terminal: PushTerminal, sale: Candidate, collections: ReadonlyMap<string, CollectionRow>, claimed: Set<string>): Verdict | null {
    for (const tender of sale.tenders) {
      if (tender.kind !== 'mobile_money') continue;
      const reference = tender.reference!;
      const collection = collections.get(reference);
      const unverified = (why: string) => decline('tender_unverified', `Mobile money tender ${reference}: ${why}`);
      if (!collection || collection.merchant_id !== terminal.merchantId || collection.mode !== terminal.mode || collection.terminal_id !== terminal.terminalId) {
        return unverified('no mobile-money collection of this till has this id');
      }
      if (collection.status !== 'completed') return unverified(`the collection is ${collection.status}, not completed`);
      if (collection.cancelled_at !== null) return unverified('the till cancelled this collection before it completed: the merchant refunds it, it pays no sale');
      if (collection.returned_at !== null) return unverified('the collection was given back to the phone that paid: it pays no sale');
      if (collection.currency !== sale.currency || collection.amount !== tender.amount) {
        return unverified(`the collection took ${toMajor(collection.amount, collection.currency)} ${collection.currency}, the tender says ${toMajor(tender.amount, sale.currency)} ${sale.currency}`);
      }
      if ((collection.claimed_by !== null && collection.claimed_by !== undefined && collection.claimed_by !== sale.id) || claimed.has(reference)) {
        return decline('tender_claimed', `Mobile money tender ${reference} already pays another till sale`);
      }
      claimed.add(reference);
    }
    return null;
  }

  /**
   * A gift_card tender is the redemption that took that part (the till redeemed the card into the
   * merchant's wallet with its terminal token): made by this till, in the sale's currency without
   * conversion, for exactly the tender's amount, not given back, and claimed by no other till sale.
   */
  function giftCardDecline(terminal: PushTerminal, sale: Candidate, tenders: ReadonlyMap<string, GiftCardTender>, claimed: Set<string>): Verdict | null {
    for (const tender of sale.tenders) {
      if (tender.kind !== 'gift_card') continue;
      const reference = tender.reference!;
      const redemption = tenders.get(reference);
      const problem = giftCardTenderProblem(redemption, { terminalId: terminal.terminalId, mode: terminal.mode, currency: sale.currency });
      if (problem) return decline('tender_unverified', `Gift card tender ${reference}: ${problem}`);
      if (redemption!.credited_amount !== tender.amount) {
        return decline('tender_unverified', `Gift card tender ${reference}: the card paid ${toMajor(redemption!.credited_amount, sale.currency)} ${sale.currency}, the tender says ${toMajor(tender.amount, sale.currency)} ${sale.currency}`);
      }
      if ((redemption!.claimed_by !== null && redemption!.claimed_by !== sale.id) || claimed.has(reference)) {
        return decline('tender_claimed', `Gift card tender ${reference} already pays another till sale`);
      }
      claimed.add(reference);
    }
    return null;
  }

  /**
   * An offline_tap tender is the offline payment the till recorded for that part, which settles
   * on its own and may reach the server before or after the sale. Settled already, it must be a
   * tap of this till, in this currency, for exactly the tender's amount; declined, it paid
   * nothing and the sale is recorded with that part unpaid. Not here yet, the sale is recorded and
   * the tap settles when it comes (payment-push.ts adds a declined one to the sale's `unpaid`).
   * Either way the reference is claimed by no other till sale.
   */
  function offlineTapDecline(terminal: PushTerminal, entry: BatchEntry, found: { payments: ReadonlyMap<string, TenderPaymentRow>; claims: ReadonlyMap<string, string> }, claimed: Set<string>): Verdict | null {
    const { sale } = entry;
    let unpaid = 0;
    for (const tender of sale.tenders) {
      if (tender.kind !== 'offline_tap') continue;
      const reference = tender.reference!.toLowerCase();
      const payment = found.payments.get(reference);
      const unverified = (why: string) => decline('tender_unverified', `Offline tap tender ${reference}: ${why}`);
      if (payment) {
        if (payment.merchant_id !== terminal.merchantId || payment.mode !== terminal.mode || payment.terminal_id !== terminal.terminalId) return unverified('no offline payment of this till has this id');
        if (payment.kind !== 'tap') return unverified(`the offline payment is a ${payment.kind} payment, not a tap`);
        if (payment.currency !== sale.currency || payment.amount !== tender.amount) {
          return unverified(`the tap took ${toMajor(payment.amount, payment.currency)} ${payment.currency}, the tender says ${toMajor(tender.amount, sale.currency)} ${sale.currency}`);
        }
        if (payment.status !== 'accepted') unpaid += tender.amount;
      }
      const claimedBy = found.claims.get(reference);
      if ((claimedBy !== undefined && claimedBy !== sale.id) || claimed.has(reference)) return decline('tender_claimed', `Offline tap tender ${reference} already pays another till sale`);
      claimed.add(reference);
    }
    entry.unpaid = unpaid;
    return null;
  }

  async function record(tx: Queryable, terminal: PushTerminal, batch: readonly BatchEntry[], now: Date): Promise<TillSaleRow[]> {
    const scope = { merchantId: terminal.merchantId, mode: terminal.mode };
    const claims: TenderClaim[] = [];
    // Each kind of tender that names what took it: its rows locked (in this order on every path),
    // then each accepted sale checked against them and its tenders claimed, or the sale declined
    // and the claims it took for the kinds before given up.
    const sessionIds = referencesOf(batch, 'wallet');
    if (sessionIds.length > 0) {
      const sessions = await lockTenderSessions(tx, scope, sessionIds);
      claimTenders(batch, claims, 'wallet', (sale, claimed) => walletDecline(terminal, sale, sessions, claimed), (reference) => reference.toLowerCase());
    }
    const collectionIds = referencesOf(batch, 'mobile_money');
    if (collectionIds.length > 0) {
      const collections = await lockCollections(tx, collectionIds);
      claimTenders(batch, claims, 'mobile_money', (sale, claimed) => mobileMoneyDecline(terminal, sale, collections, claimed));
    }
    const redemptionIds = referencesOf(batch, 'gift_card');
    if (redemptionIds.length > 0) {
      const redemptions = await lockGiftCardTenders(tx, redemptionIds);
      claimTenders(batch, claims, 'gift_card', (sale, claimed) => giftCardDecline(terminal, sale, redemptions, claimed));
    }
    const tapIds = referencesOf(batch, 'offline_tap');
    if (tapIds.length > 0) {
      const found = await findTenderPayments(tx, tapIds);
      const byId = new Map(batch.map((entry) => [entry.sale.id, entry]));
      claimTenders(batch, claims, 'offline_tap', (sale, claimed) => offlineTapDecline(terminal, byId.get(sale.id)!, found, claimed), (reference) => reference.toLowerCase());
    }
    const sold = unitsByProduct(batch.flatMap((entry) => (entry.verdict.status === 'accepted' ? (entry.sale.cart?.lines ?? []) : [])));
    if (sold.size > 0) {
      await lockProducts(tx, scope, [...sold.keys()]);
      await moveSaleStock(tx, scope, sold, -1, now);
    }
    const rows = await insertTillSales(tx, batch.map((entry) => rowOf(terminal, entry.sale, entry.verdict, now, entry.seq, entry.unpaid)));
    await insertTenderClaims(tx, claims);
    await enqueueEvents(tx, rows.map((row) => saleEvent(row, now)));
    return rows;
  }

  return {
    find: findTillSales,
    owner: (row) => ({ merchantId: row.merchant_id, mode: row.mode }),
    document: tillSaleDocument,
    idTaken: (terminal, pushed, now) =>
      tillSaleDocument(rowOf(terminal, tillSaleCandidate(pushed.doc, pushed.id, terminal.limits.currency), decline('id_taken', `Sale id ${pushed.id} belongs to another merchant or mode: the terminal must make a new id`), now, 0)),

    async settle(tx, terminal, documents, now, isolate) {
      if (documents.length === 0) return [];
      const batch = inCapturedOrder(documents, (entry) => tillSaleCandidate(entry.doc, entry.id, terminal.limits.currency)).map(({ candidate: sale, seq }) => ({
        sale,
        seq,
        verdict: verdictOf(terminal, sale, now),
      }));
      if (!isolate) return record(tx, terminal, batch, now);
      const rows: TillSaleRow[] = [];
      for (const entry of batch) {
        const outcome = await inSavepoint(tx, () => record(tx, terminal, [entry], now));
        rows.push(...(outcome.ok ? outcome.value : await record(tx, terminal, [{ ...entry, verdict: SETTLEMENT_FAILED }], now)));
      }
      return rows;
    },
  };
}
