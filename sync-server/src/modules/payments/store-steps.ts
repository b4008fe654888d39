import type { Queryable } from '../../db/database.ts';
import type { PaymentRow } from './store.ts';

// The payment steps' SQL (scheduler.ts and the sandbox paths of service.ts): claiming due
// payments, leasing them for a provider call, backoffs, and the sandbox batches. Rows are read
// whole (SELECT *) as the scheduler has always read them.

/** One payment, locked, if its step is due now; skipped when another worker holds it. */
export async function claimDuePayment(tx: Queryable, id: string, now: Date): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 AND next_step_at <= $2 FOR UPDATE SKIP LOCKED', [id, now]);
  return row;
}

/** The next due payment not in `exclude` (payments this run already set aside), locked. */
export async function claimNextDuePayment(tx: Queryable, now: Date, exclude: readonly string[]): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>(
    `SELECT * FROM payments WHERE next_step_at <= $1 AND NOT (id = ANY ($2::text[]))
     ORDER BY next_step_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [now, exclude],
    { prepareAs: 'payments_claim_due' },
  );
  return row;
}

export async function lockPayment(tx: Queryable, id: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

/** A step that threw: tried again at `retryAt`, one attempt more, with its error. */
export async function setStepAside(db: Queryable, id: string, retryAt: Date, error: string): Promise<void> {
  await db.query('UPDATE payments SET next_step_at = $2, step_attempts = step_attempts + 1, last_step_error = $3 WHERE id = $1', [id, retryAt, error]);
}

/** Holds the payment for a provider call until `until` (another worker may take it over after). */
export async function leaseForProvider(tx: Queryable, id: string, until: Date): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>('UPDATE payments SET next_step_at = $2, step_attempts = step_attempts + 1 WHERE id = $1 RETURNING *', [id, until]);
  return row;
}

/** A provider call that failed: retried at `retryAt` if the payment is still in `status`. */
export async function recordProviderError(db: Queryable, id: string, status: string, retryAt: Date, error: string): Promise<void> {
  await db.query('UPDATE payments SET next_step_at = $2, last_step_error = $3 WHERE id = $1 AND status = $4', [id, retryAt, error, status]);
}

/** A poll without news: only the next poll moves (and the provider's reference, if it sent one). */
export async function schedulePoll(tx: Queryable, id: string, at: Date, providerReference: string | null): Promise<void> {
  await tx.query('UPDATE payments SET next_step_at = $2, step_attempts = 0, last_step_error = NULL, provider_reference = coalesce($3, provider_reference) WHERE id = $1', [
    id,
    at,
    providerReference,
  ]);
}

/** Nothing more to do for this payment: it leaves the schedule. */
export async function stopScheduling(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE payments SET next_step_at = NULL WHERE id = $1', [id]);
}

/** Due pending sandbox payments to processing in one statement; returns how many moved. */
export async function advanceSandboxPending(db: Queryable, now: Date, nextStepAt: Date, limit: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE payments p SET status = 'processing', updated_at = $1, next_step_at = $2, step_attempts = 0, last_step_error = NULL,
       timeline = p.timeline || jsonb_build_array(jsonb_build_object('status', 'processing', 'at', $3::text, 'note', 'Sandbox: accepted by the simulated rail'))
     WHERE p.id IN (SELECT id FROM payments WHERE next_step_at <= $1 AND scenario = 'sandbox_default' AND status = 'pending'
                    ORDER BY next_step_at LIMIT $4 FOR UPDATE SKIP LOCKED)
     RETURNING p.id`,
    [now, nextStepAt, now.toISOString(), limit],
    { prepareAs: 'payments_advance_sandbox' },
  );
  return rows.length;
}

/** Due processing sandbox payouts (to an outside rail), locked, at most `limit`. */
export async function claimSandboxCompletions(tx: Queryable, now: Date, limit: number): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM payments WHERE next_step_at <= $1 AND scenario = 'sandbox_default' AND status = 'processing' AND recipient_wallet_id IS NULL
     ORDER BY next_step_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [now, limit],
    { prepareAs: 'payments_due_completion' },
  );
  return rows.map((row) => row.id);
}

export async function completeSandboxPayments(tx: Queryable, ids: readonly string[], now: Date): Promise<PaymentRow[]> {
  return tx.query<PaymentRow>(
    `UPDATE payments p SET status = 'completed', updated_at = $2, next_step_at = NULL, step_attempts = 0, last_step_error = NULL,
       timeline = p.timeline || jsonb_build_array(jsonb_build_object('status', 'completed', 'at', $3::text, 'note', 'Sandbox: paid out by the simulated rail'))
     WHERE p.id = ANY ($1::text[]) RETURNING *`,
    [ids, now, now.toISOString()],
  );
}
