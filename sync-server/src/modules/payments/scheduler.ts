import type { Database, Queryable } from '../../db/database.ts';
import { deleteExpiredIdempotencyKeys } from '../../http/idempotency.ts';
import { Poller } from '../../jobs/poller.ts';
import type { PayoutProvider, PayoutSender, PayoutUpdate } from './providers.ts';
import { advanceSandboxBatch, completePayment, completeSandboxBatch, failPayment, payoutRequestOf, reversePayment, sandboxStep } from './service.ts';
import { type PaymentRow, updatePayment } from './store.ts';
import { claimDuePayment, claimNextDuePayment, leaseForProvider, lockPayment, recordProviderError, schedulePoll, setStepAside, stopScheduling } from './store-steps.ts';
import { deleteExpiredQuotes } from '../fx/index.ts';

export interface PaymentSchedulerOptions {
  db: Database;
  now: () => Date;
  /** Time between sandbox steps (SANDBOX_STEP_MS). */
  stepMs: number;
  pollIntervalMs: number;
  payoutProviders: readonly PayoutProvider[];
  /** How long a claimed provider call may take before another worker may take the payment over (asking the provider first). */
  providerLeaseMs?: number;
  /** How often a live payment in processing is polled at its provider (RAIL_POLL_MS; default PROVIDER_POLL_MS). */
  providerPollMs?: number;
  onError?: (error: unknown) => void;
  /** The sender a submit carries (PayoutRequest.sender), read from the payment's merchant profile when its provider needsSender(); absent: none. */
  senderOf?: (row: PaymentRow) => Promise<PayoutSender | undefined>;
}

/** How long a claimed provider call may take by default before another worker may take the payment over. */
const PROVIDER_LEASE_MS = 60_000;

/**
 * The lease of one provider step for a per-request timeout: a step makes at most a few requests
 * (a lookup, a recipient, the transfer), so a live worker never loses its lease mid-step.
 */
export function providerLeaseFor(requestTimeoutMs: number): number {
  return Math.max(10_000, 4 * requestTimeoutMs + 5_000);
}
/** How often a live payment in processing is polled at its provider. */
export const PROVIDER_POLL_MS = 30_000;
const STEPS_PER_RUN_MAX = 5_000;
/** Expired idempotency records and FX quotes are deleted this often, at most this many a time. */
const SWEEP_INTERVAL_MS = 10 * 60_000;
const SWEEP_BATCH = 10_000;
/** Sandbox payments moved per statement (advance) or per transaction (completion). */
// Small batches keep each commit's WAL (and so its flush, which every other commit then waits
// behind) short.
const SANDBOX_BATCH = 50;
const ERROR_TEXT_MAX = 500;

/** The longest pause between two full batches of a backlog. */
const CATCH_UP_PAUSE_MAX_MS = 100;

/**
 * Runs one batch; when it was a full one (a backlog, after a burst of payments or an outage),
 * pauses as long as it took before the next, so catching up takes at most about half of the
 * database's time and requests keep more of their latency (bench:pay: p99 8.7 ms with the
 * scheduler off, up to 85 ms while it caught up back to back). A longer pause (three times)
 * let the backlog grow at half load.
 */
async function paced(batch: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const moved = await batch();
  if (moved === SANDBOX_BATCH) {
    const pause = Math.min(CATCH_UP_PAUSE_MAX_MS, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
  return moved;
}

function backoffMs(attempts: number): number {
  return Math.min(5_000 * 2 ** Math.max(0, attempts - 1), 15 * 60_000);
}

/**
 * The durable state scheduler: every payment with an automatic next step carries next_step_at;
 * workers claim due payments with FOR UPDATE SKIP LOCKED and take the step in the same
 * transaction (sandbox steps: a state change, its ledger transfer and its event). A restart
 * loses nothing: the schedule is in the database, measured on the injected clock. Live
 * provider calls happen outside transactions under a lease (next_step_at moved ahead), so a
 * worker that dies mid-call is replaced when the lease runs out; adapters are idempotent on the
 * payment id.
 */
export function paymentScheduler(options: PaymentSchedulerOptions) {
  const pollMs = options.providerPollMs ?? PROVIDER_POLL_MS;
  let lastSweepAt = 0;

  /** Takes every step due now, each once; resolves with how many were taken. */
  async function runOnce(): Promise<number> {
    const now = options.now();
    if (now.getTime() - lastSweepAt >= SWEEP_INTERVAL_MS) {
      lastSweepAt = now.getTime();
      await sweep(now);
    }
    // The sandbox default path in bulk first: it is most of the volume.
    let bulk = 0;
    for (let moved = SANDBOX_BATCH; moved === SANDBOX_BATCH && bulk < STEPS_PER_RUN_MAX; ) {
      moved = await paced(() => advanceSandboxBatch(options.db, now, options.stepMs, SANDBOX_BATCH));
      bulk += moved;
    }
    for (let completed = SANDBOX_BATCH; completed === SANDBOX_BATCH && bulk < 2 * STEPS_PER_RUN_MAX; ) {
      completed = await paced(() => completeSandboxBatch(options.db, now, SANDBOX_BATCH));
      bulk += completed;
    }
    // A payment stepped in this run is not stepped again in it, even when its next step is due at
    // once (SANDBOX_STEP_MS=0); otherwise next_step_at has moved past `now` anyway.
    const done: string[] = [];
    const workers = options.db.kind === 'postgres' ? 2 : 1;
    let exhausted = false;
    const worker = async () => {
      while (!exhausted && done.length < STEPS_PER_RUN_MAX) {
        const claimed = await claimOne(now, options.stepMs === 0 ? done : []);
        if (!claimed) {
          exhausted = true;
          return;
        }
        done.push(claimed.row.id);
        if (claimed.leased) await providerStep(claimed.leased);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    return bulk + done.length;
  }

  /**
   * Forgets what has outlived its purpose, a bounded batch at a time: Idempotency-Key records past
   * their 24 hours (the idempotency layer's clock is the database's) and FX quotes expired a day ago.
   */
  async function sweep(now: Date): Promise<void> {
    await deleteExpiredIdempotencyKeys(options.db, SWEEP_BATCH);
    await deleteExpiredQuotes(options.db, new Date(now.getTime() - 24 * 3600_000), SWEEP_BATCH);
  }

  /** Takes the step of one payment now if it is due (the live provider submission right after creation). */
  async function runPayment(id: string): Promise<void> {
    const now = options.now();
    const leased = await options.db.transaction(async (tx) => {
      const row = await claimDuePayment(tx, id, now);
      return row ? step(tx, row, now) : undefined;
    });
    if (leased) await providerStep(leased);
  }

  /**
   * Claims one due payment (FOR UPDATE SKIP LOCKED) and takes its step in the same short
   * transaction. A step that throws is set aside with its error and a backoff, so one bad
   * payment never holds up the others.
   */
  async function claimOne(now: Date, exclude: readonly string[]): Promise<{ row: PaymentRow; leased: PaymentRow | undefined } | undefined> {
    let current: PaymentRow | undefined;
    try {
      return await options.db.transaction(async (tx) => {
        const row = await claimNextDuePayment(tx, now, exclude);
        current = row;
        if (!row) return undefined;
        return { row, leased: await step(tx, row, now) };
      });
    } catch (error) {
      const failing = current;
      if (!failing) throw error;
      await setStepAside(options.db, failing.id, new Date(now.getTime() + backoffMs(failing.step_attempts + 1)), String((error as Error).message ?? error).slice(0, ERROR_TEXT_MAX));
      options.onError?.(error);
      return { row: failing, leased: undefined };
    }
  }

  /** One due step under the row lock; returns the leased row when a provider call must follow. */
  async function step(tx: Queryable, row: PaymentRow, now: Date): Promise<PaymentRow | undefined> {
    if (row.scenario === 'provider') {
      const leased = await leaseForProvider(tx, row.id, new Date(now.getTime() + (options.providerLeaseMs ?? PROVIDER_LEASE_MS)));
      return leased;
    }
    await sandboxStep(tx, row, now, options.stepMs);
    return undefined;
  }

  async function providerStep(row: PaymentRow): Promise<void> {
    const provider = options.payoutProviders.find((candidate) => candidate.name === row.provider);
    let update: PayoutUpdate;
    try {
      if (!provider) throw new Error(`payout provider ${row.provider} is not configured`);
      const request = payoutRequestOf(row);
      if (row.status !== 'pending') update = await provider.poll(request, row.provider_reference);
      else {
        // A submit was claimed before (its answer lost to a timeout, a 5xx or a crash): the
        // provider is asked what became of it first, and sent it again only if it never heard of it.
        const earlier = row.step_attempts > 1 && provider.lookup ? await provider.lookup(request) : undefined;
        const sender = earlier || !provider.needsSender?.(request) ? undefined : await options.senderOf?.(row);
        update = earlier ?? (await provider.submit(sender ? { ...request, sender } : request));
      }
    } catch (error) {
      const now = options.now();
      await recordProviderError(options.db, row.id, row.status, new Date(now.getTime() + backoffMs(row.step_attempts)), String((error as Error).message ?? error).slice(0, ERROR_TEXT_MAX));
      return;
    }
    await applyUpdate(row, update);
  }

  /** Applies a provider's answer under the row lock, if the payment is still where it was asked about. */
  async function applyUpdate(asked: PaymentRow, update: PayoutUpdate): Promise<void> {
    await options.db.transaction(async (tx) => {
      const row = await lockPayment(tx, asked.id);
      if (!row || row.status !== asked.status) return;
      await applyUpdateLocked(tx, row, update, options.now());
    });
  }

  /**
   * What a provider's callback says, applied whatever the payment's state: a duplicate changes
   * nothing, a callback that arrives before the submit's answer moves the payment on its own (the
   * submit's answer then finds it moved and is dropped), and a final state stays final except a
   * success reversed. Answers whether anything changed.
   */
  async function applyCallback(paymentId: string, providerName: string, update: PayoutUpdate): Promise<'applied' | 'unchanged' | 'unknown_payment'> {
    return options.db.transaction(async (tx) => {
      const row = await lockPayment(tx, paymentId);
      if (!row || row.scenario !== 'provider' || row.provider !== providerName) return 'unknown_payment';
      const final = row.status === 'completed' || row.status === 'failed' || row.status === 'reversed';
      if (final && !(row.status === 'completed' && update.status === 'reversed')) return 'unchanged';
      if (row.status === 'processing' && update.status === 'processing') return 'unchanged';
      await applyUpdateLocked(tx, row, update, options.now());
      return 'applied';
    });
  }

  const WATCH_POLL_MAX_MS = 6 * 3_600_000;

  /** How long the payment's provider asks to keep polling completed payouts (0: it calls back on reversal). */
  function watchAfterCompletion(row: PaymentRow): number {
    return options.payoutProviders.find((candidate) => candidate.name === row.provider)?.watchAfterCompletionMs ?? 0;
  }

  /** A completed payout asked about again: the next ask later (half its age), or none once past the watch. */
  async function keepWatching(tx: Queryable, row: PaymentRow, now: Date): Promise<void> {
    const age = now.getTime() - row.updated_at.getTime();
    if (age >= watchAfterCompletion(row)) {
      await stopScheduling(tx, row.id);
      return;
    }
    await schedulePoll(tx, row.id, new Date(now.getTime() + Math.min(WATCH_POLL_MAX_MS, Math.max(pollMs, age / 2))), null);
  }

  async function applyUpdateLocked(tx: Queryable, row: PaymentRow, update: PayoutUpdate, now: Date): Promise<void> {
    const reference = update.providerReference ?? null;
    const said = reference ? ` (reference ${reference})` : '';
    const reason = update.failureReason ?? `The provider reported the payment ${update.status}`;
    switch (update.status) {
      case 'processing':
        if (row.status === 'completed') {
          await keepWatching(tx, row, now);
          return;
        }
        if (row.status === 'processing') {
          // Polled without news: only the next poll moves.
          await schedulePoll(tx, row.id, new Date(now.getTime() + pollMs), reference);
          return;
        }
        await updatePayment(tx, row.id, {
          status: 'processing',
          entry: { status: 'processing', at: now.toISOString(), note: `Accepted by ${row.provider}${said}` },
          at: now,
          nextStepAt: new Date(now.getTime() + pollMs),
          providerReference: reference,
          ...(update.estimatedArrival ? { estimatedArrival: update.estimatedArrival } : {}),
        });
        return;
      case 'completed': {
        if (row.status === 'completed') {
          await keepWatching(tx, row, now);
          return;
        }
        const watch = watchAfterCompletion(row);
        await completePayment(tx, row, now, `Paid out by ${row.provider}${said}`, {
          providerReference: reference,
          ...(watch > 0 ? { nextStepAt: new Date(now.getTime() + pollMs) } : {}),
        });
        return;
      }
      case 'failed':
        if (row.status === 'completed') {
          // A completed payout the provider now calls failed: not undone here (reconciliation reports it).
          await keepWatching(tx, row, now);
          return;
        }
        await failPayment(tx, row, now, reason, { providerReference: reference });
        return;
      case 'reversed':
        if (row.status === 'completed') await reversePayment(tx, row, now, reason);
        else await failPayment(tx, row, now, reason, { providerReference: reference });
        return;
    }
  }

  const poller = new Poller(runOnce, options.pollIntervalMs, options.onError ?? ((error) => console.error('payment scheduler:', error)));

  function start(): void {
    poller.start();
  }

  function stop(): Promise<void> {
    return poller.stop();
  }

  return { start, stop, runOnce, runPayment, applyCallback };
}

export type PaymentScheduler = ReturnType<typeof paymentScheduler>;
