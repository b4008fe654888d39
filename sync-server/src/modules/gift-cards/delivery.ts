import type { AppContext } from '../../context.ts';
import { inSavepoint } from '../../db/savepoint.ts';
import { newId } from '../../auth/secrets.ts';
import type { Redeemer } from './drafts.ts';
import { applyRedemption } from './redemption.ts';
import { claimDueDelivery, recordDeliveryFailure } from './store.ts';

/** Deliveries per job run; the rest wait for the next run. */
const DELIVERIES_PER_RUN = 200;

/** Scheduled delivery: a card whose deliverAt has come is redeemed into its recipient's wallet. */
export function deliveryService(context: AppContext) {
  /**
   * Redeems every scheduled card whose deliverAt has come into its recipient's wallet (or
   * activates its plan). The card row is the job: each is claimed with FOR UPDATE SKIP LOCKED in
   * its own transaction, so several instances share the work and a restart catches up on all
   * missed times. A failure is recorded on the row and retried with backoff.
   */
  async function deliverDue(): Promise<{ delivered: number; failed: number }> {
    const now = context.now();
    let delivered = 0;
    let failed = 0;
    const failures: { id: string; attempts: number; message: string }[] = [];
    for (let run = 0; run < DELIVERIES_PER_RUN; run += 1) {
      const outcome = await context.db.transaction(async (tx): Promise<'none' | 'delivered' | { failedId: string; attempts: number; message: string }> => {
        const card = await claimDueDelivery(tx, now);
        if (!card) return 'none';
        if (card.deliver_to_wallet_id === null || card.deliver_to_handle === null) {
          return { failedId: card.id, attempts: card.delivery_attempts, message: 'The card has no recipient wallet' };
        }
        const redeemer: Redeemer = { kind: 'delivery', walletId: card.deliver_to_wallet_id, handle: card.deliver_to_handle, mode: card.mode, merchantId: null, terminalId: null };
        const values = { id: newId('gcr'), drawn: card.amount_remaining, credited: card.amount_remaining, target: card.currency, rate: '1', asOf: null };
        const applied = await inSavepoint(tx, 'gift_card_delivery', () => applyRedemption(tx, card, redeemer, values, now));
        if (applied.ok) return 'delivered';
        const { error } = applied;
        return { failedId: card.id, attempts: card.delivery_attempts, message: error instanceof Error ? error.message : String(error) };
      });
      if (outcome === 'none') break;
      if (outcome === 'delivered') {
        delivered += 1;
        continue;
      }
      failed += 1;
      failures.push({ id: outcome.failedId, attempts: outcome.attempts, message: outcome.message });
      // The failed card now waits for its backoff, so the loop moves on to the next due card.
      const backoffMinutes = Math.min(60, 2 ** outcome.attempts);
      await recordDeliveryFailure(context.db, outcome.failedId, outcome.message, new Date(now.getTime() + backoffMinutes * 60_000), now);
    }
    return { delivered, failed };
  }

  return { deliverDue };
}
