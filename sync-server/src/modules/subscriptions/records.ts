import { toMajor } from '@tapline/shared/money';
import { displayHandle } from '../../http/validate.ts';
import type { ChargeRow, SubscriptionRow } from './store.ts';

/** A subscription as the API answers it (shared/src/schemas/subscriptions.ts SubscriptionRecord). */
export function subscriptionRecord(row: SubscriptionRow) {
  return {
    id: row.id,
    planId: row.plan_id,
    customerHandle: displayHandle(row.handle),
    merchantId: row.merchant_id,
    mode: row.mode,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    interval: 'month' as const,
    period: row.period,
    currentPeriodStart: row.current_period_start.toISOString(),
    currentPeriodEnd: row.current_period_end.toISOString(),
    cancelAtPeriodEnd: row.cancel_at_period_end,
    nextChargeAt: row.next_charge_at?.toISOString() ?? null,
    failedAttempts: row.failed_attempts,
    cancelledAt: row.cancelled_at?.toISOString() ?? null,
    cancellationReason: row.cancellation_reason,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function chargeRecord(row: ChargeRow) {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    period: row.period,
    periodStart: row.period_start.toISOString(),
    periodEnd: row.period_end.toISOString(),
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    status: row.status,
    failureReason: row.failure_reason,
    attempt: row.attempt,
    attemptedAt: row.attempted_at.toISOString(),
    transferId: row.transfer_id,
  };
}
