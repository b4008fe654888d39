// Mobile money at the till (docs/till.md): a collection the till asks the customer's phone to pay.
import { type Static, Type } from 'typebox';
import { Timestamp, literalUnion } from './common.ts';
import { ID_LENGTH_MAX, PHONE_LENGTH_MAX, REFERENCE_LENGTH_MAX } from '../limits.ts';

export const POS_COLLECTION_STATUSES = ['pending', 'completed', 'failed', 'expired', 'cancelled'] as const;
/** pending until the customer approves (completed) or declines (failed) on their phone, or the wait ends (expired); cancelled: the till stopped waiting. */
export const PosCollectionStatus = literalUnion(POS_COLLECTION_STATUSES);

export const CreatePosCollectionBody = Type.Object({
  amountMinor: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer minor units (cents, kobo...)' }),
  currency: Type.String({ minLength: 3, maxLength: 3, description: 'The merchant\'s currency (400 currency_not_accepted otherwise)' }),
  phone: Type.String({ minLength: 1, maxLength: PHONE_LENGTH_MAX, description: 'The customer\'s mobile money number: E.164 (+254712345678) or the local form of the merchant\'s country (0712345678); 400 invalid_phone' }),
  description: Type.Optional(Type.String({ maxLength: 200, description: 'Shown on the customer\'s phone where the provider allows (trimmed to its limits)' })),
});
export type CreatePosCollectionBody = Static<typeof CreatePosCollectionBody>;

export const PosCollectionRecord = Type.Object({
  id: Type.String(),
  status: PosCollectionStatus,
  amountMinor: Type.Integer(),
  currency: Type.String(),
  phone: Type.String({ description: 'Masked: the country code and the last three digits (+254•••••••011)' }),
  provider: Type.String({ description: 'sandbox (test mode), or the provider asked: mpesa, momo, paystack, flutterwave' }),
  terminalId: Type.Union([Type.String(), Type.Null()]),
  description: Type.Optional(Type.String()),
  providerReference: Type.Optional(Type.String()),
  failureCode: Type.Optional(Type.String({ description: 'declined, insufficient_funds, no_answer (also on expired), invalid_phone or provider_error' })),
  failureReason: Type.Optional(Type.String({ description: 'A sentence the merchant can read' })),
  cancelledAt: Type.Optional(Timestamp),
  claimedBy: Type.Union([Type.String(), Type.Null()], { description: 'The till sale that took this collection as its mobile_money tender, if any' }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  completedAt: Type.Optional(Timestamp),
  returnedAt: Type.Union([Timestamp, Type.Null()], { description: 'When the collection was given back to the phone that paid (POST /api/pos/collections/{id}/return); null until then' }),
  returnPaymentId: Type.Union([Type.String(), Type.Null()], { description: 'The mobile_money payout (a payment, GET /api/payments/{id}) that gave it back; null until then' }),
  returnAttempts: Type.Integer({ minimum: 0, description: 'How many payouts were sent to give it back. A payout the provider fails or reverses clears returnedAt and returnPaymentId (event pos.collection.return_failed) and the collection can be given back again' }),
});
export type PosCollectionRecord = Static<typeof PosCollectionRecord>;

/** POST /api/pos/collections/{id}/return: who gave the collection back, in which shift (as a returned tap's). */
export const ReturnPosCollectionBody = Type.Object({
  cashierId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, description: 'The till staff member who gives it back (recorded; 422 cashier_unknown when none of the merchant\'s)' })),
  shiftId: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'The till shift it was given back in (recorded)' })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_LENGTH_MAX, description: 'The payout\'s reference, as POST /api/pay\'s (echoed in its webhook events). Sandbox: test_failure fails the payout, test_reversal reverses it after it completes' })),
});
export type ReturnPosCollectionBody = Static<typeof ReturnPosCollectionBody>;
