import type { Queryable } from '../../db/database.ts';
import type { PaymentKind, PaymentRow } from './store.ts';

/**
 * Told, inside the transaction that moves a payment to a final state (completed, failed,
 * reversed), about the payments of a kind a module created (payroll items paid out through a
 * rail), so the module's own state and events commit together with the payment's.
 */
export type PaymentOutcomeListener = (tx: Queryable, rows: readonly PaymentRow[], at: Date) => Promise<void>;

const listeners = new Map<PaymentKind, PaymentOutcomeListener>();

/** One listener per payment kind; registering again replaces it (every app built in a process registers the same one). */
export function onPaymentOutcome(kind: PaymentKind, listener: PaymentOutcomeListener): void {
  listeners.set(kind, listener);
}

/**
 * Calls the listeners of the kinds among `rows`. A listener runs a statement only for the rows it
 * acts on: POST /api/pay's payouts are heard only to give a person's tier room back when a payout
 * into her wallet fails or is reversed (payments/service.ts releaseRecipientTier).
 */
export async function notifyPaymentOutcomes(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  if (listeners.size === 0) return;
  for (const [kind, listener] of listeners) {
    const own = rows.filter((row) => row.kind === kind);
    if (own.length > 0) await listener(tx, own, at);
  }
}
