// The payouts module's rows: settlement accounts, payout settings and payouts (migration 045). A
// payout's money and status live in its payments row (kind 'settlement'); these queries join it.
import type { Queryable, SqlParam } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { PaymentRow, PaymentStatus } from '../payments/index.ts';

export interface SettlementAccountRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  type: 'bank' | 'mobile_money';
  country: string;
  currency: string;
  bank_code: string | null;
  account_number: string | null;
  phone: string | null;
  operator: string | null;
  account_name: string;
  name_source: 'provider' | 'sandbox' | 'merchant';
  is_default: boolean;
  created_at: Date;
  removed_at: Date | null;
}

export type NewSettlementAccount = Omit<SettlementAccountRow, 'removed_at'>;

export async function insertSettlementAccount(tx: Queryable, row: NewSettlementAccount): Promise<SettlementAccountRow> {
  const [inserted] = await tx.query<SettlementAccountRow>(
    `INSERT INTO settlement_accounts (id, merchant_id, mode, type, country, currency, bank_code, account_number, phone, operator, account_name, name_source, is_default, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING *`,
    [row.id, row.merchant_id, row.mode, row.type, row.country, row.currency, row.bank_code, row.account_number, row.phone, row.operator, row.account_name, row.name_source, row.is_default, row.created_at],
  );
  return inserted!;
}

/** One of the merchant's accounts in this mode (removed ones too when asked: a payout names where it went). */
export async function findSettlementAccount(db: Queryable, merchantId: string, mode: Mode, id: string, options: { includeRemoved?: boolean } = {}): Promise<SettlementAccountRow | undefined> {
  const [row] = await db.query<SettlementAccountRow>(
    `SELECT * FROM settlement_accounts WHERE id = $1 AND merchant_id = $2 AND mode = $3${options.includeRemoved ? '' : ' AND removed_at IS NULL'}`,
    [id, merchantId, mode],
  );
  return row;
}

export async function listSettlementAccounts(db: Queryable, merchantId: string, mode: Mode): Promise<SettlementAccountRow[]> {
  return db.query<SettlementAccountRow>('SELECT * FROM settlement_accounts WHERE merchant_id = $1 AND mode = $2 AND removed_at IS NULL ORDER BY currency, is_default DESC, created_at, id', [merchantId, mode]);
}

export async function defaultSettlementAccount(db: Queryable, merchantId: string, mode: Mode, currency: string): Promise<SettlementAccountRow | undefined> {
  const [row] = await db.query<SettlementAccountRow>('SELECT * FROM settlement_accounts WHERE merchant_id = $1 AND mode = $2 AND currency = $3 AND is_default AND removed_at IS NULL', [merchantId, mode, currency]);
  return row;
}

/** The phone of the merchant's mobile money settlement account (the default one first, then the oldest), or undefined. */
export async function mobileMoneyNumber(db: Queryable, merchantId: string, mode: Mode): Promise<string | undefined> {
  const [row] = await db.query<{ phone: string | null }>(
    "SELECT phone FROM settlement_accounts WHERE merchant_id = $1 AND mode = $2 AND type = 'mobile_money' AND removed_at IS NULL ORDER BY is_default DESC, created_at, id LIMIT 1",
    [merchantId, mode],
  );
  return row?.phone ?? undefined;
}

/** Serialises changes to one merchant's accounts (the one-default rule) in the caller's transaction. */
export async function lockMerchantAccounts(tx: Queryable, merchantId: string): Promise<void> {
  await tx.query('SELECT id FROM merchants WHERE id = $1 FOR NO KEY UPDATE', [merchantId]);
}

export async function setDefaultAccount(tx: Queryable, account: SettlementAccountRow): Promise<void> {
  await tx.query('UPDATE settlement_accounts SET is_default = false WHERE merchant_id = $1 AND mode = $2 AND currency = $3 AND is_default', [account.merchant_id, account.mode, account.currency]);
  await tx.query('UPDATE settlement_accounts SET is_default = true WHERE id = $1', [account.id]);
}

/** Removes an account; when it was the default, the oldest other account of its currency becomes the default. */
export async function removeSettlementAccount(tx: Queryable, account: SettlementAccountRow, at: Date): Promise<void> {
  await tx.query('UPDATE settlement_accounts SET removed_at = $2, is_default = false WHERE id = $1', [account.id, at]);
  if (!account.is_default) return;
  await tx.query(
    `UPDATE settlement_accounts SET is_default = true WHERE id = (
       SELECT id FROM settlement_accounts WHERE merchant_id = $1 AND mode = $2 AND currency = $3 AND removed_at IS NULL ORDER BY created_at, id LIMIT 1)`,
    [account.merchant_id, account.mode, account.currency],
  );
}

// Settings ------------------------------------------------------------------------------------

export interface PayoutSettingsRow {
  schedule: 'daily' | 'weekly' | 'manual';
  minimum_amount: number;
  currency: string;
}

export async function findPayoutSettings(db: Queryable, merchantId: string, mode: Mode): Promise<PayoutSettingsRow | undefined> {
  const [row] = await db.query<PayoutSettingsRow>('SELECT schedule, minimum_amount::int8 AS minimum_amount, currency FROM merchant_payout_settings WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return row ? { ...row, minimum_amount: Number(row.minimum_amount) } : undefined;
}

export async function upsertPayoutSettings(db: Queryable, merchantId: string, mode: Mode, settings: PayoutSettingsRow, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO merchant_payout_settings (merchant_id, mode, schedule, minimum_amount, currency, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (merchant_id, mode) DO UPDATE SET schedule = $3, minimum_amount = $4, currency = $5, updated_at = $6`,
    [merchantId, mode, settings.schedule, settings.minimum_amount, settings.currency, at],
  );
}

/**
 * The merchants the schedule may pay in a mode: those with a default settlement account in the
 * currency they are paid out in and a schedule other than manual (no settings row: daily).
 */
export async function scheduledMerchants(db: Queryable): Promise<{ merchant_id: string; mode: Mode; currency: string; schedule: 'daily' | 'weekly'; minimum_amount: number }[]> {
  const rows = await db.query<{ merchant_id: string; mode: Mode; currency: string; schedule: 'daily' | 'weekly'; minimum_amount: number }>(
    `SELECT m.id AS merchant_id, a.mode, a.currency, coalesce(s.schedule, 'daily') AS schedule, coalesce(s.minimum_amount, 0)::int8 AS minimum_amount
     FROM merchants m
     JOIN settlement_accounts a ON a.merchant_id = m.id AND a.is_default AND a.removed_at IS NULL
     LEFT JOIN merchant_payout_settings s ON s.merchant_id = m.id AND s.mode = a.mode
     WHERE a.currency = coalesce(s.currency, m.currency) AND coalesce(s.schedule, 'daily') <> 'manual'
     ORDER BY m.id, a.mode`,
  );
  return rows.map((row) => ({ ...row, minimum_amount: Number(row.minimum_amount) }));
}

// Payouts -------------------------------------------------------------------------------------

const PAYOUT_COLUMNS = `o.id, o.merchant_id, o.mode, o.currency, o.amount::int8 AS amount, o.payment_id, o.settlement_account_id, o.trigger, o.schedule_key,
  o.statement, o.covered_from, o.covered_to, o.created_at, p.status, p.provider, p.provider_reference, p.failure_reason, p.estimated_arrival,
  p.timeline, p.updated_at`;

function normalised(row: PayoutRow): PayoutRow {
  return { ...row, amount: Number(row.amount) };
}

export interface NewPayout {
  id: string;
  merchant_id: string;
  mode: Mode;
  currency: string;
  amount: number;
  payment_id: string;
  settlement_account_id: string;
  trigger: 'manual' | 'scheduled';
  schedule_key: string | null;
  statement: Record<string, unknown>;
  covered_from: Date | null;
  covered_to: Date;
  created_at: Date;
}

/** A payout as read: its row and, from its payment, where the money is. */
export type PayoutRow = NewPayout & {
  status: PaymentStatus;
  provider: string | null;
  provider_reference: string | null;
  failure_reason: string | null;
  estimated_arrival: Date;
  timeline: PaymentRow['timeline'];
  updated_at: Date;
};

/** Inserts a payout; false when its id or its day's schedule key exists already (a re-run, a second job). */
export async function insertPayout(tx: Queryable, payout: NewPayout): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO merchant_payouts (id, merchant_id, mode, currency, amount, payment_id, settlement_account_id, trigger, schedule_key, statement, covered_from, covered_to, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13) ON CONFLICT DO NOTHING RETURNING id`,
    [payout.id, payout.merchant_id, payout.mode, payout.currency, payout.amount, payout.payment_id, payout.settlement_account_id, payout.trigger, payout.schedule_key, JSON.stringify(payout.statement), payout.covered_from, payout.covered_to, payout.created_at],
  );
  return rows.length === 1;
}

export async function findPayout(db: Queryable, merchantId: string, mode: Mode, id: string): Promise<PayoutRow | undefined> {
  const [row] = await db.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM merchant_payouts o JOIN payments p ON p.id = o.payment_id WHERE o.id = $1 AND o.merchant_id = $2 AND o.mode = $3`, [id, merchantId, mode]);
  return row ? normalised(row) : undefined;
}

export async function findPayoutByPayment(db: Queryable, paymentId: string): Promise<PayoutRow | undefined> {
  const [row] = await db.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM merchant_payouts o JOIN payments p ON p.id = o.payment_id WHERE o.payment_id = $1`, [paymentId]);
  return row ? normalised(row) : undefined;
}

export async function findPayoutByKey(db: Queryable, scheduleKey: string): Promise<PayoutRow | undefined> {
  const [row] = await db.query<PayoutRow>(`SELECT ${PAYOUT_COLUMNS} FROM merchant_payouts o JOIN payments p ON p.id = o.payment_id WHERE o.schedule_key = $1`, [scheduleKey]);
  return row ? normalised(row) : undefined;
}

/** The payments statuses of a payout status (paid is the payment's completed). */
const PAYMENT_STATUS_OF: Record<string, PaymentStatus> = { pending: 'pending', processing: 'processing', paid: 'completed', failed: 'failed', reversed: 'reversed' };

export async function listPayouts(db: Queryable, merchantId: string, mode: Mode, status: string | undefined, limit: number, offset: number): Promise<{ rows: PayoutRow[]; total: number }> {
  const params: SqlParam[] = [merchantId, mode];
  let where = 'o.merchant_id = $1 AND o.mode = $2';
  if (status) {
    params.push(PAYMENT_STATUS_OF[status] ?? status);
    where += ` AND p.status = $${params.length}`;
  }
  const rows = await db.query<PayoutRow>(
    `SELECT ${PAYOUT_COLUMNS} FROM merchant_payouts o JOIN payments p ON p.id = o.payment_id WHERE ${where} ORDER BY o.created_at DESC, o.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM merchant_payouts o JOIN payments p ON p.id = o.payment_id WHERE ${where}`, params);
  return { rows: rows.map(normalised), total: Number(count?.total ?? 0) };
}

/** Where the previous payout's statement ended (database time), for the next one's period. */
export async function lastCoveredTo(db: Queryable, merchantId: string, mode: Mode, currency: string): Promise<Date | null> {
  const [row] = await db.query<{ covered_to: Date }>('SELECT covered_to FROM merchant_payouts WHERE merchant_id = $1 AND mode = $2 AND currency = $3 ORDER BY covered_to DESC LIMIT 1', [merchantId, mode, currency]);
  return row?.covered_to ?? null;
}

/** The database's clock now (not the transaction's start): where a statement's period ends. */
export async function databaseClock(tx: Queryable): Promise<Date> {
  const [row] = await tx.query<{ at: Date }>('SELECT clock_timestamp() AS at');
  return row!.at;
}
