// The automatic payouts: once a UTC day from PAYOUT_SCHEDULE_HOUR_UTC (weekly: on Mondays), every
// merchant with a default settlement account and a schedule other than manual is paid what is
// available, when it reaches the merchant's minimum. Durable without a table of its own: the
// payout's id derives from (merchant, mode, currency, day) and its schedule_key is unique, so a
// run after a restart, a second run, or a second instance finds the day's payout instead of making
// another. A day with nothing to pay is simply tried again on the next run.
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../http/errors.ts';
import { type PolledJob, polledJob } from '../../jobs/poller.ts';
import { findMerchant } from '../merchants/index.ts';
import { createPayout, scheduledPayoutId } from './service.ts';
import { findPayoutByKey, scheduledMerchants } from './store.ts';

/** What one run did, for tests and logs. */
export interface ScheduleRun {
  paid: string[];
  skipped: { merchantId: string; mode: string; reason: string }[];
}

/** Answers that mean "nothing to do today, for now": not a failure of the job. */
const NOTHING_DUE = new Set(['nothing_to_pay_out', 'payout_below_minimum', 'payout_in_progress']);
const MONDAY = 1;

export async function runScheduledPayouts(context: AppContext, log: (message: string, detail: Record<string, unknown>) => void): Promise<ScheduleRun> {
  const now = context.now();
  const run: ScheduleRun = { paid: [], skipped: [] };
  if (now.getUTCHours() < context.config.payoutScheduleHourUtc) return run;
  const day = now.toISOString().slice(0, 10);
  for (const due of await scheduledMerchants(context.db)) {
    if (due.schedule === 'weekly' && now.getUTCDay() !== MONDAY) continue;
    const scheduleKey = `${due.merchant_id}:${due.mode}:${due.currency}:${day}`;
    if (await findPayoutByKey(context.db, scheduleKey)) continue;
    const merchant = await findMerchant(context.db, due.merchant_id);
    if (!merchant) continue;
    const caller = { merchantId: merchant.id, handle: merchant.handle, mode: due.mode };
    try {
      const made = await createPayout(context, caller, { currency: due.currency }, { id: scheduledPayoutId(scheduleKey), trigger: 'scheduled', scheduleKey }, due.minimum_amount);
      if (!made.created) continue;
      run.paid.push(made.row.id);
      // Live: submit now; were this process to die first, the payment scheduler submits it.
      if (made.row.provider !== null && due.mode === 'live') await context.payments.runPayment(made.row.payment_id);
    } catch (error) {
      const code = error instanceof ApiError ? error.code : 'error';
      run.skipped.push({ merchantId: due.merchant_id, mode: due.mode, reason: code });
      // Only what an operator should look at is logged: never an account number.
      if (!NOTHING_DUE.has(code)) log('scheduled payout not made', { merchantId: due.merchant_id, mode: due.mode, code, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return run;
}

export function payoutJobs(context: AppContext, log: (message: string, detail: Record<string, unknown>) => void): PolledJob<ScheduleRun> {
  return polledJob(() => runScheduledPayouts(context, log), context.config.payoutJobIntervalMs, (error) => log('payout job failed', { error: error instanceof Error ? error.message : String(error) }));
}
