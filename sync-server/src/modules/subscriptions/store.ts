import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export type SubscriptionStatus = 'active' | 'past_due' | 'cancelled';
export type CancellationReason = 'cancellation_requested' | 'payment_failed';

export interface SubscriptionRow {
  id: string;
  plan_id: string;
  merchant_id: string;
  mode: Mode;
  wallet_id: string;
  handle: string;
  merchant_wallet_id: string;
  amount: number;
  currency: string;
  status: SubscriptionStatus;
  period: number;
  current_period_start: Date;
  current_period_end: Date;
  cancel_at_period_end: boolean;
  next_charge_at: Date | null;
  failed_attempts: number;
  cancelled_at: Date | null;
  cancellation_reason: CancellationReason | null;
  created_at: Date;
  updated_at: Date;
}

export interface ChargeRow {
  id: string;
  subscription_id: string;
  mode: Mode;
  period: number;
  period_start: Date;
  period_end: Date;
  amount: number;
  currency: string;
  status: 'paid' | 'failed';
  failure_reason: string | null;
  attempt: number;
  transfer_id: string | null;
  attempted_at: Date;
}

/** Whose subscriptions a caller may see: a merchant's (its subscribers) or a wallet holder's (their own). */
export type SubscriptionScope = { mode: Mode } & ({ merchantId: string } | { walletId: string });

function scopeCondition(scope: SubscriptionScope, firstParam: number): { sql: string; params: string[] } {
  return 'merchantId' in scope
    ? { sql: `merchant_id = $${firstParam} AND mode = $${firstParam + 1}`, params: [scope.merchantId, scope.mode] }
    : { sql: `wallet_id = $${firstParam} AND mode = $${firstParam + 1}`, params: [scope.walletId, scope.mode] };
}

export async function insertSubscription(tx: Queryable, row: SubscriptionRow): Promise<SubscriptionRow> {
  const [created] = await tx.query<SubscriptionRow>(
    `INSERT INTO subscriptions (id, plan_id, merchant_id, mode, wallet_id, handle, merchant_wallet_id, amount, currency, status, period,
       current_period_start, current_period_end, cancel_at_period_end, next_charge_at, failed_attempts, cancelled_at, cancellation_reason, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING *`,
    [
      row.id, row.plan_id, row.merchant_id, row.mode, row.wallet_id, row.handle, row.merchant_wallet_id, row.amount, row.currency, row.status, row.period,
      row.current_period_start, row.current_period_end, row.cancel_at_period_end, row.next_charge_at, row.failed_attempts, row.cancelled_at, row.cancellation_reason,
      row.created_at, row.updated_at,
    ],
  );
  return created!;
}

/** Writes the mutable columns of a subscription read (and locked) by the caller. */
export async function saveSubscription(tx: Queryable, row: SubscriptionRow): Promise<SubscriptionRow> {
  const [saved] = await tx.query<SubscriptionRow>(
    `UPDATE subscriptions SET status = $2, period = $3, current_period_start = $4, current_period_end = $5, cancel_at_period_end = $6,
       next_charge_at = $7, failed_attempts = $8, cancelled_at = $9, cancellation_reason = $10, updated_at = $11
     WHERE id = $1 RETURNING *`,
    [
      row.id, row.status, row.period, row.current_period_start, row.current_period_end, row.cancel_at_period_end,
      row.next_charge_at, row.failed_attempts, row.cancelled_at, row.cancellation_reason, row.updated_at,
    ],
  );
  return saved!;
}

export async function findSubscription(db: Queryable, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE id = $1', [id]);
  return row;
}

export async function lockSubscription(tx: Queryable, id: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.query<SubscriptionRow>('SELECT * FROM subscriptions WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

/**
 * Serialises, until the transaction ends, everything that decides when a holder's paid time of a
 * plan starts: subscribing (which reads the holder's gift activations) and redeeming a gift of the
 * plan (which reads the holder's subscription). Without it, a gift redeemed while a subscription is
 * being created could start now instead of extending the period the creation charges.
 */
export async function lockPlanHolder(tx: Queryable, planId: string, walletId: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`subscription:${planId}:${walletId}`]);
}

/** The holder's running (active or past_due) subscription to a plan, locked. */
export async function lockRunningSubscription(tx: Queryable, planId: string, walletId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.query<SubscriptionRow>(
    "SELECT * FROM subscriptions WHERE plan_id = $1 AND wallet_id = $2 AND status <> 'cancelled' FOR UPDATE",
    [planId, walletId],
  );
  return row;
}

export async function findRunningSubscription(db: Queryable, planId: string, walletId: string): Promise<SubscriptionRow | undefined> {
  const [row] = await db.query<SubscriptionRow>("SELECT * FROM subscriptions WHERE plan_id = $1 AND wallet_id = $2 AND status <> 'cancelled'", [planId, walletId]);
  return row;
}

/**
 * Claims one running subscription due by `now` that no other worker holds (FOR UPDATE SKIP
 * LOCKED): several server instances share the renewals and never charge one subscription twice.
 */
export async function claimDueSubscription(tx: Queryable, now: Date): Promise<SubscriptionRow | undefined> {
  const [row] = await tx.query<SubscriptionRow>(
    `SELECT * FROM subscriptions WHERE status <> 'cancelled' AND next_charge_at <= $1
     ORDER BY next_charge_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`,
    [now],
  );
  return row;
}

export async function listSubscriptions(
  db: Queryable,
  scope: SubscriptionScope,
  filter: { status?: SubscriptionStatus | undefined; planId?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: SubscriptionRow[]; total: number }> {
  const { sql, params } = scopeCondition(scope, 1);
  const where = `${sql} AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR plan_id = $4)`;
  const values = [...params, filter.status ?? null, filter.planId ?? null];
  const rows = await db.query<SubscriptionRow>(`SELECT * FROM subscriptions WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`, [...values, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM subscriptions WHERE ${where}`, values);
  return { rows, total: count?.total ?? 0 };
}

export async function insertCharge(tx: Queryable, row: ChargeRow): Promise<ChargeRow> {
  const [created] = await tx.query<ChargeRow>(
    `INSERT INTO subscription_charges (id, subscription_id, mode, period, period_start, period_end, amount, currency, status, failure_reason, attempt, transfer_id, attempted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
    [row.id, row.subscription_id, row.mode, row.period, row.period_start, row.period_end, row.amount, row.currency, row.status, row.failure_reason, row.attempt, row.transfer_id, row.attempted_at],
  );
  return created!;
}

/** A subscription's charges, oldest first. */
export async function listCharges(db: Queryable, subscriptionId: string, limit: number, offset: number): Promise<{ rows: ChargeRow[]; total: number }> {
  const rows = await db.query<ChargeRow>(
    'SELECT * FROM subscription_charges WHERE subscription_id = $1 ORDER BY attempted_at, period, attempt LIMIT $2 OFFSET $3',
    [subscriptionId, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM subscription_charges WHERE subscription_id = $1', [subscriptionId]);
  return { rows, total: count?.total ?? 0 };
}

// Plans and their activations by subscription gift cards (a gift card redeemed pays months of a plan).

export interface PlanRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  price: number;
  currency: string;
  billing_interval: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function insertPlan(db: Queryable, row: PlanRow): Promise<PlanRow> {
  const [created] = await db.query<PlanRow>(
    `INSERT INTO subscription_plans (id, merchant_id, mode, name, price, currency, billing_interval, active, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [row.id, row.merchant_id, row.mode, row.name, row.price, row.currency, row.billing_interval, row.active, row.created_at, row.updated_at],
  );
  return created!;
}

export async function findPlan(db: Queryable, id: string): Promise<PlanRow | undefined> {
  const [row] = await db.query<PlanRow>('SELECT * FROM subscription_plans WHERE id = $1', [id]);
  return row;
}

/** Renames a plan or retires it (active false) in the caller's merchant and mode; undefined when it is not theirs. */
export async function updatePlan(
  db: Queryable,
  id: string,
  merchantId: string,
  mode: Mode,
  fields: { name?: string | undefined; active?: boolean | undefined; now: Date },
): Promise<PlanRow | undefined> {
  const [row] = await db.query<PlanRow>(
    `UPDATE subscription_plans SET name = coalesce($4, name), active = coalesce($5, active), updated_at = $6
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING *`,
    [id, merchantId, mode, fields.name ?? null, fields.active ?? null, fields.now],
  );
  return row;
}

export async function listPlans(db: Queryable, merchantId: string, mode: Mode, limit: number, offset: number): Promise<{ rows: PlanRow[]; total: number }> {
  const rows = await db.query<PlanRow>(
    'SELECT * FROM subscription_plans WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4',
    [merchantId, mode, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM subscription_plans WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return { rows, total: count?.total ?? 0 };
}

export interface ActivationRow {
  id: string;
  plan_id: string;
  card_id: string;
  mode: Mode;
  wallet_id: string;
  handle: string;
  months: number;
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
}

/** The latest end of this wallet's activations of the plan (an activation extends from there). */
export async function latestActivationEnd(tx: Queryable, planId: string, walletId: string): Promise<Date | null> {
  const [row] = await tx.query<{ ends_at: Date | null }>('SELECT max(ends_at) AS ends_at FROM subscription_activations WHERE plan_id = $1 AND wallet_id = $2', [planId, walletId]);
  return row?.ends_at ?? null;
}

export async function insertActivation(tx: Queryable, row: ActivationRow): Promise<ActivationRow> {
  const [created] = await tx.query<ActivationRow>(
    `INSERT INTO subscription_activations (id, plan_id, card_id, mode, wallet_id, handle, months, starts_at, ends_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [row.id, row.plan_id, row.card_id, row.mode, row.wallet_id, row.handle, row.months, row.starts_at, row.ends_at, row.created_at],
  );
  return created!;
}

export async function findActivation(db: Queryable, id: string): Promise<ActivationRow | undefined> {
  const [row] = await db.query<ActivationRow>('SELECT * FROM subscription_activations WHERE id = $1', [id]);
  return row;
}

export async function activationsOf(db: Queryable, ids: readonly string[]): Promise<Map<string, ActivationRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<ActivationRow>('SELECT * FROM subscription_activations WHERE id = ANY ($1::text[])', [ids]);
  return new Map(rows.map((row) => [row.id, row]));
}

export async function listActivations(db: Queryable, planId: string, limit: number, offset: number): Promise<{ rows: ActivationRow[]; total: number }> {
  const rows = await db.query<ActivationRow>('SELECT * FROM subscription_activations WHERE plan_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3', [planId, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM subscription_activations WHERE plan_id = $1', [planId]);
  return { rows, total: count?.total ?? 0 };
}
