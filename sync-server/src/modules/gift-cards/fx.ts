import { currencyExponent } from '@tapline/shared/money';
import { unprocessable } from '../../http/errors.ts';
import { type FxRateService, formatDecimal } from '../fx/index.ts';

/**
 * The narrow seam gift cards need from FX: the mid-market rate between two currencies as an
 * exact decimal string (units of `to` per 1 unit of `from`) and the as-of date of its table.
 * fxServiceRateSource() below wires it to the app's FX service; tests may pass any other.
 */
export interface RateSource {
  rate(from: string, to: string): Promise<{ rate: string; asOf: string }>;
}

/** A positive decimal string as an exact fraction: digits / 10^scale. */
export function decimalFraction(decimal: string): { digits: bigint; scale: number } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!match) throw new Error(`not a positive decimal: ${decimal}`);
  const [, whole = '0', fraction = ''] = match;
  return { digits: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

export type Rounding = 'floor' | 'half_up';

/**
 * Converts integer minor units of `from` into integer minor units of `to` at `rate` (a decimal
 * string, units of `to` per unit of `from`), in exact integer arithmetic:
 * minor_to = minor_from x rate x 10^(exponent_to - exponent_from), then rounded.
 * Redemptions round down (`floor`: the FX desk never pays out a fraction it did not receive);
 * reports round half up.
 */
export function convertMinor(minor: number, from: string, to: string, rate: string, rounding: Rounding): number {
  if (from === to) return minor;
  const { digits, scale } = decimalFraction(rate);
  const exponentShift = currencyExponent(to) - currencyExponent(from);
  let numerator = BigInt(minor) * digits;
  let denominator = 10n ** BigInt(scale);
  if (exponentShift >= 0) numerator *= 10n ** BigInt(exponentShift);
  else denominator *= 10n ** BigInt(-exponentShift);
  let result = numerator / denominator;
  if (rounding === 'half_up' && (numerator % denominator) * 2n >= denominator) result += 1n;
  const converted = Number(result);
  if (!Number.isSafeInteger(converted)) throw unprocessable('amount_too_large', 'The converted amount is too large');
  return converted;
}

/**
 * The seam wired to the FX rate service of the app context (modules/fx: the pinned
 * @fawazahmed0/currency-api USD table by default, FX_SOURCE_URL when set, refreshed every 5
 * minutes): its mid-market rate, as an exact decimal string, and the as-of date of its table.
 * Gift-card redemptions use the mid rate without the merchant spread.
 */
export function fxServiceRateSource(fx: Pick<FxRateService, 'snapshot' | 'midRate'>): RateSource {
  return {
    async rate(from, to) {
      const snapshot = await fx.snapshot();
      return { rate: formatDecimal(fx.midRate(snapshot, from, to)), asOf: snapshot.asOf };
    },
  };
}
