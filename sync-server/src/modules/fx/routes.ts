import type { TypedApp } from '../../http/typed-app.ts';
import { SUPPORTED_CURRENCIES, currencyOfCountry } from '@tapline/shared/countries';
import { FX_QUOTE_TTL_SECONDS } from '@tapline/shared/limits';
import { convertMinor, decimalToNumber, formatDecimal, percentOf, toMajor, toMinor } from '@tapline/shared/money';
import { ErrorBody, FX_ROUNDING_RULES, FxQuoteQuery, FxQuoteResponse, FxRatesQuery, FxRatesResponse, PublicFxQuery, PublicFxResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest } from '../../http/errors.ts';
import { supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { insertQuote } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

export async function fxRoutes(app: TypedApp, { db, config, now, fx }: AppContext): Promise<void> {
  app.get('/api/fx', {
    schema: {
      tags: ['fx'],
      summary: 'Public indicative rate between two countries\' currencies (mid-market, no spread)',
      description: `from and to are ISO 3166-1 country codes; from == to is a 400. ${FX_ROUNDING_RULES}`,
      querystring: PublicFxQuery,
      response: { 200: PublicFxResponse, 400: ErrorBody, 429: ErrorBody },
    },
  }, async (request) => {
    const query = request.query;
    const from = supportedCountry(query.from, 'from');
    const to = supportedCountry(query.to, 'to');
    if (from === to) throw badRequest('same_country', 'from and to must be different countries');
    const fromCurrency = currencyOfCountry(from)!;
    const toCurrency = currencyOfCountry(to)!;
    const amount = toMinor(query.amount ?? 1, fromCurrency);
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
  });

  app.get('/api/fx/quote', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['fx'],
      summary: 'A quote with the merchant spread and an estimated fee, valid 60 seconds',
      description: `from and to are ISO 4217 currency codes; from == to is a 400. POST /api/pay with quoteId uses the quote's rate while it is valid (after that: 410 quote_expired). ${FX_ROUNDING_RULES}`,
      querystring: FxQuoteQuery,
      response: { 200: FxQuoteResponse, ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const from = supportedCurrency(query.from, 'from');
    const to = supportedCurrency(query.to, 'to');
    if (from === to) throw badRequest('same_currency', 'from and to must be different currencies');
    const amount = toMinor(query.amount, from);
    const rail = query.rail ?? 'mobile_money';
    const snapshot = await fx.snapshot();
    const { mid, rate, spreadPercent } = fx.merchantRate(snapshot, from, to);
    const receive = convertMinor(amount, from, to, rate, 'down');
    const fee = percentOf(amount, config.feePercentByRail[rail] ?? '0', 'up');
    const at = now();
    const quote = await insertQuote(db, {
      id: newId('fxq'),
      merchant_id: principal.merchantId,
      mode: principal.mode,
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
      quoteId: quote.id,
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
      expiresAt: quote.expires_at.toISOString(),
    };
  });

  app.get('/api/fx/rates', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['fx'],
      summary: 'Mid-market rates for every pair of supported currencies',
      description: `Cross rates through USD of the current table, refreshed every 5 minutes. ${FX_ROUNDING_RULES}`,
      querystring: FxRatesQuery,
      response: { 200: FxRatesResponse, ...errors },
    },
  }, async (request) => {
    const query = request.query;
    const from = query.from ? supportedCurrency(query.from, 'from') : undefined;
    const to = query.to ? supportedCurrency(query.to, 'to') : undefined;
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
  });
}
