import currencyCodes from 'currency-codes';
import { SUPPORTED_CURRENCIES, isSupportedCurrency } from './countries.ts';

/**
 * Money crosses the API as decimal major units (12.50) and lives in the ledger as integer minor
 * units (1250). Conversions go through decimal strings, never floating-point arithmetic.
 */

/** The largest amount, in major units, that the API accepts (CONTRACT.md: over 1e12 is a 400). */
export const MAX_MAJOR_AMOUNT = 1e12;

export class MoneyError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'MoneyError';
    this.code = code;
  }
}

const exponents = new Map<string, number>();
for (const code of SUPPORTED_CURRENCIES) {
  const entry = currencyCodes.code(code);
  if (!entry) throw new Error(`currency-codes has no ISO 4217 entry for ${code}`);
  exponents.set(code, entry.digits);
}

/** The ISO 4217 exponent (number of decimal places) of a supported currency. */
export function currencyExponent(currency: string): number {
  const exponent = exponents.get(currency);
  if (exponent === undefined) throw new MoneyError('currency_not_supported', `Currency ${currency} is not supported`);
  return exponent;
}

export { isSupportedCurrency };

/** Renders a JS number as a plain decimal string ("1e-7" becomes "0.0000001"), or null if not finite. */
function plainDecimal(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  const text = String(value);
  if (!/e/i.test(text)) return text;
  // Exponent form only appears for very small or very large magnitudes; expand it exactly.
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return null;
  const [, sign, intPart, fracPart = '', expText] = match;
  const digits = `${intPart}${fracPart}`;
  const pointAt = (intPart ?? '').length + Number(expText);
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
  return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/** A decimal amount in major units as signed integer minor units, exactly (a MoneyError when it is not one). */
function parseMinor(amount: number | string, currency: string): { minor: bigint; text: string } {
  const exponent = currencyExponent(currency);
  const text = typeof amount === 'number' ? plainDecimal(amount) : amount.trim();
  if (text === null || text === '') throw new MoneyError('amount_must_be_finite', 'Amount must be a finite number');
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new MoneyError('amount_invalid', `Amount ${JSON.stringify(amount)} is not a decimal number`);
  const [, sign, intPart = '0', rawFraction = ''] = match;
  const fraction = rawFraction.replace(/0+$/, '');
  if (fraction.length > exponent) {
    throw new MoneyError('amount_too_many_decimals', `${currency} amounts take at most ${exponent} decimal place${exponent === 1 ? '' : 's'}`);
  }
  const minor = BigInt(intPart) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0');
  return { minor: sign === '-' ? -minor : minor, text };
}

/**
 * Parses a positive decimal amount in major units (a JSON number or a decimal string) into
 * integer minor units. Rejects non-finite, zero, negative, too many decimals and amounts over
 * MAX_MAJOR_AMOUNT with a MoneyError whose code names the rule.
 */
export function toMinor(amount: number | string, currency: string): number {
  const { minor } = parseMinor(amount, currency);
  if (minor === 0n) throw new MoneyError('amount_must_not_be_zero', 'Amount must be greater than zero');
  if (minor < 0n) throw new MoneyError('amount_must_be_positive', 'Amount must be positive');
  if (minor > BigInt(MAX_MAJOR_AMOUNT) * 10n ** BigInt(currencyExponent(currency))) {
    throw new MoneyError('amount_too_large', `Amount must not exceed ${MAX_MAJOR_AMOUNT}`);
  }
  return Number(minor);
}

/**
 * A major-unit amount the API answered (a balance may be 0, a refund negative) as integer minor
 * units, exactly, for display: toMinor without the rules of an amount to charge.
 */
export function minorFromMajor(amount: number, currency: string): number {
  const { minor } = parseMinor(amount, currency);
  if (minor > BigInt(Number.MAX_SAFE_INTEGER) || minor < -BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyError('amount_too_large', 'Amount is too large to display');
  return Number(minor);
}

/** Formats integer minor units as a decimal string in major units: (1250, 'NGN') -> "12.50". */
export function formatMinor(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new MoneyError('amount_invalid', 'Minor units must be a safe integer');
  const exponent = currencyExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${negative ? '-' : ''}${whole}${exponent > 0 ? `.${fraction}` : ''}`;
}

/** Minor units as a JSON number in major units: (1250, 'NGN') -> 12.5. Exact for safe integers. */
export function toMajor(minor: number, currency: string): number {
  return Number(formatMinor(minor, currency));
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** One Intl.NumberFormat per locale, currency and style (they are costly to build), pinned to the ISO 4217 exponent. */
function numberFormat(locale: string, currency: string, style: 'currency' | 'decimal'): Intl.NumberFormat {
  const key = `${locale}|${currency}|${style}`;
  let format = numberFormats.get(key);
  if (format === undefined) {
    const digits = currencyExponent(currency);
    // The ISO exponent, not CLDR's own digits for the currency: what is shown is what the ledger holds.
    format = new Intl.NumberFormat(locale, { style, currency, currencyDisplay: 'code', minimumFractionDigits: digits, maximumFractionDigits: digits });
    numberFormats.set(key, format);
  }
  return format;
}

/**
 * Integer minor units for people, in the locale's conventions: (125000, 'NGN', 'en') ->
 * "NGN 1,250.00", 'fr' -> "1 250,00 NGN", (150000, 'UGX') -> "UGX 150,000", (1250125, 'TND',
 * 'fr') -> "1 250,125 TND". Intl formats the exact decimal string of formatMinor (Intl's
 * string input), never a floating-point number, so any safe integer prints digit for digit.
 * The spaces are Intl's non-breaking ones (U+00A0, and U+202F between French digit groups), so
 * an amount never wraps across lines; the receipt printer turns them into plain spaces.
 */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  return numberFormat(locale, currency, 'currency').format(formatMinor(minor, currency) as Intl.StringNumericLiteral);
}

/** The number alone, grouped as formatMoney groups it: (125000, 'NGN', 'fr') -> "1 250,00" (receipt columns). */
export function formatAmount(minor: number, currency: string, locale = 'en'): string {
  return numberFormat(locale, currency, 'decimal').format(formatMinor(minor, currency) as Intl.StringNumericLiteral);
}
