// GET /v3/transfers/rates?amount=&destination_currency=&source_currency= (developer.flutterwave.com
// "Transfer Rates"): `amount` is the destination amount; the answer gives `rate` and the source
// amount needed, e.g. 1000 USD from KES: rate 114.9885, source.amount 114988.5 (so source = amount
// x rate). Estimates only: Flutterwave updates them 3 to 4 times a day.
import { currencyExponent, divideRounded, formatDecimal, parseDecimal, toMajor } from '@tapline/shared/money';
import { type FlutterwaveClient, FlutterwaveError, successData } from './client.ts';

export interface TransferRate {
  /** Units of the source currency per unit of the destination currency, as Flutterwave states it. */
  rate: string;
  sourceCurrency: string;
  /** Minor units of the source currency needed, rounded up. */
  sourceAmount: number;
  destinationCurrency: string;
  /** Minor units of the destination currency. */
  destinationAmount: number;
}

/** A decimal major amount as minor units, rounded up (what must be debited). */
function minorUp(value: unknown, currency: string): number {
  const decimal = parseDecimal(typeof value === 'number' || typeof value === 'string' ? value : Number.NaN);
  const exponent = currencyExponent(currency);
  const shift = exponent - decimal.scale;
  const minor = shift >= 0 ? decimal.units * 10n ** BigInt(shift) : divideRounded(decimal.units, 10n ** BigInt(-shift), 'up');
  if (minor < 0n || minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new FlutterwaveError('malformed', `Flutterwave's source amount ${String(value)} ${currency} is out of range`);
  return Number(minor);
}

export function createRates(client: FlutterwaveClient) {
  return async function rate(amount: number, source: string, destination: string): Promise<TransferRate> {
    const what = 'GET /v3/transfers/rates';
    const query = { amount: toMajor(amount, destination), destination_currency: destination, source_currency: source };
    const data = successData(client, await client.request('GET', '/v3/transfers/rates', { query }), what) as { rate?: unknown; source?: { currency?: unknown; amount?: unknown } } | null;
    if (!data || (typeof data.rate !== 'number' && typeof data.rate !== 'string') || !data.source) throw new FlutterwaveError('malformed', `Flutterwave's answer to ${what} holds no rate`);
    let rateText: string;
    let sourceAmount: number;
    try {
      rateText = formatDecimal(parseDecimal(data.rate));
      sourceAmount = minorUp(data.source.amount, source);
    } catch (error) {
      if (error instanceof FlutterwaveError) throw error;
      throw new FlutterwaveError('malformed', `Flutterwave's answer to ${what} has an unreadable rate or amount`);
    }
    return { rate: rateText, sourceCurrency: source, sourceAmount, destinationCurrency: destination, destinationAmount: amount };
  };
}
