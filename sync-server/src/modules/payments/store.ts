import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { Receiver } from './receiver.ts';

export type PaymentStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'reversed';
/**
 * 'payout': POST /api/pay; 'link': a payment link paid by a wallet holder; 'payroll': a payroll item
 * paid out through a rail; 'withdrawal': a holder's own money out to her phone or bank (no merchant);
 * 'settlement': a merchant's payout to its own bank or mobile money (modules/payouts; merchant_id NULL like a withdrawal);
 * 'agent_settlement': an agent's float out to its registered bank or mobile money (modules/agent; merchant_id NULL).
 */
export type PaymentKind = 'payout' | 'link' | 'payroll' | 'withdrawal' | 'settlement' | 'agent_settlement';
export type Scenario = 'sandbox_default' | 'sandbox_success' | 'sandbox_failure' | 'sandbox_pending' | 'sandbox_reversal' | 'on_us' | 'provider' | 'link';

export interface TimelineEntry {
  status: PaymentStatus;
  at: string;
  note?: string;
}

export interface PaymentRow {
  id: string;
  /** Null only for a withdrawal (kind 'withdrawal'): a holder's payout, no merchant's. */
  merchant_id: string | null;
  mode: Mode;
  kind: PaymentKind;
  status: PaymentStatus;
  scenario: Scenario;
  rail: string;
  from_country: string | null;
  to_country: string | null;
  amount: number;
  currency: string;
  fee: number;
  destination_amount: number;
  destination_currency: string;
  fx_rate: string;
  mid_rate: string;
  quote_id: string | null;
  receiver: Receiver | Record<string, unknown>;
  receiver_name: string | null;
  sender_name: string | null;
  note: string | null;
  reference: string | null;
  source_wallet_id: string;
  recipient_wallet_id: string | null;
  payment_link_id: string | null;
  failure_reason: string | null;
  provider: string | null;
  provider_reference: string | null;
  estimated_arrival: Date;
  timeline: TimelineEntry[];
  next_step_at: Date | null;
  step_attempts: number;
  created_at: Date;
  updated_at: Date;
}

export type NewPayment = Omit<PaymentRow, 'step_attempts' | 'updated_at'>;

const COLUMNS = `id, merchant_id, mode, kind, status, scenario, rail, from_country, to_country, amount, currency, fee,
  destination_amount, destination_currency, fx_rate, mid_rate, quote_id, receiver, receiver_name, sender_name, note, reference,
  source_wallet_id, recipient_wallet_id, payment_link_id, failure_reason, provider, provider_reference, estimated_arrival,
  timeline, next_step_at, step_attempts, created_at, updated_at`;

/** Inserts a payment; undefined when its id exists already (a re-run of the same request). */
export async function insertPayment(tx: Queryable, payment: NewPayment): Promise<PaymentRow | undefined> {
  const [row] = await tx.query<PaymentRow>(
    `INSERT INTO payments (id, merchant_id, mode, kind, status, scenario, rail, from_country, to_country, amount, currency, fee,
       destination_amount, destination_currency, fx_rate, mid_rate, quote_id, receiver, receiver_name, sender_name, note, reference,
       source_wallet_id, recipient_wallet_id, payment_link_id, failure_reason, provider, provider_reference, estimated_arrival,
       timeline, next_step_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18::jsonb, $19, $20, $21, $22, $23, $24, $25,
       $26, $27, $28, $29, $30::jsonb, $31, $32, $32)
     ON CONFLICT (id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      payment.id, payment.merchant_id, payment.mode, payment.kind, payment.status, payment.scenario, payment.rail, payment.from_country,
      payment.to_country, payment.amount, payment.currency, payment.fee, payment.destination_amount, payment.destination_currency,
      payment.fx_rate, payment.mid_rate, payment.quote_id, JSON.stringify(payment.receiver), payment.receiver_name, payment.sender_name,
      payment.note, payment.reference, payment.source_wallet_id, payment.recipient_wallet_id, payment.payment_link_id,
      payment.failure_reason, payment.provider, payment.provider_reference, payment.estimated_arrival, JSON.stringify(payment.timeline),
      payment.next_step_at, payment.created_at,
    ],
    { prepareAs: 'payments_insert' },
  );
  return row;
}

export async function findPayment(db: Queryable, id: string, options: { forUpdate?: boolean } = {}): Promise<PaymentRow | undefined> {
  const [row] = await db.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
  return row;
}

/** The payment a link's payment made under this id (a re-run of the same Idempotency-Key). */
export async function findLinkPayment(db: Queryable, id: string, linkId: string): Promise<PaymentRow | undefined> {
  const [row] = await db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 AND payment_link_id = $2', [id, linkId]);
  return row;
}

/** Moves a payment to a new status, appending to its timeline, and sets its next step. */
export async function updatePayment(
  tx: Queryable,
  id: string,
  change: {
    status: PaymentStatus;
    entry: TimelineEntry;
    at: Date;
    nextStepAt: Date | null;
    failureReason?: string | null;
    providerReference?: string | null;
    provider?: string | null;
    estimatedArrival?: Date;
    resetAttempts?: boolean;
  },
): Promise<PaymentRow> {
  const [row] = await tx.query<PaymentRow>(
    `UPDATE payments SET status = $2, timeline = timeline || $3::jsonb, updated_at = $4, next_step_at = $5,
       failure_reason = coalesce($6, failure_reason), provider_reference = coalesce($7, provider_reference),
       provider = coalesce($8, provider), estimated_arrival = coalesce($9, estimated_arrival),
       step_attempts = CASE WHEN $10 THEN 0 ELSE step_attempts END, last_step_error = CASE WHEN $10 THEN NULL ELSE last_step_error END
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id, change.status, JSON.stringify([change.entry]), change.at, change.nextStepAt, change.failureReason ?? null,
      change.providerReference ?? null, change.provider ?? null, change.estimatedArrival ?? null, change.resetAttempts ?? true,
    ],
    { prepareAs: 'payments_update' },
  );
  if (!row) throw new Error(`payment ${id} vanished`);
  return row;
}

export interface PaymentFilter {
  status?: string | undefined;
  kind?: 'payout' | 'link' | undefined;
  paymentLinkId?: string | undefined;
}

export async function listPayments(db: Queryable, merchantId: string, mode: Mode, filter: PaymentFilter, limit: number, offset: number): Promise<{ rows: PaymentRow[]; total: number }> {
  const params: unknown[] = [merchantId, mode];
  let where = 'merchant_id = $1 AND mode = $2';
  if (filter.status) {
    params.push(filter.status);
    where += ` AND status = $${params.length}`;
  }
  if (filter.kind) {
    params.push(filter.kind);
    where += ` AND kind = $${params.length}`;
  }
  if (filter.paymentLinkId) {
    params.push(filter.paymentLinkId);
    where += ` AND payment_link_id = $${params.length}`;
  }
  const rows = await db.query<PaymentRow>(
    `SELECT ${COLUMNS} FROM payments WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...(params as string[]), limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payments WHERE ${where}`, params as string[]);
  return { rows, total: count?.total ?? 0 };
}

/**
 * Live payouts still open at their provider (pending or processing) since before `before`, oldest
 * first, across merchants: what an operator looks into (migration 031's partial index).
 */
export async function listPaymentsNeedingAttention(
  db: Queryable,
  before: Date,
  limit: number,
  offset: number,
): Promise<{ rows: (PaymentRow & { last_step_error: string | null; merchant_name: string | null })[]; total: number }> {
  const where = `scenario = 'provider' AND status IN ('pending', 'processing') AND created_at < $1`;
  if (limit === 0) {
    const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payments WHERE ${where}`, [before]);
    return { rows: [], total: count?.total ?? 0 };
  }
  const rows = await db.query<PaymentRow & { last_step_error: string | null; merchant_name: string | null }>(
    `SELECT ${COLUMNS}, last_step_error, (SELECT m.name FROM merchants m WHERE m.id = payments.merchant_id) AS merchant_name
     FROM payments WHERE ${where} ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [before, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payments WHERE ${where}`, [before]);
  return { rows, total: count?.total ?? 0 };
}

/**
 * Live payouts sent through `provider` and created in [from, to), oldest first: the day the
 * daily reconciliation compares with the provider's record (migration 032's index).
 */
export async function listProviderPayoutsCreated(db: Queryable, provider: string, from: Date, to: Date): Promise<PaymentRow[]> {
  return db.query<PaymentRow>(
    `SELECT ${COLUMNS} FROM payments WHERE provider = $1 AND scenario = 'provider' AND mode = 'live' AND created_at >= $2 AND created_at < $3
     ORDER BY created_at, id`,
    [provider, from, to],
  );
}

/** The live payouts through `provider` among `ids`, whatever day they were made (a provider's record of a day may hold one of ours made just before midnight). */
export async function findProviderPayouts(db: Queryable, provider: string, ids: readonly string[]): Promise<PaymentRow[]> {
  if (ids.length === 0) return [];
  return db.query<PaymentRow>(`SELECT ${COLUMNS} FROM payments WHERE id = ANY ($2::text[]) AND provider = $1 AND scenario = 'provider' AND mode = 'live'`, [provider, ids]);
}
