import type { TypedApp } from '../../http/typed-app.ts';
import { ErrorBody, FX_ROUNDING_RULES, FxQuoteQuery, FxQuoteResponse, FxRatesQuery, FxRatesResponse, PublicFxQuery, PublicFxResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { supportedCountry, supportedCurrency } from '../../http/validate.ts';
import { fxService } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

export async function fxRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = fxService(context);

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
    return service.publicRate(supportedCountry(query.from, 'from'), supportedCountry(query.to, 'to'), query.amount);
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
    return service.quote(principal, { from: supportedCurrency(query.from, 'from'), to: supportedCurrency(query.to, 'to'), amount: query.amount, rail: query.rail });
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
    return service.rateTable(query.from ? supportedCurrency(query.from, 'from') : undefined, query.to ? supportedCurrency(query.to, 'to') : undefined);
  });
}
