import { type Static, Type } from 'typebox';
import { CountryCode, CurrencyCode, ListQuery, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

export const BillType = literalUnion(['airtime', 'electricity', 'cable_tv', 'data']);

export const Biller = Type.Object({
  id: Type.String(),
  name: Type.String(),
  country: Type.String(),
  currency: Type.String(),
  billType: BillType,
  accountRefType: Type.Union([Type.Literal('phone'), Type.Literal('meter'), Type.Literal('smartcard')]),
  accountRefPattern: Type.Optional(Type.String({ description: 'Regular expression the meter or smartcard number must match' })),
  accountRefDescription: Type.String(),
  minAmount: Type.Number(),
  maxAmount: Type.Number(),
  plans: Type.Optional(Type.Array(Type.Object({ code: Type.String(), name: Type.String(), amount: Type.Number() }))),
});

export const BillerQuery = Type.Object({
  country: Type.Optional(CountryCode),
  billType: Type.Optional(BillType),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const BillPayRequest = Type.Object({
  billType: BillType,
  billerId: Type.String({ minLength: 1, maxLength: 60 }),
  accountRef: Type.String({ minLength: 1, maxLength: 40, description: 'Phone (airtime, data), meter number (electricity) or smartcard number (cable TV)' }),
  amount: MajorAmount,
  currency: Type.Optional(CurrencyCode),
  planCode: Type.Optional(Type.String({ maxLength: 40, description: 'A bundle or bouquet of the biller; the amount must be its price' })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'Your reference. Sandbox: test_failure makes the bill fail (and the debit is refunded)' })),
});

export const BillStatus = literalUnion(['pending', 'completed', 'failed']);

/** GET /api/bills/payments: the merchant's bill payments, filtered by status and billType. */
export const BillPaymentListQuery = Type.Object({
  ...ListQuery.properties,
  status: Type.Optional(BillStatus),
  billType: Type.Optional(BillType),
});

export const BillPayment = Type.Object({
  id: Type.String({ description: 'bill_...' }),
  status: BillStatus,
  success: Type.Boolean(),
  mode: Mode,
  billType: BillType,
  billerId: Type.String(),
  billerName: Type.String(),
  country: Type.String(),
  accountRef: Type.String({ description: 'Normalised: E.164 for phones' }),
  amount: Type.Number(),
  currency: Type.String(),
  fee: Type.Number({ description: 'Charged on top of amount' }),
  planCode: Type.Union([Type.String(), Type.Null()]),
  token: Type.Union([Type.String(), Type.Null()], { description: 'Electricity: the prepaid token (20 digits in groups of 4)' }),
  units: Type.Union([Type.String(), Type.Null()], { description: 'Electricity: kWh bought' }),
  customerName: Type.Union([Type.String(), Type.Null()]),
  reference: Type.Union([Type.String(), Type.Null()]),
  providerReference: Type.Union([Type.String(), Type.Null()]),
  failureReason: Type.Optional(Type.String()),
  createdAt: Timestamp,
  updatedAt: { ...Timestamp, description: 'The last change: when the biller\'s answer settled or refunded the bill' },
});
export type BillPayment = Static<typeof BillPayment>;
