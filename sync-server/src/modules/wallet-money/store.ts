// Wallet money's reads. Top-ups are rows of pos_collections (collections module) and withdrawals
// rows of payments (payments module), kind 'withdrawal'; the holder's notifications are written
// through the wallets module (wallets/notifications-store.ts).
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { PaymentRow } from '../payments/index.ts';

const WITHDRAWAL_COLUMNS = `id, merchant_id, mode, kind, status, scenario, rail, from_country, to_country, amount::int8 AS amount, currency, fee::int8 AS fee,
  destination_amount::int8 AS destination_amount, destination_currency, fx_rate, mid_rate, quote_id, receiver, receiver_name, sender_name, note, reference,
  source_wallet_id, recipient_wallet_id, payment_link_id, failure_reason, provider, provider_reference, estimated_arrival,
  timeline, next_step_at, step_attempts, created_at, updated_at`;

function normalised(row: PaymentRow): PaymentRow {
  return { ...row, amount: Number(row.amount), fee: Number(row.fee), destination_amount: Number(row.destination_amount) };
}

/** The kinds of payment that take a wallet's own money out: a holder's withdrawal, an agent's float settlement (modules/agent). */
export type WalletPayoutKind = 'withdrawal' | 'agent_settlement';

export async function findWithdrawal(db: Queryable, id: string, kind: WalletPayoutKind = 'withdrawal'): Promise<PaymentRow | undefined> {
  const [row] = await db.query<PaymentRow>(`SELECT ${WITHDRAWAL_COLUMNS} FROM payments WHERE id = $1 AND kind = $2`, [id, kind]);
  return row ? normalised(row) : undefined;
}

export async function listWithdrawals(db: Queryable, walletId: string, mode: Mode, limit: number, offset: number, kind: WalletPayoutKind = 'withdrawal'): Promise<{ rows: PaymentRow[]; total: number }> {
  const where = `kind = $3 AND source_wallet_id = $1 AND mode = $2`;
  const rows = await db.query<PaymentRow>(`SELECT ${WITHDRAWAL_COLUMNS} FROM payments WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`, [walletId, mode, kind, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payments WHERE ${where}`, [walletId, mode, kind]);
  return { rows: rows.map(normalised), total: Number(count?.total ?? 0) };
}

/** What the wallet's withdrawals (or settlements) in `currency` since `since` add up to (amounts; failed and reversed ones gave their money back and do not count). */
export async function withdrawnSince(db: Queryable, walletId: string, currency: string, since: Date, kind: WalletPayoutKind = 'withdrawal'): Promise<number> {
  const [row] = await db.query<{ total: string | number | null }>(
    `SELECT coalesce(sum(amount), 0)::int8 AS total FROM payments
     WHERE kind = $4 AND source_wallet_id = $1 AND currency = $2 AND created_at > $3 AND status NOT IN ('failed', 'reversed')`,
    [walletId, currency, since, kind],
  );
  return Number(row?.total ?? 0);
}

