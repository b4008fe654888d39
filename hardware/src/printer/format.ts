import { formatMoney } from '@tapline/shared/money';

/** "1,250.00" for (125000, "NGN"), "500" for (500, "XOF"): minor units in, the currency's own decimals out. */
export function formatAmount(minor: number, currency: string): string {
  const text = formatMoney(Math.abs(minor), currency).slice(currency.length + 1);
  return minor < 0 ? `-${text}` : text;
}

/** "NGN 1,250.00". */
export function formatMoneyWithCode(minor: number, currency: string): string {
  return `${currency} ${formatAmount(minor, currency)}`;
}

/** "2026-01-15 10:30" in the merchant's time zone: unambiguous and narrow enough for 32 columns. */
export function formatDateTime(iso: string, timeZone = 'UTC'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) throw new Error(`Not a timestamp: ${JSON.stringify(iso)}`);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}
