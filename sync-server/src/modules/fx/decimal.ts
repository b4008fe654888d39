import { currencyExponent } from '@tapline/shared/money';

/**
 * Exact decimal arithmetic for FX: a value is `units / 10^scale` with BigInt units, so no money
 * figure ever passes through binary floating point. The rules, stated once:
 *
 * - A mid-market cross rate from/to is USD->to divided by USD->from (the published USD table),
 *   rounded half-even to RATE_SIGNIFICANT_DIGITS significant digits.
 * - The merchant's rate is the mid rate times (1 - spread/100), rounded DOWN to the same number of
 *   significant digits (the platform's favour).
 * - A converted amount is floor(amount_minor x rate x 10^(exponent_to - exponent_from)) minor units
 *   of the target currency: rounded DOWN to the minor unit (the platform's favour).
 * - A fee is ceil(amount_minor x percent / 100) minor units: rounded UP (the platform's favour).
 */
export interface Decimal {
  units: bigint;
  scale: number;
}

export const RATE_SIGNIFICANT_DIGITS = 10;

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
  return normalize({ units: sign === '-' ? -units : units, scale });
}

/** Removes trailing zeros: one value, one representation. */
export function normalize(value: Decimal): Decimal {
  let { units, scale } = value;
  while (scale > 0 && units % TEN === 0n) {
    units /= TEN;
    scale -= 1;
  }
  return { units, scale };
}

/** Plain decimal text without exponent: "0.0007541". */
export function formatDecimal(value: Decimal): string {
  const { units, scale } = normalize(value);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`;
}

/** The value as a JSON number; exact for our rates, which have at most 15 significant digits. */
export function decimalToNumber(value: Decimal): number {
  return Number(formatDecimal(value));
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return normalize({ units: a.units * b.units, scale: a.scale + b.scale });
}

function digitCount(value: bigint): number {
  return (value < 0n ? -value : value).toString().length;
}

export type Rounding = 'half_even' | 'down' | 'up';

/** numerator / denominator (both > 0) rounded to `digits` significant digits. */
function divideRational(numerator: bigint, denominator: bigint, digits: number, rounding: Rounding): Decimal {
  if (numerator <= 0n || denominator <= 0n) throw new RangeError('rates and amounts must be positive');
  // Pick the scale at which the integer quotient has exactly `digits` digits.
  let scale = digits - (digitCount(numerator) - digitCount(denominator));
  const quotientAt = (s: number) => (s >= 0 ? (numerator * pow10(s)) / denominator : numerator / (denominator * pow10(-s)));
  while (digitCount(quotientAt(scale)) > digits) scale -= 1;
  while (digitCount(quotientAt(scale)) < digits) scale += 1;
  const scaledNumerator = scale >= 0 ? numerator * pow10(scale) : numerator;
  const scaledDenominator = scale >= 0 ? denominator : denominator * pow10(-scale);
  let quotient = scaledNumerator / scaledDenominator;
  const remainder = scaledNumerator % scaledDenominator;
  if (remainder !== 0n) {
    if (rounding === 'up') quotient += 1n;
    else if (rounding === 'half_even') {
      const twice = remainder * 2n;
      if (twice > scaledDenominator || (twice === scaledDenominator && quotient % 2n === 1n)) quotient += 1n;
    }
  }
  if (scale < 0) return { units: quotient * pow10(-scale), scale: 0 };
  return normalize({ units: quotient, scale });
}

/** a / b to `digits` significant digits. */
export function divide(a: Decimal, b: Decimal, digits: number, rounding: Rounding): Decimal {
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale) = a.units * 10^b.scale / (b.units * 10^a.scale)
  return divideRational(a.units * pow10(b.scale), b.units * pow10(a.scale), digits, rounding);
}

/** Rounds a positive value to `digits` significant digits. */
export function roundSignificant(value: Decimal, digits: number, rounding: Rounding): Decimal {
  return divideRational(value.units, pow10(value.scale), digits, rounding);
}

/** The mid-market cross rate from -> to, given each currency's units per 1 USD. */
export function crossRate(usdToFrom: Decimal, usdToTo: Decimal): Decimal {
  return divide(usdToTo, usdToFrom, RATE_SIGNIFICANT_DIGITS, 'half_even');
}

/** The mid rate less a spread in percent ("1.25"), rounded down. A zero spread keeps the mid rate. */
export function applySpread(mid: Decimal, spreadPercent: string): Decimal {
  const spread = parseDecimal(spreadPercent);
  if (spread.units === 0n) return mid;
  // mid * (100 - spread) / 100
  const factor = { units: 100n * pow10(spread.scale) - spread.units, scale: spread.scale + 2 };
  if (factor.units <= 0n) throw new RangeError('spread must be below 100%');
  return roundSignificant(multiply(mid, factor), RATE_SIGNIFICANT_DIGITS, 'down');
}

/** floor(amountMinor x rate) in the target currency's minor units. */
export function convertMinor(amountMinor: number, fromCurrency: string, rate: Decimal, toCurrency: string): number {
  const shift = currencyExponent(toCurrency) - currencyExponent(fromCurrency);
  // amount * rate.units * 10^shift / 10^rate.scale, floored (all positive).
  let numerator = BigInt(amountMinor) * rate.units;
  let denominator = pow10(rate.scale);
  if (shift >= 0) numerator *= pow10(shift);
  else denominator *= pow10(-shift);
  const result = numerator / denominator;
  if (result > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('converted amount is too large');
  return Number(result);
}

/** ceil(amountMinor x percent / 100): a fee in the same currency's minor units. */
export function feeMinor(amountMinor: number, percent: string): number {
  const rate = parseDecimal(percent);
  if (rate.units === 0n) return 0;
  const numerator = BigInt(amountMinor) * rate.units;
  const denominator = 100n * pow10(rate.scale);
  const fee = (numerator + denominator - 1n) / denominator;
  return Number(fee);
}
