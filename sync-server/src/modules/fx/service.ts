import type { Static } from 'typebox';
import { SUPPORTED_CURRENCIES, currencyOfCountry } from '@tapline/shared/countries';
import { FX_QUOTE_TTL_SECONDS } from '@tapline/shared/limits';
import { convertMinor, decimalToNumber, formatDecimal, percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { FxQuoteQuery, FxQuoteResponse, FxRatesResponse, PublicFxResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { badRequest } from '../../http/errors.ts';
import { insertQuote } from './store.ts';

/**
 * What the FX routes answer, from the rate service of the context (`context.fx`, rates.ts): the
 * public indicative rate, a merchant's quote (stored, so a payment can pin its rate while it is
 * valid) and the table of mid rates. Conversions round down and fees up (rates.ts says why).
 */
export function fxService(context: AppContext) {
  const { db, config, now, fx } = context;

  /** Mid-market, no spread, between two countries' currencies (canonical country codes); amountMajor defaults to 1. */
  async function publicRate(from: string, to: string, amountMajor: number | undefined): Promise<Static<typeof PublicFxResponse>> {
    if (from === to) throw badRequest('same_country', 'from and to must be different countries');
    const fromCurrency = currencyOfCountry(from)!;
    const toCurrency = currencyOfCountry(to)!;
    const amount = toMinor(amountMajor ?? 1, fromCurrency);
    const snapshot = await fx.snapshot();
    const rate = fx.midRate(snapshot, fromCurrency, toCurrency);
    return {
      from,
      to,
      fromCurrency,
      toCurrency,
      rate: decimalToNumber(rate),
      amount: toMajor(amount, fromCurrency),
      receive: toMajor(convertMinor(amount, fromCurrency, toCurrency, rate, 'down'), toCurrency),
      asOf: snapshot.asOf,
      updatedAt: snapshot.updatedAt.toISOString(),
    };
  }

  /**
   * A merchant's quote between two supported currencies (canonical codes): the merchant rate (mid
   * less the spread), the rail's estimated fee, valid FX_QUOTE_TTL_SECONDS; on mobile money when
   * no rail is named.
   */
  async function quote(
    merchant: { merchantId: string; mode: Mode },
    request: { from: string; to: string; amount: number; rail: Static<typeof FxQuoteQuery>['rail'] },
  ): Promise<Static<typeof FxQuoteResponse>> {
    const { from, to } = request;
    if (from === to) throw badRequest('same_currency', 'from and to must be different currencies');
    const amount = toMinor(request.amount, from);
    const rail = request.rail ?? 'mobile_money';
    const snapshot = await fx.snapshot();
    const { mid, rate, spreadPercent } = fx.merchantRate(snapshot, from, to);
    const receive = convertMinor(amount, from, to, rate, 'down');
    const fee = percentOf(amount, config.feePercentByRail[rail] ?? '0', 'up');
    const at = now();
    const stored = await insertQuote(db, {
      id: newId('fxq'),
      merchant_id: merchant.merchantId,
      mode: merchant.mode,
      from_currency: from,
      to_currency: to,
      amount,
      mid_rate: formatDecimal(mid),
      rate: formatDecimal(rate),
      spread_pct: spreadPercent,
      fee,
      receive,
      rail,
      as_of: snapshot.asOf,
      expires_at: new Date(at.getTime() + FX_QUOTE_TTL_SECONDS * 1000),
      created_at: at,
    });
    return {
      quoteId: stored.id,
      from,
      to,
      amount: toMajor(amount, from),
      midRate: decimalToNumber(mid),
      rate: decimalToNumber(rate),
      spreadPct: Number(spreadPercent),
      fee: toMajor(fee, from),
      feeCurrency: from,
      receive: toMajor(receive, to),
      rail,
      asOf: snapshot.asOf,
      expiresAt: stored.expires_at.toISOString(),
    };
  }

  /** The mid rate of every ordered pair of supported currencies, or only those from and/or to one (canonical codes). */
  async function rateTable(from: string | undefined, to: string | undefined): Promise<Static<typeof FxRatesResponse>> {
    const snapshot = await fx.snapshot();
    const rates: { from: string; to: string; rate: number }[] = [];
    for (const source of SUPPORTED_CURRENCIES) {
      if (from && source !== from) continue;
      for (const target of SUPPORTED_CURRENCIES) {
        if (source === target || (to && target !== to)) continue;
        rates.push({ from: source, to: target, rate: decimalToNumber(fx.midRate(snapshot, source, target)) });
      }
    }
    return {
      source: snapshot.source,
      asOf: snapshot.asOf,
      updatedAt: snapshot.updatedAt.toISOString(),
      refreshIntervalSeconds: Math.round(config.fxRefreshMs / 1000),
      currencies: [...SUPPORTED_CURRENCIES],
      rates,
    };
  }

  return { publicRate, quote, rateTable };
}

export type FxService = ReturnType<typeof fxService>;
