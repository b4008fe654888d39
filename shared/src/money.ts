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

/**
 * Parses a positive decimal amount in major units (a JSON number or a decimal string) into
 * integer minor units. Rejects non-finite, zero, negative, too many decimals and amounts over
 * MAX_MAJOR_AMOUNT with a MoneyError whose code names the rule.
 */
export function toMinor(amount: number | string, currency: string): number {
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
  if (minor === 0n) throw new MoneyError('amount_must_not_be_zero', 'Amount must be greater than zero');
  if (sign === '-') throw new MoneyError('amount_must_be_positive', 'Amount must be positive');
  if (minor > BigInt(MAX_MAJOR_AMOUNT) * 10n ** BigInt(exponent)) {
    throw new MoneyError('amount_too_large', `Amount must not exceed ${MAX_MAJOR_AMOUNT}`);
  }
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

/** Formats for people: "NGN 1,250.00". */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  const exponent = currencyExponent(currency);
  const [whole = '0', fraction] = formatMinor(Math.abs(minor), currency).split('.');
  const grouped = new Intl.NumberFormat(locale, { useGrouping: true }).format(BigInt(whole));
  return `${minor < 0 ? '-' : ''}${currency} ${grouped}${exponent > 0 ? `.${fraction}` : ''}`;
}
