// Merchant payouts (settlement; docs/payouts.md): where the merchant is paid out (settlement
// accounts), when (payout settings), and each payout with the statement of what it covers.
import { type Static, Type } from 'typebox';
import { CountryCode, CurrencyCode, MajorAmount, Nullable, Timestamp, literalUnion } from './common.ts';
import { TimelineEntry } from './payments.ts';
import { ACCOUNT_NUMBER_LENGTH_MAX, BANK_CODE_LENGTH_MAX, LOOKUP_ID_LENGTH_MAX, NAME_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PHONE_LENGTH_MAX } from '../limits.ts';

export const SETTLEMENT_ACCOUNT_TYPES = ['bank', 'mobile_money'] as const;
export const PAYOUT_SCHEDULES = ['daily', 'weekly', 'manual'] as const;
export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'reversed'] as const;
/** The statement's categories: every wallet movement is one of these, and with the hold and what stays they add up to the payout. */
export const STATEMENT_CATEGORIES = ['sales', 'refunds', 'fees', 'payouts', 'other'] as const;

export const CreateSettlementAccountBody = Type.Object({
  type: literalUnion(SETTLEMENT_ACCOUNT_TYPES, { description: 'bank: an account at a bank (country, bankCode, accountNumber); mobile_money: a phone number with its operator' }),
  country: { ...CountryCode, description: 'Where the account is; its currency is the country\'s' },
  bankCode: Type.Optional(Type.String({ minLength: 1, maxLength: BANK_CODE_LENGTH_MAX, pattern: '^[0-9A-Za-z_-]+$', description: 'bank: the bank\'s code at the provider (Paystack\'s in NG, e.g. 058)' })),
  accountNumber: Type.Optional(Type.String({ minLength: 1, maxLength: ACCOUNT_NUMBER_LENGTH_MAX, description: 'bank: the account number (6 to 20 digits; in NG the 10-digit NUBAN)' })),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: PHONE_LENGTH_MAX, description: 'mobile_money: the number, E.164 or the country\'s local form' })),
  operator: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'mobile_money: the operator (MTN, Airtel, M-Pesa...); required' })),
  accountName: Type.Optional(Type.String({ minLength: 1, maxLength: NAME_LENGTH_MAX, description: 'The account holder\'s name; ignored where the provider resolves it (bank accounts in NG, test mode), required elsewhere' })),
  default: Type.Optional(Type.Boolean({ description: 'Make it the default for its currency (the first account of a currency is the default anyway)' })),
});
export type CreateSettlementAccountBody = Static<typeof CreateSettlementAccountBody>;

export const SettlementAccountRecord = Type.Object({
  id: Type.String({ description: 'sac_...' }),
  type: literalUnion(SETTLEMENT_ACCOUNT_TYPES),
  country: Type.String(),
  currency: Type.String(),
  bankCode: Nullable(Type.String()),
  accountNumber: Nullable(Type.String({ description: 'Masked: the last four digits only (••••••7890)' })),
  phone: Nullable(Type.String({ description: 'Masked: the country code and the last three digits' })),
  operator: Nullable(Type.String()),
  accountName: Type.String(),
  nameSource: literalUnion(['provider', 'sandbox', 'merchant'] as const, { description: 'provider: resolved by the provider (Paystack /bank/resolve); sandbox: test mode; merchant: as typed (no resolve where the account is)' }),
  default: Type.Boolean(),
  createdAt: Timestamp,
});
export type SettlementAccountRecord = Static<typeof SettlementAccountRecord>;

export const SettlementAccountPatch = Type.Object({
  default: Type.Literal(true, { description: 'Make it the default for its currency' }),
});

export const PayoutSettingsBody = Type.Object({
  schedule: Type.Optional(literalUnion(PAYOUT_SCHEDULES, { description: 'daily (default), weekly (Mondays) or manual (on demand only)' })),
  minimumAmount: Type.Optional(Type.Number({ minimum: 0, description: 'Major units of currency; an automatic payout waits until at least this much is available, and an on-demand one below it is a 422 payout_below_minimum (0: any amount)' })),
  currency: Type.Optional({ ...CurrencyCode, description: 'The currency paid out automatically (default: the merchant\'s)' }),
});

export const PayoutSettings = Type.Object({
  schedule: literalUnion(PAYOUT_SCHEDULES),
  minimumAmount: Type.Number(),
  currency: Type.String(),
  holdHours: Type.Integer({ description: 'Offline sales captured less than this long ago are held (PAYOUT_HOLD_HOURS)' }),
  scheduleHourUtc: Type.Integer({ description: 'The UTC hour from which the day\'s automatic payout is made (PAYOUT_SCHEDULE_HOUR_UTC)' }),
});
export type PayoutSettings = Static<typeof PayoutSettings>;

export const PayoutBalanceQuery = Type.Object({ currency: Type.Optional({ ...CurrencyCode, description: 'Default: the payout settings\' currency' }) });

export const PayoutBalance = Type.Object({
  currency: Type.String(),
  balance: Type.Number({ description: 'The wallet\'s balance, major units' }),
  onHold: Type.Number({ description: 'Held back: offline sales captured within the holding period' }),
  available: Type.Number({ description: 'What a payout may take now: balance - onHold (never below 0)' }),
  holdHours: Type.Integer(),
});
export type PayoutBalance = Static<typeof PayoutBalance>;

export const CreatePayoutBody = Type.Object({
  amount: Type.Optional({ ...MajorAmount, description: 'Major units; default: everything available' }),
  currency: Type.Optional({ ...CurrencyCode, description: 'Default: the payout settings\' currency' }),
  settlementAccountId: Type.Optional(Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX, description: 'Default: the default settlement account of the currency' })),
});

export const StatementLine = Type.Object({
  category: literalUnion(STATEMENT_CATEGORIES),
  kind: Type.String({ description: 'The ledger transfer kind (pos_payment, offline_tap, pos_refund, payment_debit...); fees: fee' }),
  count: Type.Integer(),
  amount: Type.Number({ description: 'Signed, major units: + into the wallet, - out of it' }),
});

export const PayoutStatement = Type.Object({
  currency: Type.String(),
  periodStart: Nullable(Timestamp),
  periodEnd: Timestamp,
  openingBalance: Type.Number({ description: 'The wallet before the period: what earlier payouts left, earlier holds included' }),
  sales: Type.Number(),
  refunds: Type.Number({ description: 'Negative' }),
  fees: Type.Number({ description: 'Negative' }),
  payouts: Type.Number({ description: 'Earlier payouts\' money: a failed or reversed one coming back (+), other settlement movements' }),
  other: Type.Number({ description: 'Everything else: payments sent (POST /api/pay), payroll, bills, credits, gift cards...' }),
  onHold: Type.Number({ description: 'Negative: held back now (offline sales within the holding period)' }),
  retained: Type.Number({ description: 'Negative: available but not asked for (a payout of less than everything)' }),
  amount: Type.Number({ description: 'The payout: openingBalance + sales + refunds + fees + payouts + other + onHold + retained' }),
  lines: Type.Array(StatementLine, { description: 'The movements by category and ledger kind; per category they add up to its total' }),
});
export type PayoutStatement = Static<typeof PayoutStatement>;

export const PayoutStatus = literalUnion(PAYOUT_STATUSES);

export const PayoutRecord = Type.Object({
  id: Type.String({ description: 'po_...' }),
  status: PayoutStatus,
  amount: Type.Number(),
  currency: Type.String(),
  trigger: literalUnion(['manual', 'scheduled'] as const),
  settlementAccount: SettlementAccountRecord,
  provider: Type.String({ description: 'sandbox (test mode) or the provider that pays it' }),
  providerReference: Nullable(Type.String()),
  failureReason: Type.Optional(Type.String()),
  estimatedArrival: Timestamp,
  timeline: Type.Array(TimelineEntry),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  statement: Type.Optional(PayoutStatement),
});
export type PayoutRecord = Static<typeof PayoutRecord>;

export const PayoutListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(PayoutStatus),
  format: Type.Optional(literalUnion(['json', 'csv'] as const, { description: 'csv: every payout of the filter as text/csv (limit and offset ignored)' })),
});
