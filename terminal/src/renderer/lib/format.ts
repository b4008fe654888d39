import { formatMoney, toMinor } from '@tapline/shared/money';

/** A session amount (major units, as the API sends it) for people: "NGN 1,250.00". */
export function formatSessionAmount(amount: number, currency: string): string {
  return formatMoney(toMinor(amount, currency), currency);
}
