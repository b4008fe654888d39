import { Type } from 'typebox';
import { CountryCode, CurrencyCode, Timestamp, literalUnion } from './common.ts';

export const RailName = literalUnion(['mobile_money', 'bank_transfer', 'payment_link', 'qr', 'offline_qr', 'card', 'cash_pickup', 'wallet'], {
  description: 'A payment rail (the spec\'s rails table plus wallet, an on-us transfer between Tapline wallets)',
});

export const FX_ROUNDING_RULES = `FX arithmetic is exact decimal arithmetic on integer minor units (ISO 4217 exponents), never floating point:
- midRate: the cross rate through USD of the published table (units of "to" per 1 USD divided by units of "from" per 1 USD), rounded half-even to 10 significant digits.
- rate: midRate x (1 - spreadPct/100), rounded DOWN to 10 significant digits (the platform's favour). Within one currency the rate is 1 and no spread applies.
- receive / destinationAmount: floor(amount x rate) to the minor unit of the target currency (rounded DOWN, the platform's favour).
- fee: ceil(amount x feePercent/100) to the minor unit of the source currency (rounded UP); it is charged on top of the amount.`;

export const PublicFxQuery = Type.Object({
  from: CountryCode,
  to: CountryCode,
  amount: Type.Optional(Type.Number({ description: 'Amount in the sending country\'s currency, major units; default 1' })),
});

export const PublicFxResponse = Type.Object({
  from: Type.String({ description: 'Sending country' }),
  to: Type.String({ description: 'Receiving country' }),
  fromCurrency: Type.String(),
  toCurrency: Type.String(),
  rate: Type.Number({ description: 'Mid-market rate: toCurrency per 1 fromCurrency' }),
  amount: Type.Number(),
  receive: Type.Number({ description: 'floor(amount x rate) in toCurrency, major units' }),
  asOf: Type.String({ description: 'The date of the rate table' }),
  updatedAt: Timestamp,
});

export const FxQuoteQuery = Type.Object({
  from: CurrencyCode,
  to: CurrencyCode,
  amount: Type.Number({ description: 'Amount in "from", major units' }),
  rail: Type.Optional(RailName),
});

export const FxQuoteResponse = Type.Object({
  quoteId: Type.String({ description: 'fxq_...: pass it as quoteId to POST /api/pay within 60 seconds to lock this rate' }),
  from: Type.String(),
  to: Type.String(),
  amount: Type.Number(),
  midRate: Type.Number({ description: 'Mid-market rate: "to" per 1 "from"' }),
  rate: Type.Number({ description: 'The rate with the merchant spread' }),
  spreadPct: Type.Number({ description: 'The spread in percent' }),
  fee: Type.Number({ description: 'Estimated fee in feeCurrency: the fee schedule of `rail` (default mobile_money)' }),
  feeCurrency: Type.String(),
  receive: Type.Number({ description: 'floor(amount x rate) in "to", major units' }),
  rail: Type.String(),
  asOf: Type.String(),
  expiresAt: Timestamp,
});

export const FxRatesQuery = Type.Object({
  from: Type.Optional(CurrencyCode),
  to: Type.Optional(CurrencyCode),
});

export const FxRatesResponse = Type.Object({
  source: Type.String({ description: 'Where the table comes from: the pinned npm package @fawazahmed0/currency-api by default, or FX_SOURCE_URL' }),
  asOf: Type.String({ description: 'The table\'s own date' }),
  updatedAt: Timestamp,
  refreshIntervalSeconds: Type.Integer(),
  currencies: Type.Array(Type.String()),
  rates: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), rate: Type.Number({ description: 'Mid-market rate' }) })),
});

