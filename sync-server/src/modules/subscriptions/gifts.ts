import type { Queryable } from '../../db/database.ts';
import { addMonths } from '@tapline/shared/gift-card-rules';
import { latestActivationEnd, lockPlanHolder, lockRunningSubscription, saveSubscription } from './store.ts';

/**
 * The months a redeemed subscription gift pays for, in the redemption's transaction, and their
 * effect on the holder's running subscription to the plan:
 * - no running subscription: the months start now, or where the holder's last activation of the
 *   plan ends (gifts chain); a subscription created later starts paid through their end;
 * - a running subscription whose period has not ended: the months extend the current period;
 * - a running subscription whose period has ended (renewal due, or past_due after a failed
 *   renewal): the months pay the next period(s) from the old end, and the subscription is active.
 * The holder's time of the plan is locked (after the card), and so is the subscription row, so a
 * renewal or a subscription being created cannot charge the period the gift pays.
 */
export async function subscriptionGiftPeriod(
  tx: Queryable,
  gift: { planId: string; walletId: string; months: number },
  now: Date,
): Promise<{ startsAt: Date; endsAt: Date; subscriptionId: string | null }> {
  await lockPlanHolder(tx, gift.planId, gift.walletId);
  const subscription = await lockRunningSubscription(tx, gift.planId, gift.walletId);
  if (!subscription) {
    const previousEnd = await latestActivationEnd(tx, gift.planId, gift.walletId);
    const startsAt = previousEnd && previousEnd.getTime() > now.getTime() ? previousEnd : now;
    return { startsAt, endsAt: addMonths(startsAt, gift.months), subscriptionId: null };
  }
  const startsAt = subscription.current_period_end;
  const endsAt = addMonths(startsAt, gift.months);
  const periodEnded = startsAt.getTime() <= now.getTime();
  await saveSubscription(tx, {
    ...subscription,
    status: 'active',
    period: periodEnded ? subscription.period + 1 : subscription.period,
    current_period_start: periodEnded ? startsAt : subscription.current_period_start,
    current_period_end: endsAt,
    next_charge_at: endsAt,
    failed_attempts: 0,
    updated_at: now,
  });
  return { startsAt, endsAt, subscriptionId: subscription.id };
}
