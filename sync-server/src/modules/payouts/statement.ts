// A payout's statement: what the money it takes is made of. Built in the transaction that makes
// the payout, under the wallet's lock, and stored with it, so it never changes afterwards.
//
// The period runs from the previous payout's end to now (database time: the postings' own clock).
// Its movements of the merchant's wallet are grouped by category and ledger kind. The opening
// balance is derived (balance now minus the period's movements), so the lines add up to the payout
// by construction: opening + movements - onHold - retained = amount. A movement committed by a
// transaction that started before the period ended but committed after it was read is in the next
// statement's opening balance, not lost.
import { toMajor } from '@tapline/shared/money';
import type { PayoutStatement } from '@tapline/shared/schemas';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { walletMovements } from '../../ledger/movements.ts';

type Category = PayoutStatement['lines'][number]['category'];

/** Ledger kinds that are the merchant being paid (credits) or giving a sale back (debits). */
const SALE_KINDS = new Set(['pos_payment', 'offline_tap', 'offline_qr', 'checkout', 'checkout_sandbox_collection', 'pos_collection', 'wallet_payment', 'payment_link', 'subscription_charge', 'gift_card_redeem', 'gift_card_subscription', 'gift_card_issue']);
const REFUND_KINDS = new Set(['pos_refund', 'gift_card_return', 'gift_card_refund', 'store_refund']);

/** A fee the merchant bears: on top of what it sends (the wallet debited), or taken from a payment link's proceeds (modules/links). */
function merchantBearsFee(kind: string, walletAmount: number): boolean {
  return walletAmount < 0 || kind === 'payment_link';
}

/** A settlement payout's payment id: `pay_` + the payout's id (service.ts), so its movements are told apart without a join. */
const SETTLEMENT_PAYMENT = /^pay_po_/;

function categoryOf(kind: string, paymentId: string | null, walletAmount: number): Category {
  if (paymentId !== null && SETTLEMENT_PAYMENT.test(paymentId)) return 'payouts';
  if (REFUND_KINDS.has(kind)) return 'refunds';
  if (SALE_KINDS.has(kind)) return walletAmount >= 0 ? 'sales' : 'refunds';
  return 'other';
}

export interface StatementInput {
  walletId: string;
  mode: Mode;
  currency: string;
  periodStart: Date | null;
  periodEnd: Date;
  /** The wallet's balance as the payout reads it (minor units), before its own debit. */
  balance: number;
  onHold: number;
  amount: number;
}

/** The statement in minor units, checked to add up, then as the API shows it (major units). */
export async function buildStatement(tx: Queryable, input: StatementInput): Promise<PayoutStatement> {
  const { currency } = input;
  const lines = new Map<string, { category: Category; kind: string; count: number; amount: number }>();
  const add = (category: Category, kind: string, amount: number) => {
    if (amount === 0) return;
    const key = `${category}:${kind}`;
    const line = lines.get(key) ?? { category, kind, count: 0, amount: 0 };
    line.count += 1;
    line.amount += amount;
    lines.set(key, line);
  };
  let moved = 0;
  for (const movement of await walletMovements(tx, input.walletId, input.mode, currency, input.periodStart, input.periodEnd)) {
    moved += movement.walletAmount;
    const fee = movement.fee > 0 && merchantBearsFee(movement.kind, movement.walletAmount) ? movement.fee : 0;
    // The fee out of the movement: its own line, the rest under the movement's category.
    add(categoryOf(movement.kind, movement.paymentId, movement.walletAmount), movement.kind, movement.walletAmount + fee);
    add('fees', 'fee', -fee);
  }
  const total = (category: Category) => [...lines.values()].filter((line) => line.category === category).reduce((sum, line) => sum + line.amount, 0);
  const opening = input.balance - moved;
  const retained = input.balance - input.onHold - input.amount;
  const minor = {
    openingBalance: opening,
    sales: total('sales'),
    refunds: total('refunds'),
    fees: total('fees'),
    payouts: total('payouts'),
    other: total('other'),
    onHold: -input.onHold,
    retained: -retained,
  };
  const sum = Object.values(minor).reduce((a, b) => a + b, 0);
  // By construction; a statement that did not add up would be a bug to stop at, not to send.
  if (sum !== input.amount || retained < 0) throw new Error(`payout statement does not add up: ${sum} != ${input.amount}`);
  const major = (value: number) => toMajor(value, currency);
  return {
    currency,
    periodStart: input.periodStart?.toISOString() ?? null,
    periodEnd: input.periodEnd.toISOString(),
    openingBalance: major(minor.openingBalance),
    sales: major(minor.sales),
    refunds: major(minor.refunds),
    fees: major(minor.fees),
    payouts: major(minor.payouts),
    other: major(minor.other),
    onHold: major(minor.onHold),
    retained: major(minor.retained),
    amount: major(input.amount),
    lines: [...lines.values()]
      .sort((a, b) => a.category.localeCompare(b.category) || a.kind.localeCompare(b.kind))
      .map((line) => ({ category: line.category, kind: line.kind, count: line.count, amount: major(line.amount) })),
  };
}
