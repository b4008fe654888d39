import { type Static, Type } from 'typebox';
import { CurrencyCode, HandleInput, MajorAmount, Mode, Pin, Timestamp, literalUnion } from './common.ts';
import { DATE_TEXT_LENGTH_MAX, DESCRIPTION_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

export const CreatePaymentLinkBody = Type.Object({
  amount: Type.Optional(MajorAmount),
  currency: CurrencyCode,
  description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'Your reference, echoed on the payments the link receives' })),
  singleUse: Type.Optional(Type.Boolean({ description: 'true: the link can be paid once (a second payment is a 409). Default false (reusable)' })),
  reusable: Type.Optional(Type.Boolean({ description: 'The opposite of singleUse, accepted for convenience' })),
  expiresAt: Type.Optional(Type.String({ maxLength: DATE_TEXT_LENGTH_MAX, description: 'ISO 8601 date-time (or date: the end of that day, UTC) in the future; absent: never expires' })),
  minAmount: Type.Optional(MajorAmount),
  maxAmount: Type.Optional(MajorAmount),
});

export const PaymentLink = Type.Object({
  id: Type.String({ description: 'plink_...' }),
  url: Type.String({ description: 'The public page where a wallet holder pays: {base_url}/pay/link/<id>' }),
  mode: Mode,
  amountType: Type.Union([Type.Literal('fixed'), Type.Literal('variable')]),
  amount: Type.Union([Type.Number(), Type.Null()], { description: 'null for a variable amount' }),
  minAmount: Type.Union([Type.Number(), Type.Null()]),
  maxAmount: Type.Union([Type.Number(), Type.Null()]),
  currency: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  reference: Type.Union([Type.String(), Type.Null()]),
  singleUse: Type.Boolean(),
  reusable: Type.Boolean(),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
  active: Type.Boolean(),
  status: literalUnion(['active', 'inactive', 'expired', 'paid'], {
    description: 'active; inactive (deactivated); expired; paid (a single-use link that has been paid)',
  }),
  paymentCount: Type.Integer(),
  amountCollected: Type.Number(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deactivatedAt: Type.Union([Timestamp, Type.Null()]),
});
export type PaymentLink = Static<typeof PaymentLink>;

export const PaymentLinkListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  active: Type.Optional(Type.Boolean()),
});

export const PayLinkBody = Type.Object({
  handle: HandleInput,
  pin: Pin,
  amount: Type.Optional(MajorAmount),
});

export const PayLinkResponse = Type.Object({
  paymentId: Type.String(),
  transactionId: Type.String(),
  status: Type.Literal('completed'),
  amount: Type.Number(),
  currency: Type.String(),
  paymentLinkId: Type.String(),
  payerHandle: Type.String(),
  merchantHandle: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  completedAt: Timestamp,
});
