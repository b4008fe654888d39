import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../auth/secrets.ts';
import { type AccountRef, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, transfer } from '../../ledger/ledger.ts';
import { liability } from './drafts.ts';
import { giftCardNotFound, stateError } from './errors.ts';
import { cardRecord, effectiveStatus } from './records.ts';
import { type CardRow, claimExpiredCards, endCard, lockCard } from './store.ts';

/** Cards expired per transaction by the expiry sweep: one ledger transfer of at most 2 legs per card. */
const EXPIRY_BATCH = 25;

export type LifecycleService = ReturnType<typeof lifecycleService>;

/** The ends of a card that return its balance to the issuer: expiry, and the admin's cancel or refund. */
export function lifecycleService(context: AppContext) {
  /**
   * Expires active cards past their time (all of them, or one) and returns each remaining
   * balance to its issuer's wallet: the issuer funded the card, so the breakage is the issuer's.
   * Batches of 25 cards, each batch one transaction and one ledger transfer.
   */
  async function expireDue(cardId?: string): Promise<number> {
    const now = context.now();
    let expired = 0;
    for (const mode of ['test', 'live'] as const) {
      for (;;) {
        const count = await context.db.transaction(async (tx) => {
          const rows = await claimExpiredCards(tx, now, mode, EXPIRY_BATCH, cardId);
          if (rows.length > 0) await expireLocked(tx, rows, now);
          return rows.length;
        });
        expired += count;
        if (count < EXPIRY_BATCH) break;
      }
    }
    return expired;
  }

  /**
   * Admin PATCH: cancel (force-cancel) or refund. Both end the card and return its remaining
   * balance to the issuer's wallet through the ledger; they differ in the state recorded.
   */
  async function adminAction(cardId: string, action: 'cancel' | 'refund', reason: string | undefined) {
    const now = context.now();
    const outcome = await context.db.transaction(async (tx): Promise<{ expired: true } | { card: CardRow }> => {
      const card = await lockCard(tx, cardId);
      if (!card) throw giftCardNotFound();
      if (card.status === 'active' && effectiveStatus(card, now) === 'expired') {
        await expireLocked(tx, [card], now);
        return { expired: true };
      }
      if (card.status !== 'active' && card.status !== 'scheduled') throw stateError(card.status);
      const transferId = `gift_card_${action}:${card.id}`;
      const status = action === 'cancel' ? 'cancelled' : 'refunded';
      const ended = await endCard(tx, card.id, { status, endedAt: now, now, transferId, reason: reason?.trim() ? `${status}: ${reason.trim()}` : status });
      await transfer(tx, {
        id: transferId,
        mode: card.mode,
        kind: action === 'cancel' ? 'gift_card_cancel' : 'gift_card_refund',
        legs: [
          { account: liability(card.currency), amount: -card.amount_remaining },
          { account: walletAccount(card.issuer_wallet_id, card.currency), amount: card.amount_remaining },
        ],
        metadata: { cardId: card.id, action },
      });
      return { card: ended };
    });
    if ('expired' in outcome) throw stateError('expired');
    return cardRecord(outcome.card, now);
  }

  return { expireDue, adminAction };
}

/** Expires locked cards of one mode in the caller's transaction, with one return transfer. */
export async function expireLocked(tx: Queryable, rows: readonly CardRow[], now: Date): Promise<void> {
  const transferId = `gift_card_expiry:${rows.length === 1 ? rows[0]!.id : newId('exp')}`;
  const legs = new Map<string, TransferLeg>();
  const add = (account: AccountRef, key: string, amount: number) => {
    const leg = legs.get(key);
    if (leg) leg.amount += amount;
    else legs.set(key, { account, amount });
  };
  for (const row of rows) {
    await endCard(tx, row.id, { status: 'expired', endedAt: row.expires_at, now, transferId, reason: 'expired' });
    add(liability(row.currency), `l:${row.currency}`, -row.amount_remaining);
    add(walletAccount(row.issuer_wallet_id, row.currency), `w:${row.issuer_wallet_id}:${row.currency}`, row.amount_remaining);
  }
  const postings = [...legs.values()].filter((leg) => leg.amount !== 0);
  if (postings.length >= 2) {
    await transfer(tx, { id: transferId, mode: rows[0]!.mode, kind: 'gift_card_expiry', legs: postings, metadata: { cardIds: rows.map((row) => row.id) } });
  }
}

