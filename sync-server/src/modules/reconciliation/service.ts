// The daily reconciliation of live payouts with each payment provider: for one provider and one
// UTC day, our payouts through it made that day against the provider's own record of them.
//
// It reports; it never moves money. A mismatch is for an operator, who asks the provider and
// decides. Correcting automatically would be unsafe: the two sides disagree because one of them
// is wrong or late, and the report cannot tell which. A payout we show failed that the provider
// shows paid may be a payout the provider will still reverse, or a second payment under our key;
// one we show completed that the provider does not list may be a listing that lags, or a transfer
// made under another reference by hand; amounts may differ by a fee the provider took. Refunding
// the merchant, re-sending a payout or reversing a settlement on such evidence would pay twice or
// take back money that was really paid. The provider's callbacks and the scheduler's polls already
// apply every outcome the provider states about a payout (idempotently, through the payments
// module); what is left here is what they could not settle, and that is a human's call.
//
// Asking: a provider whose adapter lists a day's transactions (transactionsOn: Paystack,
// Flutterwave) is asked for that list, then by key about any payout of ours it should know but
// did not list (a listing's day boundary may differ from ours); the others (M-Pesa, MTN MoMo) are
// asked about each of our payouts of the day by key (lookup, else poll). Any question that fails
// fails the whole day (status failed, with the error): a half answer is not a reconciliation.
import type { Database } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { type PolledJob, forEachLimited, polledJob } from '../../jobs/poller.ts';
import { railClearingBalances, railClearingNetOf } from '../../ledger/ledger.ts';
import { type PaymentRow, type PayoutRequest, type PayoutUpdate, findProviderPayouts, listProviderPayoutsCreated, payoutRequestOf } from '../payments/index.ts';
import { type DayComparison, type Mismatch, type OurPayout, type ProviderTransaction, type TheirPayout, compareDay } from './compare.ts';
import {
  type ReconciliationMethod,
  type ReconciliationRow,
  findReconciliation,
  listMismatches,
  listReconciliations,
  reconciliationsOfDay,
  saveReconciliation,
} from './store.ts';

/** What the reconciliation needs of a provider's adapter (rails/<provider>; RailAdapter has it all). */
export interface ReconciliationSource {
  readonly name: string;
  /** The provider's record of a UTC day's transactions; `ours` are our payouts of the day, for adapters that ask by reference. */
  transactionsOn?(day: string, ours: readonly ProviderTransaction[]): Promise<ProviderTransaction[]>;
  /** What became of a payout at the provider; undefined when it never heard of its key. Throws when it cannot tell now. */
  lookup?(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate>;
}

export interface ReconciliationOptions {
  db: Database;
  now: () => Date;
  /** The configured providers. */
  sources: readonly ReconciliationSource[];
  /** RECONCILE_AFTER_HOURS: the daily job reconciles a day this long after it ends. */
  afterHours: number;
  /** How often the daily job looks for a day to reconcile (real time); 0: runOnce only. */
  intervalMs?: number;
  /** Warnings for an operator: a day mismatched or failed, a run that could not be recorded. */
  log: (message: string, detail: Record<string, unknown>) => void;
}

export interface ReconciliationRecord extends ReconciliationRow {
  mismatches: Mismatch[];
}

export interface JobRun {
  provider: string;
  day: string;
  status: ReconciliationRow['status'];
}

const DAY_MS = 24 * 3_600_000;
/** How often the daily job looks (the work is one indexed query when the day is done). */
export const RECONCILE_JOB_INTERVAL_MS = 10 * 60_000;
/** A day whose reconciliation failed (the provider could not be asked) is tried again this long after. */
export const RECONCILE_RETRY_FAILED_MS = 3_600_000;
/** Payouts asked about at once, by key. */
const ASK_CONCURRENCY = 4;
const ERROR_TEXT_MAX = 1000;
const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day given as YYYY-MM-DD; undefined for anything that is not a calendar day. */
export function dayStart(day: string): Date | undefined {
  if (!DAY_PATTERN.test(day)) return undefined;
  const start = new Date(`${day}T00:00:00.000Z`);
  return !Number.isNaN(start.getTime()) && start.toISOString().slice(0, 10) === day ? start : undefined;
}

/** The last UTC day that ended at least `afterHours` before `now`: what the daily job reconciles. */
export function dayToReconcile(now: Date, afterHours: number): string {
  const shifted = new Date(now.getTime() - afterHours * 3_600_000);
  const today = Date.UTC(shifted.getUTCFullYear(), shifted.getUTCMonth(), shifted.getUTCDate());
  return new Date(today - DAY_MS).toISOString().slice(0, 10);
}

function ourPayout(row: PaymentRow): OurPayout {
  return { paymentId: row.id, status: row.status, amount: row.destination_amount, currency: row.destination_currency, providerReference: row.provider_reference };
}

function theirStatus(update: PayoutUpdate): TheirPayout['status'] {
  return update.status === 'processing' ? 'pending' : update.status;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, ERROR_TEXT_MAX);
}

export function reconciliationService(options: ReconciliationOptions) {
  const { db } = options;
  const sources = new Map(options.sources.map((source) => [source.name, source]));

  /** Asks the provider about each payout by its key, a few at a time; the first failure stops it and throws. */
  async function askByKey(source: ReconciliationSource, rows: readonly PaymentRow[]): Promise<TheirPayout[]> {
    const answers: TheirPayout[] = [];
    let failure: Error | undefined;
    await forEachLimited(rows, ASK_CONCURRENCY, async (row) => {
      if (failure) return;
      const request = payoutRequestOf(row);
      try {
        const update = source.lookup ? await source.lookup(request) : await source.poll(request, row.provider_reference);
        if (update) answers.push({ paymentId: row.id, providerReference: update.providerReference ?? row.provider_reference, status: theirStatus(update), amount: null, currency: null });
      } catch (error) {
        failure ??= new Error(`${source.name} could not tell what became of payment ${row.id}: ${messageOf(error)}`);
      }
    });
    if (failure) throw failure;
    return answers;
  }

  /** The provider's side of the day; throws when it cannot be asked. */
  async function askProvider(source: ReconciliationSource, day: string, rows: readonly PaymentRow[]): Promise<TheirPayout[]> {
    if (!source.transactionsOn) return askByKey(source, rows);
    const ours: ProviderTransaction[] = rows.map((row) => ({
      id: row.id,
      providerReference: row.provider_reference,
      direction: 'payout',
      status: row.status === 'processing' ? 'pending' : row.status,
      amount: row.destination_amount,
      currency: row.destination_currency,
    }));
    const listed = (await source.transactionsOn(day, ours)).filter((transaction) => transaction.direction === 'payout');
    const theirs: TheirPayout[] = listed.map((transaction) => ({
      paymentId: transaction.id,
      providerReference: transaction.providerReference,
      status: transaction.status,
      amount: transaction.amount,
      currency: transaction.currency,
    }));
    // A payout the provider must know (it accepted it) but did not list is asked about by key
    // before it is called ours only: the provider may file it under the next day.
    const listedIds = new Set(listed.map((transaction) => transaction.id));
    const unlisted = rows.filter((row) => !listedIds.has(row.id) && (row.status === 'processing' || row.status === 'completed' || row.status === 'reversed'));
    return [...theirs, ...(await askByKey(source, unlisted))];
  }

  /**
   * Reconciles one provider's day now and records it (replacing an earlier record of that day).
   * Throws 404 rail_provider_not_configured, 400 validation_failed for a day that is not a date,
   * 409 reconciliation_day_not_over before the day has ended; a provider that cannot be asked is
   * a record with status failed, not an error. Database faults are thrown.
   */
  async function reconcile(provider: string, day: string): Promise<ReconciliationRecord> {
    const source = sources.get(provider);
    if (!source) throw notFound('rail_provider_not_configured', `No payment provider ${JSON.stringify(provider.slice(0, 40))} is configured on this server`);
    const from = dayStart(day);
    if (!from) throw badRequest('validation_failed', `Invalid body: day must be a calendar day as YYYY-MM-DD, got ${JSON.stringify(day.slice(0, 20))}`, [{ field: 'day', message: 'must be a calendar day (YYYY-MM-DD)' }]);
    const to = new Date(from.getTime() + DAY_MS);
    if (options.now().getTime() < to.getTime()) throw conflict('reconciliation_day_not_over', `${day} (UTC) has not ended yet: a day is reconciled once it is over`);

    const rows = await listProviderPayoutsCreated(db, provider, from, to);
    const ours = rows.map(ourPayout);
    const method: ReconciliationMethod = source.transactionsOn ? 'list' : 'by_key';
    let comparison: DayComparison;
    let error: string | null = null;
    try {
      const theirs = await askProvider(source, day, rows);
      const dayIds = new Set(rows.map((row) => row.id));
      const others = [...new Set(theirs.map((payout) => payout.paymentId).filter((id): id is string => id !== undefined && !dayIds.has(id)))];
      const elsewhere = (await findProviderPayouts(db, provider, others)).map(ourPayout);
      comparison = compareDay({ ours, theirs, elsewhere });
    } catch (caught) {
      error = messageOf(caught);
      // Our side is still known: its totals and what it leaves in clearing.
      const ourSide = compareDay({ ours, theirs: [], elsewhere: [] });
      comparison = { matched: 0, mismatches: [], ourTotals: ourSide.ourTotals, providerTotals: {}, clearingNet: ourSide.clearingNet };
    }
    const status = error !== null ? 'failed' : comparison.mismatches.length > 0 ? 'mismatched' : 'clean';
    // The ledger's side, whatever the provider answered: the provider's own clearing accounts.
    const ledgerClearingNet = await railClearingNetOf(db, provider, 'live', rows.map((row) => row.id));
    const clearingBalance = await railClearingBalances(db, provider, 'live');
    const row = await db.transaction((tx) =>
      saveReconciliation(
        tx,
        {
          id: newId('rcn'),
          provider,
          day,
          status,
          method,
          matched: comparison.matched,
          mismatched: comparison.mismatches.length,
          our_totals: comparison.ourTotals,
          provider_totals: comparison.providerTotals,
          clearing_net: comparison.clearingNet,
          ledger_clearing_net: ledgerClearingNet,
          clearing_balance: clearingBalance,
          error,
          created_at: options.now(),
        },
        comparison.mismatches,
      ),
    );
    if (status !== 'clean') {
      options.log(status === 'failed' ? 'rail reconciliation failed: the provider could not be asked' : 'rail reconciliation found mismatches for an operator', {
        provider,
        day,
        reconciliationId: row.id,
        ...(error !== null ? { error } : { mismatched: comparison.mismatches.length }),
      });
    }
    return { ...row, mismatches: comparison.mismatches };
  }

  async function find(id: string): Promise<ReconciliationRecord | undefined> {
    const row = await findReconciliation(db, id);
    return row ? { ...row, mismatches: await listMismatches(db, row.id) } : undefined;
  }

  function list(filter: { provider?: string | undefined; day?: string | undefined }, limit: number, offset: number) {
    return listReconciliations(db, filter, limit, offset);
  }

  /**
   * The daily job's one pass: the last day over by RECONCILE_AFTER_HOURS, for every configured
   * provider that has no record of it yet (or whose record failed an hour ago or more). The
   * database says what is done, so a restart neither repeats nor skips a day. Never throws: a
   * provider that cannot be asked is recorded failed; anything else is logged and tried next pass.
   */
  async function runOnce(): Promise<JobRun[]> {
    const now = options.now();
    const day = dayToReconcile(now, options.afterHours);
    const runs: JobRun[] = [];
    let done: Map<string, { status: string; created_at: Date }>;
    try {
      done = new Map((await reconciliationsOfDay(db, day)).map((row) => [row.provider, row]));
    } catch (error) {
      options.log('rail reconciliation: could not read what is done', { day, error: messageOf(error) });
      return runs;
    }
    for (const source of sources.values()) {
      const earlier = done.get(source.name);
      if (earlier && (earlier.status !== 'failed' || now.getTime() - earlier.created_at.getTime() < RECONCILE_RETRY_FAILED_MS)) continue;
      try {
        const record = await reconcile(source.name, day);
        runs.push({ provider: source.name, day, status: record.status });
      } catch (error) {
        options.log('rail reconciliation could not be recorded', { provider: source.name, day, error: messageOf(error) });
      }
    }
    return runs;
  }

  const job: PolledJob<JobRun[]> = polledJob(runOnce, options.intervalMs ?? RECONCILE_JOB_INTERVAL_MS, (error) =>
    options.log('rail reconciliation job failed', { error: messageOf(error) }),
  );

  return {
    reconcile,
    find,
    list,
    /** Configured provider names. */
    providers: () => [...sources.keys()],
    runOnce,
    start: job.start,
    stop: job.stop,
  };
}

export type ReconciliationService = ReturnType<typeof reconciliationService>;
