// The till pages' records (GET /api/merchant/staff and /api/merchant/shifts) and what the pages
// work out from them: how a count came out, and the per-cashier summary of a list of shifts.
import type { Answer, ListItem } from '@tapline/shared/api';
import { minorFromMajor, toMajor } from '@tapline/shared/money';

export type StaffRole = 'cashier' | 'manager';
export const STAFF_ROLES: readonly StaffRole[] = ['cashier', 'manager'];

/** A member of the till staff as the API answers (never the PIN). */
export type Staff = ListItem<'/api/merchant/staff'>;

export type ShiftStatus = 'open' | 'closed';
export const SHIFT_STATUSES: readonly ShiftStatus[] = ['open', 'closed'];

/** A cashier's shift at a till; amounts in major units of `currency`. */
export type Shift = ListItem<'/api/merchant/shifts'>;

/** A shift with its events (GET /api/merchant/shifts/{id}). */
export type ShiftDetail = Answer<'GET', '/api/merchant/shifts/{id}'>;
export type ShiftEvent = ShiftDetail['events'][number];
export type ShiftEventKind = ShiftEvent['kind'];

/** How a count came out: short (less cash than expected), over, balanced; null before the count. */
export type VarianceTone = 'short' | 'over' | 'balanced';

export function varianceTone(variance: number | null): VarianceTone | null {
  if (variance === null) return null;
  return variance < 0 ? 'short' : variance > 0 ? 'over' : 'balanced';
}

/** One cashier's shifts in one currency: how many, how many closed and counted short, their variances added up. */
export interface CashierSummary {
  cashierId: string;
  cashierName: string | null;
  currency: string;
  shifts: number;
  closed: number;
  /** Shifts with a variance (closed with a count against what the till expected). */
  counted: number;
  short: number;
  /** The counted shifts' variances added up, major units. */
  variance: number;
}

/**
 * The per-cashier summary of a list of shifts, by name (then id). A cashier who worked tills in two
 * currencies has a line per currency: amounts in different currencies are never added. The
 * variances are added in minor units, so 0.1 + 0.2 is 0.3.
 */
export function cashierSummaries(shifts: readonly Shift[]): CashierSummary[] {
  const lines = new Map<string, CashierSummary & { varianceMinor: number }>();
  for (const shift of shifts) {
    const key = `${shift.cashierId}\u0000${shift.currency}`;
    let line = lines.get(key);
    if (!line) {
      line = { cashierId: shift.cashierId, cashierName: shift.cashierName, currency: shift.currency, shifts: 0, closed: 0, counted: 0, short: 0, variance: 0, varianceMinor: 0 };
      lines.set(key, line);
    }
    line.shifts += 1;
    line.cashierName ??= shift.cashierName;
    if (shift.status === 'closed') line.closed += 1;
    if (shift.variance !== null) {
      line.counted += 1;
      const minor = minorFromMajor(shift.variance, shift.currency);
      line.varianceMinor += minor;
      if (minor < 0) line.short += 1;
    }
  }
  return [...lines.values()]
    .map(({ varianceMinor, ...line }) => ({ ...line, variance: toMajor(varianceMinor, line.currency) }))
    .sort((a, b) => (a.cashierName ?? '\uffff').localeCompare(b.cashierName ?? '\uffff') || a.cashierId.localeCompare(b.cashierId) || a.currency.localeCompare(b.currency));
}

/** A PIN the API takes: 4 to 8 digits. */
export const PIN_PATTERN = /^[0-9]{4,8}$/;
