// How one UTC day's live payouts, collections and bill payments through a provider are judged
// against the provider's own record. Pure: no database, no network. service.ts gathers both sides
// and records what this answers. A payout, a collection and a bill are judged alike (money
// decides); each keeps its direction, and ids are matched within one direction only.
import type { PaymentStatus } from '../payments/index.ts';

/** payout: money Tapline sends out; collection: money a phone pays in; bill: a bill (airtime, electricity, TV) the provider pays for a wallet. */
export type Direction = 'payout' | 'collection' | 'bill';
/** A collection's status (modules/collections): expired and cancelled moved no money, like failed. A bill's (modules/bills) is pending, completed or failed. */
export type CollectionState = 'pending' | 'completed' | 'failed' | 'expired' | 'cancelled';

/** One transaction as the provider's own records show it, for the daily reconciliation. */
export interface ProviderTransaction {
  /** Our payment or collection id, recovered from the provider's idempotency key. */
  id: string;
  providerReference: string | null;
  direction: 'payout' | 'collection';
  status: 'pending' | 'completed' | 'failed' | 'reversed';
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
}

export type MismatchKind = 'provider_only' | 'ours_only' | 'amount_differs' | 'status_differs';

/**
 * A payout, a collection or a bill as we show it: a payout's destination amount (minor units) is
 * what the provider pays; a collection's amount + fee is what the provider collects from the phone;
 * a bill's amount (its fee is Tapline's) is what the provider pays the biller.
 */
export interface OurPayout {
  /** Our payment, collection or bill id. */
  paymentId: string;
  /** Absent: a payout. */
  direction?: Direction;
  status: PaymentStatus | CollectionState;
  amount: number;
  currency: string;
  providerReference: string | null;
}

/** A payout as the provider shows it; amount and currency null when its answer carries none (a status query by key). */
export interface TheirPayout {
  /** Our payment id the provider's key maps to (idOf); undefined when the key is not one of ours. */
  paymentId: string | undefined;
  /** Absent: a payout. */
  direction?: Direction;
  providerReference: string | null;
  status: ProviderTransaction['status'];
  amount: number | null;
  currency: string | null;
}

export interface Mismatch {
  kind: MismatchKind;
  direction: Direction;
  /** Our payment, collection or bill id; null when the provider's record is none of ours. */
  paymentId: string | null;
  providerReference: string | null;
  ours: { status: OurPayout['status']; amount: number; currency: string } | null;
  theirs: { status: ProviderTransaction['status']; amount: number | null; currency: string | null } | null;
}

/** Minor units per currency, keys in alphabetical order. */
export type Totals = Record<string, number>;

export interface DayComparison {
  matched: number;
  mismatches: Mismatch[];
  /** Our payouts of the day we show completed, per currency. */
  ourTotals: Totals;
  /** The provider's completed payouts of the day, per currency (by key: our amounts of the ones it confirms paid). */
  providerTotals: Totals;
  /** Our payouts of the day still pending or processing, per currency of every payout of the day (0: the clearing nets to zero). */
  clearingNet: Totals;
}

const OPEN: ReadonlySet<OurPayout['status']> = new Set(['pending', 'processing']);

/**
 * One payout, both sides: 'matched', a mismatch, or undefined (a provider transaction that is
 * none of ours and moved no money: nothing to say). Money decides: a payout that is paid on one
 * side only is provider_only / ours_only; states that disagree without money known to have gone
 * on one side only (a reversal we did not record, a provider still working on what we closed)
 * are status_differs; failed against reversed, or never sent against never heard of, both mean
 * nothing left, and match.
 */
export function judge(ours: OurPayout | undefined, theirs: TheirPayout | undefined): MismatchKind | 'matched' | undefined {
  if (!ours) {
    if (!theirs) return undefined;
    // Paid, or paying, something we do not know: provider_only. Failed or reversed: no money out.
    return theirs.status === 'completed' || theirs.status === 'pending' ? 'provider_only' : undefined;
  }
  if (!theirs) return ours.status === 'completed' ? 'ours_only' : 'matched';
  if (OPEN.has(ours.status)) return theirs.status === 'pending' ? 'matched' : 'status_differs';
  switch (ours.status) {
    case 'completed':
      if (theirs.status === 'failed') return 'ours_only';
      if (theirs.status !== 'completed') return 'status_differs';
      if (theirs.amount !== null && (theirs.amount !== ours.amount || theirs.currency !== ours.currency)) return 'amount_differs';
      return 'matched';
    default:
      // failed or reversed (a collection: failed, expired or cancelled): nothing paid on our side.
      if (theirs.status === 'completed') return 'provider_only';
      if (theirs.status === 'pending') return 'status_differs';
      return 'matched';
  }
}

function add(totals: Map<string, number>, currency: string, amount: number): void {
  totals.set(currency, (totals.get(currency) ?? 0) + amount);
}

function sorted(totals: Map<string, number>): Totals {
  return Object.fromEntries([...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function mismatchOf(kind: MismatchKind, ours: OurPayout | undefined, theirs: TheirPayout | undefined): Mismatch {
  return {
    kind,
    direction: ours?.direction ?? theirs?.direction ?? 'payout',
    // Null for a payout unknown to us, even when the provider's key decodes to an id: no payment has it.
    paymentId: ours?.paymentId ?? null,
    providerReference: theirs?.providerReference ?? ours?.providerReference ?? null,
    ours: ours ? { status: ours.status, amount: ours.amount, currency: ours.currency } : null,
    theirs: theirs ? { status: theirs.status, amount: theirs.amount, currency: theirs.currency } : null,
  };
}

/**
 * The day compared: `ours` are our payouts made that day, `theirs` what the provider says (its
 * record of the day, or its answers about ours by key), `elsewhere` our payouts of another day
 * that the provider's record of this day names (made just before midnight, recorded by the
 * provider just after): judged like the day's own, but outside our totals of the day.
 */
export function compareDay(input: { ours: readonly OurPayout[]; theirs: readonly TheirPayout[]; elsewhere: readonly OurPayout[] }): DayComparison {
  const keyOf = (direction: Direction | undefined, id: string) => `${direction ?? 'payout'}:${id}`;
  const ourDay = new Map(input.ours.map((payout) => [keyOf(payout.direction, payout.paymentId), payout]));
  const elsewhere = new Map(input.elsewhere.map((payout) => [keyOf(payout.direction, payout.paymentId), payout]));
  const answered = new Set<string>();
  const mismatches: Mismatch[] = [];
  let matched = 0;
  const providerTotals = new Map<string, number>();

  const record = (ours: OurPayout | undefined, theirs: TheirPayout | undefined) => {
    const verdict = judge(ours, theirs);
    if (verdict === 'matched') matched += 1;
    else if (verdict) mismatches.push(mismatchOf(verdict, ours, theirs));
  };

  for (const theirs of input.theirs) {
    const id = theirs.paymentId === undefined ? undefined : keyOf(theirs.direction, theirs.paymentId);
    const ours = id === undefined ? undefined : (ourDay.get(id) ?? elsewhere.get(id));
    if (theirs.status === 'completed') {
      const currency = theirs.currency ?? ours?.currency;
      const amount = theirs.amount ?? ours?.amount;
      if (currency !== undefined && amount !== undefined) add(providerTotals, currency, amount);
    }
    if (ours && answered.has(keyOf(ours.direction, ours.paymentId))) {
      // A second record of the provider under one of our keys: paid twice is money we do not show.
      if (theirs.status === 'completed' || theirs.status === 'pending') mismatches.push(mismatchOf('provider_only', ours, theirs));
      continue;
    }
    if (ours) answered.add(keyOf(ours.direction, ours.paymentId));
    record(ours, theirs);
  }
  for (const ours of input.ours) if (!answered.has(keyOf(ours.direction, ours.paymentId))) record(ours, undefined);

  const ourTotals = new Map<string, number>();
  const clearingNet = new Map<string, number>();
  for (const ours of input.ours) {
    if (ours.status === 'completed') add(ourTotals, ours.currency, ours.amount);
    add(clearingNet, ours.currency, OPEN.has(ours.status) ? ours.amount : 0);
  }
  return { matched, mismatches, ourTotals: sorted(ourTotals), providerTotals: sorted(providerTotals), clearingNet: sorted(clearingNet) };
}
