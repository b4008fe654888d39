import type { Queryable } from '../db/database.ts';
import type { Mode } from './accounts.ts';

/** One transfer's movement of a wallet: what it did to the wallet, and what it paid the platform in fees. */
export interface WalletMovement {
  transferId: string;
  kind: string;
  /** The payment it belongs to (its metadata's paymentId), if any. */
  paymentId: string | null;
  /** Signed minor units: + into the wallet, - out of it (its rows, inflow shards included, summed). */
  walletAmount: number;
  /** Minor units the transfer paid to the `fees` account in the currency. */
  fee: number;
}

/**
 * A wallet's movements in one currency and mode between two times (postings' created_at, the
 * database's clock: `from` excluded, `to` included; `from` null: from the start), one per transfer
 * that changed it. What a merchant payout's statement is made of (modules/payouts).
 */
export async function walletMovements(db: Queryable, walletId: string, mode: Mode, currency: string, from: Date | null, to: Date): Promise<WalletMovement[]> {
  const rows = await db.query<{ transfer_id: string; kind: string; payment_id: string | null; wallet_amount: string | number; fee: string | number }>(
    `WITH wallet AS (
       SELECT p.transfer_id, sum(p.amount) AS amount FROM ledger_postings p
       WHERE p.account_id IN (SELECT id FROM ledger_accounts WHERE owner_type = 'wallet' AND owner_id = $1 AND currency = $2 AND mode = $3)
         AND ($4::timestamptz IS NULL OR p.created_at > $4) AND p.created_at <= $5
       GROUP BY p.transfer_id HAVING sum(p.amount) <> 0)
     SELECT t.id AS transfer_id, t.kind, t.metadata->>'paymentId' AS payment_id, w.amount::int8 AS wallet_amount,
       coalesce((SELECT sum(f.amount) FROM ledger_postings f JOIN ledger_accounts fa ON fa.id = f.account_id
                 WHERE f.transfer_id = t.id AND fa.owner_type = 'system' AND fa.owner_id = 'fees' AND fa.currency = $2), 0)::int8 AS fee
     FROM wallet w JOIN ledger_transfers t ON t.id = w.transfer_id
     ORDER BY t.id`,
    [walletId, currency, mode, from, to],
  );
  return rows.map((row) => ({ transferId: row.transfer_id, kind: row.kind, paymentId: row.payment_id, walletAmount: Number(row.wallet_amount), fee: Number(row.fee) }));
}
