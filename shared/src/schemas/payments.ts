import { type Static, Type } from 'typebox';
import { CountryCode, CurrencyCode, MajorAmount, Mode, Timestamp, literalUnion } from './common.ts';
import { RailName } from './fx.ts';
import { ACCOUNT_NUMBER_LENGTH_MAX, BANK_CODE_LENGTH_MAX, ID_LENGTH_MAX, NAME_LENGTH_MAX, NOTE_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

export const PaymentStatus = literalUnion(['pending', 'processing', 'completed', 'failed', 'reversed']);

export const ReceiverObject = Type.Object(
  {
    phone: Type.Optional(Type.String({ maxLength: 20, description: 'E.164, e.g. +2348012345678' })),
    accountNumber: Type.Optional(Type.String({ maxLength: ACCOUNT_NUMBER_LENGTH_MAX, description: '6 to 20 digits or an IBAN' })),
    bankCode: Type.Optional(Type.String({ maxLength: BANK_CODE_LENGTH_MAX, description: 'The bank (live bank transfers: required; the provider\'s bank code, e.g. 058)' })),
    branchCode: Type.Optional(Type.String({ maxLength: 20, description: 'The bank branch, where the country\'s banks need one' })),
    accountType: Type.Optional(Type.Union([Type.Literal('savings'), Type.Literal('current')], { description: 'The account type, where the country\'s banks need one' })),
    handle: Type.Optional(Type.String({ maxLength: 31, description: 'An @handle (rail wallet)' })),
    provider: Type.Optional(Type.String({ maxLength: 60, description: 'e.g. mpesa, mtn_momo' })),
    name: Type.Optional(Type.String({ maxLength: NAME_LENGTH_MAX })),
  },
  { description: 'Exactly one of phone, accountNumber or handle' },
);

/** Where a payout goes: a string in one of its forms, or an object. */
export const PayReceiver = Type.Union([Type.String({ minLength: 1, maxLength: 64, description: 'An E.164 phone, an account number or an @handle' }), ReceiverObject]);

export const PayRequest = Type.Object({
  fromCode: CountryCode,
  toCode: CountryCode,
  rail: RailName,
  amount: MajorAmount,
  currency: CurrencyCode,
  receiver: PayReceiver,
  receiverName: Type.Optional(Type.String({ maxLength: NAME_LENGTH_MAX })),
  senderName: Type.Optional(Type.String({ maxLength: NAME_LENGTH_MAX })),
  note: Type.Optional(Type.String({ maxLength: NOTE_LENGTH_MAX })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'Your reference, echoed in webhook events. Sandbox: test_success, test_failure, test_pending, test_reversal' })),
  quoteId: Type.Optional(Type.String({ maxLength: ID_LENGTH_MAX, description: 'An FX quote (GET /api/fx/quote) whose rate this payment uses while it is valid' })),
});

export const TimelineEntry = Type.Object({
  status: PaymentStatus,
  at: Timestamp,
  note: Type.Optional(Type.String()),
});

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const PaymentRecord = Type.Object({
  success: Type.Boolean({ description: 'Shape A: false once the payment failed or was reversed' }),
  id: Type.String({ description: 'pay_...' }),
  paymentId: Type.String({ description: 'Shape B: the same id' }),
  transactionId: Type.String({ description: 'Shape A: the same id' }),
  status: PaymentStatus,
  amount: Type.Number({ description: 'In currency, major units' }),
  currency: Type.String(),
  destinationAmount: Type.Number({ description: 'What the recipient gets, in destinationCurrency' }),
  destinationCurrency: Type.String(),
  fxRate: Type.Number({ description: 'destinationCurrency per 1 currency, with the merchant spread' }),
  fee: Type.Number({ description: 'In currency, charged on top of amount' }),
  estimatedArrival: Timestamp,
  failureReason: Type.Optional(Type.String({ description: 'Present when the payment failed or was reversed' })),
  providerReference: Nullable(Type.String()),
  timeline: Type.Array(TimelineEntry, { description: 'Oldest first' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  // Shown to the owning merchant only (GET with its key, and POST /api/pay):
  mode: Type.Optional(Mode),
  rail: Type.Optional(Type.String()),
  fromCode: Type.Optional(Nullable(Type.String())),
  toCode: Type.Optional(Nullable(Type.String())),
  midRate: Type.Optional(Type.Number()),
  quoteId: Type.Optional(Nullable(Type.String())),
  receiver: Type.Optional(Type.Object({
    type: Type.String(),
    phone: Type.Optional(Type.String()),
    accountNumber: Type.Optional(Type.String()),
    bankCode: Type.Optional(Type.String()),
    handle: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  })),
  receiverName: Type.Optional(Nullable(Type.String())),
  senderName: Type.Optional(Nullable(Type.String())),
  note: Type.Optional(Nullable(Type.String())),
  reference: Type.Optional(Nullable(Type.String())),
  paymentLinkId: Type.Optional(Nullable(Type.String())),
});
export type PaymentRecord = Static<typeof PaymentRecord>;

export const PaymentListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(PaymentStatus),
  kind: Type.Optional(Type.Union([Type.Literal('payout'), Type.Literal('link')], {
    description: "payout: the merchant's own payments out (POST /api/pay); link: payments its payment links received (every way the merchant is paid: GET /api/merchant/received)",
  })),
  paymentLinkId: Type.Optional(Type.String({
    pattern: '^plink_[A-Za-z0-9_-]{1,64}$',
    description: 'Only the payments made through this payment link (plink_...). A link of another merchant or mode matches none: an empty list, as for any other filter; a malformed id is a 400 validation_failed',
  })),
});

