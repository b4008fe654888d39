import { MoneyError, type Rounding, convertMinor as convertExactly, currencyExponent, formatDecimal } from '@tapline/shared/money';
import { unprocessable } from '../../http/errors.ts';
import type { FxRateService } from './rates.ts';

/**
 * The narrow seam a module needs from FX (gift cards, the shop, tier and offline limits): the mid-market rate between two currencies as an
 * exact decimal string (units of `to` per 1 unit of `from`) and the as-of date of its table.
 * fxServiceRateSource() below wires it to the app's FX service; tests may pass any other.
 */
export interface RateSource {
  rate(from: string, to: string): Promise<{ rate: string; asOf: string }>;
}

/**
 * Converts integer minor units of `from` into integer minor units of `to` at `rate` (a decimal
 * string, units of `to` per unit of `from`): convertMinor of @tapline/shared/money, with a result
 * too large for the ledger answered as 422 amount_too_large. Redemptions round down (the FX desk
 * never pays out a fraction it did not receive); reports round half up.
 */
export function convertMinor(minor: number, from: string, to: string, rate: string, rounding: Rounding): number {
  try {
    return convertExactly(minor, from, to, rate, rounding);
  } catch (error) {
    if (error instanceof MoneyError && error.code === 'amount_too_large') throw unprocessable('amount_too_large', 'The converted amount is too large');
    throw error;
  }
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

/**
 * A default converted from US dollars, rounded down to whole major units and then to two
 * significant figures (a merchant reads NGN 26,000, not NGN 26,523.28): 0 to 99 major units
 * stay as they are, 26,523.28 becomes 26,000 and 265,232.80 becomes 260,000. Never more than
 * the converted amount, so a default is never looser than the dollars configured.
 */
export function roundLimitDown(minor: number, currency: string): number {
  const unit = 10 ** currencyExponent(currency);
  const major = Math.floor(minor / unit);
  const step = major < 100 ? 1 : 10 ** (String(major).length - 2);
  return Math.floor(major / step) * step * unit;
}
