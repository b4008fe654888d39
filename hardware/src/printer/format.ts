import type { Translator } from '@tapline/shared/i18n';

/**
 * Receipt printers' code pages have no non-breaking spaces: Intl's (U+00A0, and U+202F between
 * French digit groups) print as plain spaces instead of "?".
 */
function printable(text: string): string {
  return text.replace(/[\u00a0\u202f]/g, ' ');
}

/** "1,250.00" for (125000, "NGN") in English, "1 250,00" in French: the number in the receipt's language. */
export function formatAmount(t: Translator, minor: number, currency: string): string {
  return printable(t.amount(minor, currency));
}

/** "NGN 1,250.00" in English, "1 250,00 NGN" in French: the one money format of shared/money.ts. */
export function formatMoneyWithCode(t: Translator, minor: number, currency: string): string {
  return printable(t.money(minor, currency));
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
