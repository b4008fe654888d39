import type { ErrorCodeWith } from './error-codes.ts';
import currencyCodes from 'currency-codes';
import { SUPPORTED_CURRENCIES, isSupportedCurrency } from './countries.ts';
import { AMOUNT_MAJOR_MAX } from './limits.ts';

/**
 * Money crosses the API as decimal major units (12.50) and lives in the ledger as integer minor
 * units (1250). Conversions go through decimal strings, never floating-point arithmetic.
 */

export class MoneyError extends Error {
  readonly code: ErrorCodeWith<400>;
  constructor(code: ErrorCodeWith<400>, message: string) {
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
 * AMOUNT_MAJOR_MAX with a MoneyError whose code names the rule.
 */
export function toMinor(amount: number | string, currency: string): number {
  const { minor } = parseMinor(amount, currency);
  if (minor === 0n) throw new MoneyError('amount_must_not_be_zero', 'Amount must be greater than zero');
  if (minor < 0n) throw new MoneyError('amount_must_be_positive', 'Amount must be positive');
  if (minor > BigInt(AMOUNT_MAJOR_MAX) * 10n ** BigInt(currencyExponent(currency))) {
    throw new MoneyError('amount_too_large', `Amount must not exceed ${AMOUNT_MAJOR_MAX}`);
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

// Exact decimal arithmetic -------------------------------------------------------------------
//
// Rates, percentages and conversions: a value is `units / 10^scale` with BigInt units, so no money
// figure ever passes through binary floating point. Every operation that can lose digits takes
// the rounding rule as an explicit argument; the rule each product uses is named at its call site
// (FX: converted amounts round down, fees up; the shop: discounts down, conversions into the
// wallet's currency up; reports half up).

/** How a result that falls between two representable values is rounded (amounts here are >= 0). */
export type Rounding =
  | 'down' // toward zero (floor for amounts >= 0)
  | 'up' // away from zero (ceil for amounts >= 0)
  | 'half_up' // to the nearest, a tie away from zero
  | 'half_even'; // to the nearest, a tie to the even neighbour (banker's rounding)

/** An exact decimal: units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

const TEN = 10n;

function pow10(exponent: number): bigint {
  return TEN ** BigInt(exponent);
}

/** Parses a decimal string or a JS number (through its shortest round-trip text) exactly. */
export function parseDecimal(input: string | number): Decimal {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const match = /^(-?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match) throw new RangeError(`not a decimal number: ${JSON.stringify(input)}`);
  const [, sign, whole = '0', fraction = '', exponentText] = match;
  let units = BigInt(`${whole}${fraction}`);
  let scale = fraction.length - Number(exponentText ?? 0);
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return normalizeDecimal({ units: sign === '-' ? -units : units, scale });
}

/** Removes trailing zeros: one value, one representation. */
export function normalizeDecimal(value: Decimal): Decimal {
  let { units, scale } = value;
  while (scale > 0 && units % TEN === 0n) {
    units /= TEN;
    scale -= 1;
  }
  return { units, scale };
}

/** Plain decimal text without exponent: "0.0007541". */
export function formatDecimal(value: Decimal): string {
  const { units, scale } = normalizeDecimal(value);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/** The value as a JSON number; exact for values of at most 15 significant digits (our rates). */
export function decimalToNumber(value: Decimal): number {
  return Number(formatDecimal(value));
}

export function multiplyDecimal(a: Decimal, b: Decimal): Decimal {
  return normalizeDecimal({ units: a.units * b.units, scale: a.scale + b.scale });
}

/** numerator / denominator (numerator >= 0, denominator > 0) as an integer, rounded by `rounding`. */
export function divideRounded(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('divideRounded takes a numerator >= 0 and a denominator > 0');
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n || rounding === 'down') return quotient;
  if (rounding === 'up') return quotient + 1n;
  const twice = remainder * 2n;
  if (twice > denominator) return quotient + 1n;
  if (twice < denominator) return quotient;
  return rounding === 'half_up' || quotient % 2n === 1n ? quotient + 1n : quotient;
}

function digitCount(value: bigint): number {
  return (value < 0n ? -value : value).toString().length;
}

/** numerator / denominator (both > 0) rounded to `digits` significant digits. */
function divideSignificant(numerator: bigint, denominator: bigint, digits: number, rounding: Rounding): Decimal {
  if (numerator <= 0n || denominator <= 0n) throw new RangeError('rates and amounts must be positive');
  // Pick the scale at which the integer quotient has exactly `digits` digits.
  let scale = digits - (digitCount(numerator) - digitCount(denominator));
  const quotientAt = (s: number) => (s >= 0 ? (numerator * pow10(s)) / denominator : numerator / (denominator * pow10(-s)));
  while (digitCount(quotientAt(scale)) > digits) scale -= 1;
  while (digitCount(quotientAt(scale)) < digits) scale += 1;
  const quotient = divideRounded(scale >= 0 ? numerator * pow10(scale) : numerator, scale >= 0 ? denominator : denominator * pow10(-scale), rounding);
  if (scale < 0) return { units: quotient * pow10(-scale), scale: 0 };
  return normalizeDecimal({ units: quotient, scale });
}

/** a / b (both > 0) to `digits` significant digits. */
export function divideDecimal(a: Decimal, b: Decimal, digits: number, rounding: Rounding): Decimal {
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale) = a.units * 10^b.scale / (b.units * 10^a.scale)
  return divideSignificant(a.units * pow10(b.scale), b.units * pow10(a.scale), digits, rounding);
}

/** Rounds a positive value to `digits` significant digits. */
export function roundSignificant(value: Decimal, digits: number, rounding: Rounding): Decimal {
  return divideSignificant(value.units, pow10(value.scale), digits, rounding);
}

function asDecimal(value: Decimal | string): Decimal {
  return typeof value === 'string' ? parseDecimal(value) : value;
}

function safeMinor(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyError('amount_too_large', `The ${what} is too large`);
  return Number(value);
}

/**
 * Integer minor units of `from` as integer minor units of `to` at `rate` (units of `to` per 1 unit
 * of `from`, exact): minor x rate x 10^(exponent_to - exponent_from), rounded by `rounding`. The
 * same currency converts to itself unchanged. A result beyond the safe integers is a MoneyError
 * amount_too_large.
 */
export function convertMinor(minor: number, from: string, to: string, rate: Decimal | string, rounding: Rounding): number {
  if (from === to) return minor;
  if (!Number.isSafeInteger(minor) || minor < 0) throw new MoneyError('amount_invalid', 'Minor units must be a safe integer >= 0');
  const exact = asDecimal(rate);
  if (exact.units < 0n) throw new RangeError('a rate must not be negative');
  const shift = currencyExponent(to) - currencyExponent(from);
  let numerator = BigInt(minor) * exact.units;
  let denominator = pow10(exact.scale);
  if (shift >= 0) numerator *= pow10(shift);
  else denominator *= pow10(-shift);
  return safeMinor(divideRounded(numerator, denominator, rounding), 'converted amount');
}

/** `percent` % of integer minor units (amount x percent / 100, exact), rounded by `rounding`: a fee, a discount, a reward. */
export function percentOf(minor: number, percent: Decimal | string, rounding: Rounding): number {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new MoneyError('amount_invalid', 'Minor units must be a safe integer >= 0');
  const exact = asDecimal(percent);
  if (exact.units < 0n) throw new RangeError('a percentage must not be negative');
  return safeMinor(divideRounded(BigInt(minor) * exact.units, 100n * pow10(exact.scale), rounding), 'amount');
}
