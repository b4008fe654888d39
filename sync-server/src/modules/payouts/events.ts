// A payout's end, told to the merchant: payout.paid when its payment completes, payout.failed when
// it fails or is reversed after it was paid (the money is back in the wallet: the payments module's
// refund or reversal transfer, in the same transaction as this event).
import type { Queryable } from '../../db/database.ts';
import { enqueueEvents } from '../../events/outbox.ts';
import { type PaymentRow, onPaymentOutcome } from '../payments/index.ts';
import { payoutEventData } from './service.ts';
import { findPayoutByPayment, findSettlementAccount } from './store.ts';

export async function notifyPayouts(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  const events = [];
  for (const payment of rows) {
    const payout = await findPayoutByPayment(tx, payment.id);
    if (!payout) continue;
    const account = await findSettlementAccount(tx, payout.merchant_id, payout.mode, payout.settlement_account_id, { includeRemoved: true });
    const type = payment.status === 'completed' ? 'payout.paid' : 'payout.failed';
    events.push({ merchantId: payout.merchant_id, mode: payout.mode, type, data: payoutEventData(payout, account!), at });
  }
  if (events.length > 0) await enqueueEvents(tx, events);
}

onPaymentOutcome('settlement', notifyPayouts);
