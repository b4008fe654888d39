// Verification tiers' SQL (docs/wallet-tiers.md): a wallet's tier (wallets.tier, NULL: the configured
// default) and the movements the tiers count (wallet_tier_movements, migration 047). Rows in, rows out.
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export type TierDirection = 'in' | 'out';
/** What moved: money in (a top-up, a bank transfer into her virtual account, an agent's cash-in, a payment from another person, a merchant's payout or payroll) or out (a withdrawal, an agent's cash-out, a payment to another person). */
export type TierMovementKind = 'top_up' | 'bank_transfer_in' | 'agent_cash_in' | 'p2p_in' | 'payout_in' | 'payroll_in' | 'withdrawal' | 'agent_cash_out' | 'p2p_out';

export interface TierMovementRow {
  id: string;
  wallet_id: string;
  mode: Mode;
  direction: TierDirection;
  kind: TierMovementKind;
  amount: number;
  currency: string;
  counted: number;
  state: 'held' | 'counted' | 'released';
  held_until: Date | null;
  beyond_limit: boolean;
  created_at: Date;
}

/** What the counted movements since `since` add up to, in the wallet's currency; `held`: top-ups still waiting for their provider at `now`. */
export async function tierUsage(db: Queryable, walletId: string, since: Date, now: Date): Promise<{ in: number; out: number; held: number }> {
  const [row] = await db.query<{ used_in: string | number; used_out: string | number; held: string | number }>(
    `SELECT coalesce(sum(counted) FILTER (WHERE direction = 'in' AND state = 'counted'), 0)::int8 AS used_in,
            coalesce(sum(counted) FILTER (WHERE direction = 'out' AND state = 'counted'), 0)::int8 AS used_out,
            coalesce(sum(counted) FILTER (WHERE direction = 'in' AND state = 'held' AND held_until > $3), 0)::int8 AS held
     FROM wallet_tier_movements WHERE wallet_id = $1 AND created_at > $2`,
    [walletId, since, now],
  );
  return { in: Number(row?.used_in ?? 0), out: Number(row?.used_out ?? 0), held: Number(row?.held ?? 0) };
}

export async function findTierMovement(db: Queryable, id: string): Promise<TierMovementRow | undefined> {
  const [row] = await db.query<TierMovementRow>('SELECT * FROM wallet_tier_movements WHERE id = $1', [id]);
  return row ? { ...row, amount: Number(row.amount), counted: Number(row.counted) } : undefined;
}

/** Records a movement; the same id again keeps the first row (a retry counts once). */
export async function insertTierMovement(
  tx: Queryable,
  row: Pick<TierMovementRow, 'id' | 'wallet_id' | 'mode' | 'direction' | 'kind' | 'amount' | 'currency' | 'counted' | 'state' | 'held_until' | 'beyond_limit' | 'created_at'>,
): Promise<void> {
  await tx.query(
    `INSERT INTO wallet_tier_movements (id, wallet_id, mode, direction, kind, amount, currency, counted, state, held_until, beyond_limit, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12) ON CONFLICT (id) DO NOTHING`,
    [row.id, row.wallet_id, row.mode, row.direction, row.kind, row.amount, row.currency, row.counted, row.state, row.held_until, row.beyond_limit, row.created_at],
  );
}

/** A held top-up confirmed (counted; `beyondLimit` when its hold had lapsed), or a movement given back (released). */
export async function updateTierMovement(tx: Queryable, id: string, state: 'counted' | 'released', beyondLimit: boolean, at: Date): Promise<void> {
  await tx.query('UPDATE wallet_tier_movements SET state = $2, beyond_limit = beyond_limit OR $3, held_until = NULL, updated_at = $4 WHERE id = $1', [id, state, beyondLimit, at]);
}

/** Forgets a hold whose movement never started (the top-up could not be asked for). */
export async function deleteHeldTierMovement(db: Queryable, id: string): Promise<void> {
  await db.query(`DELETE FROM wallet_tier_movements WHERE id = $1 AND state = 'held'`, [id]);
}

/** Sets a wallet's tier; answers the tier it had (null: the default) or undefined for no such wallet. */
export async function updateWalletTier(tx: Queryable, walletId: string, tier: number, at: Date): Promise<{ previous: number | null } | undefined> {
  const [row] = await tx.query<{ previous: number | null }>('SELECT tier AS previous FROM wallets WHERE id = $1 FOR UPDATE', [walletId]);
  if (!row) return undefined;
  await tx.query('UPDATE wallets SET tier = $2, tier_changed_at = $3 WHERE id = $1', [walletId, tier, at]);
  return { previous: row.previous === null ? null : Number(row.previous) };
}
