import { AMOUNT_MAJOR_MAX } from '@tapline/shared/limits';
import { currencyExponent, formatMinor } from '@tapline/shared/money';

/**
 * Cash at the till, the arithmetic: what the customer handed over against what is due, the change
 * to give back, and the quick amounts the Cash screen offers (the currency's common banknotes).
 * Integer minor units throughout, as the till sale document carries them.
 */

/**
 * The banknotes a cashier is commonly handed, in major units, smallest first. A currency not
 * listed gets round-up suggestions instead (cashSuggestions).
 */
export const CASH_NOTES: Readonly<Record<string, readonly number[]>> = {
  NGN: [500, 1000],
  KES: [50, 100, 200, 500, 1000],
  GHS: [5, 10, 20, 50, 100, 200],
  ZAR: [10, 20, 50, 100, 200],
  UGX: [1000, 5000, 10000, 20000, 50000],
  TZS: [1000, 2000, 5000, 10000],
  XOF: [1000, 2000, 5000, 10000],
  XAF: [1000, 2000, 5000, 10000],
  USD: [5, 10, 20, 50],
  EUR: [5, 10, 20, 50],
  GBP: [5, 10, 20, 50],
};

/** At most this many quick amounts besides "Exact amount". */
export const CASH_SUGGESTIONS_MAX = 4;

/** The change for a tender: what goes back to the customer, or how much is still missing. */
export type CashChange = { ok: true; changeMinor: number } | { ok: false; shortMinor: number };

export function cashChange(dueMinor: number, tenderedMinor: number): CashChange {
  if (!Number.isSafeInteger(dueMinor) || dueMinor < 1) throw new RangeError(`the amount due must be a positive integer of minor units, not ${dueMinor}`);
  if (!Number.isSafeInteger(tenderedMinor) || tenderedMinor < 0) throw new RangeError(`the amount tendered must be an integer of minor units from 0 up, not ${tenderedMinor}`);
  return tenderedMinor >= dueMinor ? { ok: true, changeMinor: tenderedMinor - dueMinor } : { ok: false, shortMinor: dueMinor - tenderedMinor };
}

/** The smallest multiple of `step` that is at least `amount` (integers). */
function roundUp(amount: number, step: number): number {
  return Math.ceil(amount / step) * step;
}

/** 5, 10, 50, 100, 500, ... major units, as minor units, from `fromMajor` up to the first past `dueMinor`'s ten-fold. */
function roundSteps(unit: number, fromMajor: number, dueMinor: number): number[] {
  const steps: number[] = [];
  for (let power = 1; power <= AMOUNT_MAJOR_MAX; power *= 10) {
    for (const major of [power, 5 * power]) {
      if (major < fromMajor) continue;
      steps.push(major * unit);
      if (major * unit > dueMinor * 10) return steps;
    }
  }
  return steps;
}

/**
 * The quick amounts offered for what is due, besides "Exact amount", smallest first: each common
 * note that covers it alone, and the amount due rounded up to a whole number of a smaller note
 * (KES 130: 150, 200, 500, 1,000). Past the largest note (NGN 2,750: 3,000), round figures of
 * five and ten of it are added (5,000, 10,000). A currency without a note table gets the amount
 * rounded up to 5, 10, 50, 100... major units (EGP 137.50: 140, 150, 200, 500). Never the exact
 * amount, never less than it.
 */
export function cashSuggestions(dueMinor: number, currency: string, max = CASH_SUGGESTIONS_MAX): number[] {
  if (!Number.isSafeInteger(dueMinor) || dueMinor < 1) return [];
  const unit = 10 ** currencyExponent(currency);
  const ceiling = AMOUNT_MAJOR_MAX * unit;
  const above = (steps: readonly number[]) => steps.map((step) => roundUp(dueMinor, step)).filter((amount) => amount > dueMinor && amount <= ceiling);
  const notes = CASH_NOTES[currency]?.map((note) => note * unit);
  let amounts: number[];
  if (notes === undefined) amounts = above(roundSteps(unit, 5, dueMinor));
  else {
    amounts = above(notes);
    const largest = notes.at(-1)!;
    if (new Set(amounts).size < 2) amounts.push(...above([5 * largest, 10 * largest]));
  }
  return [...new Set(amounts)].sort((a, b) => a - b).slice(0, max);
}

/**
 * An amount as the keypad's entry text ("500" for NGN 500.00, "12.50", "1500" for XOF 1,500), so
 * a quick amount lands on the display as if it had been typed.
 */
export function entryForMinor(minor: number, currency: string): string {
  const text = formatMinor(minor, currency);
  return text.includes('.') && /\.0+$/.test(text) ? text.replace(/\.0+$/, '') : text;
}
