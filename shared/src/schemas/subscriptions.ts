import { type Static, Type } from 'typebox';
import { HandleInput, Mode, Nullable, Pin, Timestamp, literalUnion } from './common.ts';
import { ID_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../limits.ts';

/**
 * Subscription billing (spec: "POST or related calls under /api/subscriptions"; CONTRACT.md events
 * subscription.charged, subscription.charge_failed, subscription.cancelled). Stripe-like: a wallet
 * holder subscribed to a merchant's monthly plan, charged from their wallet each period.
 */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const SubscriptionStatus = literalUnion(SUBSCRIPTION_STATUSES, {
  description: 'active (paid through currentPeriodEnd), past_due (a renewal failed; retried after 1, 3 and 5 days), cancelled (final)',
});

export const SUBSCRIPTION_CANCELLATION_REASONS = ['cancellation_requested', 'payment_failed'] as const;
export const SubscriptionCancellationReason = literalUnion(SUBSCRIPTION_CANCELLATION_REASONS, {
  description: 'cancellation_requested (the holder or the merchant cancelled), payment_failed (every retry of a renewal failed)',
});

export const SUBSCRIPTION_CHARGE_STATUSES = ['paid', 'failed'] as const;
export const SubscriptionChargeStatus = literalUnion(SUBSCRIPTION_CHARGE_STATUSES);

/**
 * Days waited after each failed renewal attempt before the next one: three retries, then the
 * subscription is cancelled with reason payment_failed.
 */
export const SUBSCRIPTION_RETRY_DAYS = [1, 3, 5] as const;

export const CreateSubscriptionBody = Type.Object({
  planId: Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX }),
  customerHandle: Type.Optional({ ...HandleInput, description: 'Merchant key only: the wallet holder who subscribes (with walletPin, their consent)' }),
  walletPin: Type.Optional({ ...Pin, description: 'Merchant key only: the customer\'s wallet PIN (5 wrong PINs lock the wallet for 15 minutes: 429)' }),
});
export type CreateSubscriptionBody = Static<typeof CreateSubscriptionBody>;

export const CancelSubscriptionBody = Type.Object({
  atPeriodEnd: Type.Optional(Type.Boolean({ default: true, description: 'true (default): stays active until currentPeriodEnd, then cancelled; false: cancelled now. No refund for the rest of the period either way' })),
});
export type CancelSubscriptionBody = Static<typeof CancelSubscriptionBody>;

export const SubscriptionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  status: Type.Optional(SubscriptionStatus),
  planId: Type.Optional(Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX })),
});
export type SubscriptionListQuery = Static<typeof SubscriptionListQuery>;

export const SubscriptionRecord = Type.Object({
  id: Type.String({ description: 'sub_ + opaque' }),
  planId: Type.String(),
  customerHandle: Type.String({ description: 'The subscriber\'s @handle' }),
  merchantId: Type.String(),
  mode: Mode,
  status: SubscriptionStatus,
  amount: Type.Number({ description: 'Charged each period, major units: the plan\'s price when the subscription was created' }),
  currency: Type.String(),
  interval: Type.Literal('month'),
  period: Type.Integer({ description: 'Number of the current period, from 1' }),
  currentPeriodStart: Timestamp,
  currentPeriodEnd: Timestamp,
  cancelAtPeriodEnd: Type.Boolean(),
  nextChargeAt: Nullable(Timestamp),
  failedAttempts: Type.Integer({ description: 'Failed attempts at the renewal in progress (past_due); 0 once paid' }),
  cancelledAt: Nullable(Timestamp),
  cancellationReason: Nullable(SubscriptionCancellationReason),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SubscriptionRecord = Static<typeof SubscriptionRecord>;

export const SubscriptionChargeRecord = Type.Object({
  id: Type.String({ description: 'sch_ + opaque' }),
  subscriptionId: Type.String(),
  period: Type.Integer({ description: 'The period this attempt pays for' }),
  periodStart: Timestamp,
  periodEnd: Timestamp,
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  status: SubscriptionChargeStatus,
  failureReason: Nullable(Type.String({ description: 'e.g. insufficient_funds' })),
  attempt: Type.Integer({ description: '1 for the first attempt at a period, then 2..4 for the retries' }),
  attemptedAt: Timestamp,
  transferId: Nullable(Type.String({ description: 'The ledger transfer of a paid charge' })),
});
export type SubscriptionChargeRecord = Static<typeof SubscriptionChargeRecord>;
