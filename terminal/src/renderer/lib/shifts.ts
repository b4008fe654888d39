/**
 * Cashier shifts at this till (docs/till.md, "Shifts"): every thing that happens to the drawer is a
 * ShiftEventDoc in the replica (collection `shift_events`, pushed), written before the drawer
 * opens, online or offline alike. What the till knows of its shift is derived from those events:
 * the open shift is an `open` without a `close`; the cash expected at the close is the float + the
 * cash this shift's till sales collected − the cash refunds made in it + paid in − paid out.
 *
 * Documents the server declined do not count (neither do they on the server's side): an `open` it
 * refused (say `cashier_unknown`) is not a shift, a declined paid out is not in its figures.
 */
import type { ShiftEventDoc, ShiftEventKind, TillSaleDoc } from '@tapline/shared/sync-protocol';

/** The shift open at this till: whose it is, since when, and its float. */
export interface OpenShift {
  shiftId: string;
  cashierId: string;
  openedAt: string;
  floatMinor: number;
  currency: string;
}

/** A cash refund given from this till's drawer (collection `drawer_refunds`, this till only). */
export interface DrawerRefundDoc {
  /** The server's refund id (rf_…), or `split-cancel-<till sale id>` for cash a cancelled split sale gave for an ended gift card. */
  id: string;
  shiftId: string;
  cashierId: string;
  /** The refund's cash tenders, minor units. */
  amountMinor: number;
  currency: string;
  createdAt: string;
}

const counts = (doc: { status: string }) => doc.status !== 'declined';

/**
 * The shift open at this till, from its events (this till's only: the replica pulls no other
 * till's): the latest `open` that was not declined and has no `close`. Null when none is open.
 */
export function openShiftOf(events: readonly ShiftEventDoc[]): OpenShift | null {
  const closed = new Set(events.filter((event) => event.kind === 'close').map((event) => event.shiftId));
  const opens = events
    .filter((event) => event.kind === 'open' && counts(event) && !closed.has(event.shiftId))
    .sort((a, b) => b.capturedAt.localeCompare(a.capturedAt));
  const open = opens[0];
  return open === undefined ? null : { shiftId: open.shiftId, cashierId: open.cashierId, openedAt: open.capturedAt, floatMinor: open.amountMinor, currency: open.currency };
}

/** What a till sale put in the drawer: its cash tenders (what each paid, tendered less change). */
export function cashCollected(sale: Pick<TillSaleDoc, 'tenders'>): number {
  return sale.tenders.reduce((sum, tender) => sum + (tender.kind === 'cash' ? tender.amountMinor : 0), 0);
}

/** A shift's drawer in figures (minor units). */
export interface ShiftFigures {
  floatMinor: number;
  cashSalesMinor: number;
  cashRefundsMinor: number;
  paidInMinor: number;
  paidOutMinor: number;
  noSales: number;
}

/** float + cash sales − cash refunds + paid in − paid out: what the drawer should hold. */
export function expectedCashMinor(figures: ShiftFigures): number {
  return figures.floatMinor + figures.cashSalesMinor - figures.cashRefundsMinor + figures.paidInMinor - figures.paidOutMinor;
}

/**
 * The figures of one shift from this till's events, its till sales (accepted or queued, carrying
 * this shiftId) and the cash refunds given from its drawer.
 */
export function shiftFigures(
  shiftId: string,
  events: readonly ShiftEventDoc[],
  sales: readonly Pick<TillSaleDoc, 'shiftId' | 'status' | 'tenders'>[],
  refunds: readonly Pick<DrawerRefundDoc, 'shiftId' | 'amountMinor'>[],
): ShiftFigures {
  const mine = events.filter((event) => event.shiftId === shiftId && counts(event));
  const sum = (kind: ShiftEventKind) => mine.filter((event) => event.kind === kind).reduce((total, event) => total + event.amountMinor, 0);
  return {
    floatMinor: sum('open'),
    cashSalesMinor: sales.filter((sale) => sale.shiftId === shiftId && counts(sale)).reduce((total, sale) => total + cashCollected(sale), 0),
    cashRefundsMinor: refunds.filter((refund) => refund.shiftId === shiftId).reduce((total, refund) => total + refund.amountMinor, 0),
    paidInMinor: sum('paid_in'),
    paidOutMinor: sum('paid_out'),
    noSales: mine.filter((event) => event.kind === 'no_sale').length,
  };
}

export type VarianceKind = 'short' | 'over' | 'balanced';

/** counted − expected: negative is short (money missing from the drawer), positive over. */
export function varianceOf(countedMinor: number, expectedMinor: number): { varianceMinor: number; kind: VarianceKind } {
  const varianceMinor = countedMinor - expectedMinor;
  return { varianceMinor, kind: varianceMinor < 0 ? 'short' : varianceMinor > 0 ? 'over' : 'balanced' };
}

/** What the till writes for one event; the rest (ids, status, time) is filled in by shiftEvent(). */
export interface ShiftEventInput {
  shiftId: string;
  kind: ShiftEventKind;
  cashierId: string;
  amountMinor: number;
  currency: string;
  reason?: string;
  approvedBy?: string;
  expectedMinor?: number;
}

/** A new event as the replica stores it: queued, with a UUID made here (the server's idempotency key). */
export function shiftEvent(input: ShiftEventInput, terminalId: string, now: Date, id: string = crypto.randomUUID()): ShiftEventDoc {
  const reason = input.reason?.trim();
  return {
    id,
    terminalId,
    shiftId: input.shiftId,
    kind: input.kind,
    cashierId: input.cashierId,
    amountMinor: input.amountMinor,
    currency: input.currency,
    capturedAt: now.toISOString(),
    status: 'queued',
    serverSeq: 0,
    ...(reason ? { reason } : {}),
    ...(input.approvedBy === undefined ? {} : { approvedBy: input.approvedBy }),
    ...(input.expectedMinor === undefined ? {} : { expectedMinor: input.expectedMinor }),
  };
}
