import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { Mode } from '../../auth/secrets.ts';
import type { Queryable } from '../../db/database.ts';
import type { RedemptionRow } from './store.ts';

/**
 * A gift card that paid part of a till sale: its redemption, its card's currency and state, what
 * went back to it so far and the till sale that claims it (till-tenders.ts).
 */
export interface GiftCardTender
  extends Pick<
    RedemptionRow,
    'id' | 'card_id' | 'mode' | 'amount_drawn' | 'credited_amount' | 'credited_currency' | 'redeemer_wallet_id' | 'redeemer_kind' | 'terminal_id' | 'subscription_activation_id' | 'created_at' | 'currency'
  > {
  /** The card's state. */
  card_status: string;
  /** What went back to the card (or was given in cash for it) so far. */
  returned: number;
  /** The till sale that names it as a tender, if one does. */
  claimed_by: string | null;
}

/**
 * The redemptions named, with their cards locked (in card order, so two pushes or a push and a
 * return wait for each other rather than deadlock): the claim and the return see one state.
 */
export async function lockGiftCardTenders(tx: Queryable, ids: readonly string[]): Promise<Map<string, GiftCardTender>> {
  const unique = [...new Set(ids)].filter((id) => typeof id === 'string' && id.length <= ID_LENGTH_MAX);
  if (unique.length === 0) return new Map();
  // The lock first, the read in a statement of its own: under READ COMMITTED a statement that
  // waited for the lock still reads its subqueries (returns, claims) as of when it began, so the
  // return or claim it waited for would be missed.
  await tx.query(
    `SELECT c.id FROM gift_cards c WHERE c.id IN (SELECT r.card_id FROM gift_card_redemptions r WHERE r.id = ANY ($1::text[])) ORDER BY c.id FOR UPDATE OF c`,
    [unique],
  );
  const rows = await tx.query<GiftCardTender>(
    `SELECT r.id, r.card_id, r.mode, r.amount_drawn, r.credited_amount, r.credited_currency, r.redeemer_wallet_id, r.redeemer_kind,
       r.terminal_id, r.subscription_activation_id, r.created_at, c.currency, c.status AS card_status,
       coalesce((SELECT sum(g.amount) FROM gift_card_returns g WHERE g.redemption_id = r.id), 0)::int8 AS returned,
       (SELECT t.sale_id::text FROM till_sale_tender_claims t WHERE t.reference = r.id) AS claimed_by
     FROM gift_card_redemptions r JOIN gift_cards c ON c.id = r.card_id
     WHERE r.id = ANY ($1::text[])`,
    [unique],
  );
  return new Map(
    rows.map((row) => [row.id, { ...row, amount_drawn: Number(row.amount_drawn), credited_amount: Number(row.credited_amount), returned: Number(row.returned) }]),
  );
}

export async function insertGiftCardReturn(
  tx: Queryable,
  row: { id: string; redemption_id: string; card_id: string; mode: Mode; amount: number; reason: string; to_card: boolean; refund_id: string | null; terminal_id: string | null; transfer_id: string | null; created_at: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO gift_card_returns (id, redemption_id, card_id, mode, amount, reason, to_card, refund_id, terminal_id, transfer_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [row.id, row.redemption_id, row.card_id, row.mode, row.amount, row.reason, row.to_card, row.refund_id, row.terminal_id, row.transfer_id, row.created_at],
  );
}

export interface GiftCardReturnRow {
  id: string;
  redemption_id: string;
  card_id: string;
  amount: number;
  reason: string;
  to_card: boolean;
  terminal_id: string | null;
  created_at: Date;
  currency: string;
}

export async function findGiftCardReturn(db: Queryable, id: string): Promise<GiftCardReturnRow | undefined> {
  const [row] = await db.query<GiftCardReturnRow>(
    `SELECT g.id, g.redemption_id, g.card_id, g.amount, g.reason, g.to_card, g.terminal_id, g.created_at, c.currency
     FROM gift_card_returns g JOIN gift_cards c ON c.id = g.card_id WHERE g.id = $1`,
    [id],
  );
  return row ? { ...row, amount: Number(row.amount) } : undefined;
}

