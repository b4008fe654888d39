import { toMajor } from '@tapline/shared/money';
import { SUBSCRIPTION_RETRY_DAYS } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { PG_ERROR, type Queryable, pgErrorCode } from '../../db/database.ts';
import { inSavepoint } from '../../db/savepoint.ts';
import { type Mode, newId } from '../../auth/secrets.ts';
import { conflict, notFound, unprocessable } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { enqueueEvent } from '../../events/outbox.ts';
import { LedgerError, transferIds, transferPersonToMerchant } from '../../ledger/ledger.ts';
import { addMonths } from '@tapline/shared/gift-card-rules';
import { findMerchant } from '../merchants/index.ts';
import { findWallet } from '../wallets/index.ts';
import {
  type CancellationReason,
  type ChargeRow,
  type PlanRow,
  type SubscriptionRow,
  type SubscriptionScope,
  claimDueSubscription,
  findPlan,
  findRunningSubscription,
  findSubscription,
  insertCharge,
  insertSubscription,
  latestActivationEnd,
  lockPlanHolder,
  lockSubscription,
  saveSubscription,
} from './store.ts';

/** The wallet holder who subscribes: proven by their wallet session, or by their PIN on the merchant's call. */
export interface Subscriber {
  walletId: string;
  handle: string;
  mode: Mode;
}

const DAY_MS = 24 * 3600_000;
/** Renewals per job run (each in its own transaction); the rest wait for the next run. */
const RENEWALS_PER_RUN = 500;

export function subscriptionNotFound(id: string) {
  return notFound('subscription_not_found', `No subscription ${id}`);
}

export function planNotFound(id: string) {
  return notFound('subscription_plan_not_found', `No subscription plan ${id}`);
}

/** The ledger transfer that pays one period: derived from the subscription and the period, so a re-run can never charge twice. */
export function chargeTransferId(subscriptionId: string, period: number): string {
  return transferIds.subscriptionCharge(subscriptionId, period);
}

/** Whether a caller may see a subscription: its merchant, or its holder, in the same mode. */
function visibleTo(row: SubscriptionRow, scope: SubscriptionScope): boolean {
  if (row.mode !== scope.mode) return false;
  return 'merchantId' in scope ? row.merchant_id === scope.merchantId : row.wallet_id === scope.walletId;
}

/** The body of the subscription.* events (CONTRACT.md names them; amounts in major units). */
function eventData(row: SubscriptionRow, period: { number: number; start: Date; end: Date }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    subscriptionId: row.id,
    planId: row.plan_id,
    merchantId: row.merchant_id,
    customerHandle: displayHandle(row.handle),
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    period: period.number,
    periodStart: period.start.toISOString(),
    periodEnd: period.end.toISOString(),
    status: row.status,
    ...extra,
  };
}

export type RenewalOutcome = 'charged' | 'failed' | 'cancelled';

export interface RenewalRun {
  charged: number;
  failed: number;
  cancelled: number;
}

/**
 * Subscriptions: creation with the first charge, reads, cancellation and the renewal job's work.
 * Built once per context by subscriptionService(context) (routes.ts), shared by the routes and the
 * renewal worker.
 */
export function buildSubscriptionService(context: AppContext) {
  const { db } = context;

  /** A plan the caller may subscribe to: of its mode (and, for a merchant, its own); 404 otherwise, 409 when retired. */
  async function planFor(planId: string, mode: Mode, merchantId: string | null): Promise<PlanRow> {
    const plan = await findPlan(db, planId);
    if (!plan || plan.mode !== mode || (merchantId !== null && plan.merchant_id !== merchantId)) throw planNotFound(planId);
    if (!plan.active) throw conflict('subscription_plan_inactive', `Subscription plan ${planId} is no longer offered`);
    return plan;
  }

  /**
   * Subscribes the holder to the plan. Without a gift activation covering now, the first period
   * is charged at once: the subscription row, the paid charge, the subscription.charged event and
   * ONE ledger transfer (holder's wallet -> merchant's wallet) commit together, or nothing does
   * (insufficient funds: 422, no subscription). With an activation covering now, the subscription
   * starts paid through the activation's end. `id` is derived from the Idempotency-Key when one
   * is sent: a re-run after a crash finds the subscription instead of making a second.
   */
  async function create(subscriber: Subscriber, plan: PlanRow, id: string | undefined): Promise<SubscriptionRow> {
    if (id) {
      const existing = await findSubscription(db, id);
      if (existing) return existing;
    }
    const merchant = await findMerchant(db, plan.merchant_id);
    const merchantWallet = merchant ? await findWallet(db, merchant.handle, plan.mode) : undefined;
    if (!merchantWallet) throw planNotFound(plan.id);
    if (merchantWallet.id === subscriber.walletId) throw unprocessable('cannot_subscribe_to_own_plan', 'A merchant cannot subscribe its own wallet to its plan');

    const now = context.now();
    try {
      return await db.transaction(async (tx) => {
        await lockPlanHolder(tx, plan.id, subscriber.walletId);
        if (await findRunningSubscription(tx, plan.id, subscriber.walletId)) throw alreadySubscribed(plan.id);
        const giftEnd = await latestActivationEnd(tx, plan.id, subscriber.walletId);
        const gifted = giftEnd !== null && giftEnd.getTime() > now.getTime();
        const periodEnd = gifted ? giftEnd : addMonths(now, 1);
        const created = await insertSubscription(tx, {
          id: id ?? newId('sub'),
          plan_id: plan.id,
          merchant_id: plan.merchant_id,
          mode: plan.mode,
          wallet_id: subscriber.walletId,
          handle: subscriber.handle,
          merchant_wallet_id: merchantWallet.id,
          amount: plan.price,
          currency: plan.currency,
          status: 'active',
          period: 1,
          current_period_start: now,
          current_period_end: periodEnd,
          cancel_at_period_end: false,
          next_charge_at: periodEnd,
          failed_attempts: 0,
          cancelled_at: null,
          cancellation_reason: null,
          created_at: now,
          updated_at: now,
        });
        if (!gifted) await chargePeriod(tx, created, 1, now);
        return created;
      });
    } catch (error) {
      // The unique index is the last word on one running subscription per plan and holder.
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) throw alreadySubscribed(plan.id);
      throw error;
    }
  }

  function alreadySubscribed(planId: string) {
    return conflict('subscription_exists', `This wallet already has a running subscription to plan ${planId}; cancel it first`);
  }

  /**
   * Pays the subscription's current period (its row already saved with that period) in the
   * caller's transaction: the paid charge, the subscription.charged event, then the transfer,
   * last so the merchant's account is locked only until COMMIT. Throws LedgerError when the
   * holder's wallet cannot pay, leaving the caller to roll back.
   */
  async function chargePeriod(tx: Queryable, row: SubscriptionRow, attempt: number, now: Date): Promise<ChargeRow> {
    const transferId = chargeTransferId(row.id, row.period);
    const charge = await insertCharge(tx, {
      id: newId('sch'),
      subscription_id: row.id,
      mode: row.mode,
      period: row.period,
      period_start: row.current_period_start,
      period_end: row.current_period_end,
      amount: row.amount,
      currency: row.currency,
      status: 'paid',
      failure_reason: null,
      attempt,
      transfer_id: transferId,
      attempted_at: now,
    });
    await enqueueEvent(tx, {
      merchantId: row.merchant_id,
      mode: row.mode,
      type: 'subscription.charged',
      data: eventData(row, { number: row.period, start: row.current_period_start, end: row.current_period_end }, { chargeId: charge.id, attempt, transferId }),
      at: now,
    });
    await transferPersonToMerchant(tx, {
      id: transferId,
      mode: row.mode,
      kind: 'subscription_charge',
      payerWalletId: row.wallet_id,
      merchantWalletId: row.merchant_wallet_id,
      currency: row.currency,
      amount: row.amount,
      metadata: { subscriptionId: row.id, period: row.period, chargeId: charge.id },
    });
    return charge;
  }

  async function get(scope: SubscriptionScope, id: string): Promise<SubscriptionRow> {
    const row = await findSubscription(db, id);
    if (!row || !visibleTo(row, scope)) throw subscriptionNotFound(id);
    return row;
  }

  /**
   * Cancels at the period's end (default: the subscription stays active until currentPeriodEnd,
   * then the renewal job cancels it instead of charging) or now. A past_due subscription has no
   * paid period left, so it is cancelled now either way. No refund of the unused period.
   */
  async function cancel(scope: SubscriptionScope, id: string, atPeriodEnd: boolean): Promise<SubscriptionRow> {
    const now = context.now();
    return db.transaction(async (tx) => {
      const row = await lockSubscription(tx, id);
      if (!row || !visibleTo(row, scope)) throw subscriptionNotFound(id);
      if (row.status === 'cancelled') throw conflict('subscription_cancelled', `Subscription ${id} is already cancelled`);
      if (atPeriodEnd && row.status === 'active') {
        if (row.cancel_at_period_end) return row;
        return saveSubscription(tx, { ...row, cancel_at_period_end: true, updated_at: now });
      }
      return cancelLocked(tx, row, 'cancellation_requested', now, now);
    });
  }

  /** Ends a locked subscription and writes its subscription.cancelled event. */
  async function cancelLocked(tx: Queryable, row: SubscriptionRow, reason: CancellationReason, at: Date, now: Date, extra: Record<string, unknown> = {}): Promise<SubscriptionRow> {
    const cancelled = await saveSubscription(tx, {
      ...row,
      status: 'cancelled',
      next_charge_at: null,
      cancelled_at: at,
      cancellation_reason: reason,
      updated_at: now,
    });
    await enqueueEvent(tx, {
      merchantId: row.merchant_id,
      mode: row.mode,
      type: 'subscription.cancelled',
      data: eventData(cancelled, { number: row.period, start: row.current_period_start, end: row.current_period_end }, { cancellationReason: reason, ...extra }),
      at: now,
    });
    return cancelled;
  }

  /**
   * The renewal job: every running subscription due by the clock, each claimed with FOR UPDATE
   * SKIP LOCKED in its own transaction, so several instances share the work and none is charged
   * twice (the transfer id, derived from the subscription and the period, is the second guard).
   */
  async function renewDue(): Promise<RenewalRun> {
    const now = context.now();
    const run: RenewalRun = { charged: 0, failed: 0, cancelled: 0 };
    for (let index = 0; index < RENEWALS_PER_RUN; index += 1) {
      const outcome = await db.transaction(async (tx) => {
        const row = await claimDueSubscription(tx, now);
        return row ? renewLocked(tx, row, now) : undefined;
      });
      if (!outcome) break;
      run[outcome] += 1;
    }
    return run;
  }

  /**
   * One due subscription: cancelled at its period's end if asked, else the next period is charged
   * (a past_due subscription retries the period it owes). A refused charge is recorded as failed
   * with a retry 1, 3 and 5 days after each failure; after the last, the subscription is cancelled.
   */
  async function renewLocked(tx: Queryable, row: SubscriptionRow, now: Date): Promise<RenewalOutcome> {
    if (row.status === 'active' && row.cancel_at_period_end) {
      await cancelLocked(tx, row, 'cancellation_requested', row.current_period_end, now);
      return 'cancelled';
    }
    // Periods follow each other from the billing anchor: a retry that succeeds pays the period
    // that began when the last one ended, not one that begins at the retry.
    const next = { number: row.period + 1, start: row.current_period_end, end: addMonths(row.current_period_end, 1) };
    const attempt = row.failed_attempts + 1;
    const charged = await inSavepoint(tx, 'subscription_charge', async () => {
      const renewed = await saveSubscription(tx, {
        ...row,
        status: 'active',
        period: next.number,
        current_period_start: next.start,
        current_period_end: next.end,
        next_charge_at: next.end,
        failed_attempts: 0,
        updated_at: now,
      });
      await chargePeriod(tx, renewed, attempt, now);
    });
    if (charged.ok) return 'charged';
    if (!(charged.error instanceof LedgerError)) throw charged.error;
    return recordFailure(tx, row, next, attempt, charged.error.code, now);
  }

  async function recordFailure(
    tx: Queryable,
    row: SubscriptionRow,
    next: { number: number; start: Date; end: Date },
    attempt: number,
    failureReason: string,
    now: Date,
  ): Promise<RenewalOutcome> {
    const charge = await insertCharge(tx, {
      id: newId('sch'),
      subscription_id: row.id,
      mode: row.mode,
      period: next.number,
      period_start: next.start,
      period_end: next.end,
      amount: row.amount,
      currency: row.currency,
      status: 'failed',
      failure_reason: failureReason,
      attempt,
      transfer_id: null,
      attempted_at: now,
    });
    const retryDays = SUBSCRIPTION_RETRY_DAYS[attempt - 1];
    const nextAttemptAt = retryDays === undefined ? null : new Date(now.getTime() + retryDays * DAY_MS);
    const failed: SubscriptionRow = { ...row, status: nextAttemptAt ? 'past_due' : 'cancelled', failed_attempts: attempt };
    await enqueueEvent(tx, {
      merchantId: row.merchant_id,
      mode: row.mode,
      type: 'subscription.charge_failed',
      data: eventData(failed, next, { chargeId: charge.id, attempt, failureReason, nextAttemptAt: nextAttemptAt?.toISOString() ?? null }),
      at: now,
    });
    if (nextAttemptAt) {
      await saveSubscription(tx, { ...failed, next_charge_at: nextAttemptAt, updated_at: now });
      return 'failed';
    }
    // The last retry failed: subscription.charge_failed (status cancelled), then subscription.cancelled.
    await cancelLocked(tx, failed, 'payment_failed', now, now, { failureReason });
    return 'cancelled';
  }

  return { planFor, create, get, cancel, renewDue };
}

export type SubscriptionService = ReturnType<typeof buildSubscriptionService>;
