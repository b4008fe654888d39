import type { Queryable } from '../../db/database.ts';
import type { PaymentKind, PaymentRow } from './store.ts';

/**
 * Told, inside the transaction that moves a payment to a final state (completed, failed,
 * reversed), about the payments of a kind a module created (payroll items paid out through a
 * rail), so the module's own state and events commit together with the payment's.
 */
export type PaymentOutcomeListener = (tx: Queryable, rows: readonly PaymentRow[], at: Date) => Promise<void>;

const listeners = new Map<string, { kind: PaymentKind; listener: PaymentOutcomeListener }>();

/**
 * A listener of a payment kind's outcomes, under a name: a kind may have several (POST /api/pay's
 * payouts are heard by payments and by collections, whose returns are payouts); registering a name
 * again replaces it (every app built in a process registers the same ones).
 */
export function onPaymentOutcome(kind: PaymentKind, listener: PaymentOutcomeListener, name: string = kind): void {
  listeners.set(`${kind}:${name}`, { kind, listener });
}

/**
 * Calls the listeners of the kinds among `rows`. A listener runs a statement only for the rows it
 * acts on: POST /api/pay's payouts are heard only to give a person's tier room back when a payout
 * into her wallet fails or is reversed (payments/service.ts releaseRecipientTier), and to make a
 * collection returnable again when the payout that gave it back fails (collections' reopenFailedReturns).
 */
export async function notifyPaymentOutcomes(tx: Queryable, rows: readonly PaymentRow[], at: Date): Promise<void> {
  if (listeners.size === 0) return;
  for (const { kind, listener } of listeners.values()) {
    const own = rows.filter((row) => row.kind === kind);
    if (own.length > 0) await listener(tx, own, at);
  }
}
