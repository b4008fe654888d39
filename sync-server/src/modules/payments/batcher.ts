import type { Database } from '../../db/database.ts';
import { LedgerError, type LedgerErrorCode, type TransferArguments, type TransferRequest, postPaymentsWithDebits, transferArguments } from '../../ledger/ledger.ts';
import { recordLedgerTransfer } from '../../metrics/registry.ts';

/** How a payment's insert-and-debit came out. */
export type DebitOutcome = 'created' | 'exists' | 'payment_exists';

interface Pending {
  payment: Record<string, unknown>;
  transfer: TransferArguments;
  resolve: (outcome: DebitOutcome) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  items: Pending[];
  running: boolean;
}

/** At most this many payments per statement. */
const GROUP_MAX = 64;

/**
 * Group commit for the hot path of POST /api/pay. Payments that lock the same ledger accounts
 * (one source wallet, one currency pair) are serialised by those row locks anyway; so while one
 * statement for a group is in flight, the next payments of the group wait here and go together in
 * the next statement (payments_insert_with_debits): the hot rows are locked once and the WAL
 * flushed once for all of them. With no concurrency every payment goes alone at once, so this
 * adds no latency. Each payment keeps its own outcome; a statement that fails as a whole is
 * retried one payment at a time, so one bad payment cannot fail the others.
 */
export class DebitBatcher {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly db: Database) {}

  submit(groupKey: string, payment: Record<string, unknown>, transfer: TransferRequest): Promise<DebitOutcome> {
    const args = transferArguments(transfer);
    return new Promise<DebitOutcome>((resolve, reject) => {
      let queue = this.queues.get(groupKey);
      if (!queue) {
        queue = { items: [], running: false };
        this.queues.set(groupKey, queue);
      }
      queue.items.push({ payment, transfer: args, resolve, reject });
      if (!queue.running) void this.drain(groupKey, queue);
    });
  }

  private async drain(groupKey: string, queue: Queue): Promise<void> {
    queue.running = true;
    try {
      while (queue.items.length > 0) {
        const group = queue.items.splice(0, GROUP_MAX);
        try {
          this.settle(group, await this.run(group));
        } catch (error) {
          if (group.length === 1) group[0]!.reject(error);
          else {
            for (const item of group) {
              try {
                this.settle([item], await this.run([item]));
              } catch (single) {
                item.reject(single);
              }
            }
          }
        }
      }
    } finally {
      queue.running = false;
      if (queue.items.length === 0) this.queues.delete(groupKey);
    }
  }

  private run(group: readonly Pending[]) {
    return postPaymentsWithDebits(this.db, group.map((item) => item.payment), group.map((item) => item.transfer));
  }

  private settle(group: readonly Pending[], rows: readonly { payment_id: string; result: string; account_id: number | null }[]): void {
    group.forEach((item, index) => {
      const row = rows[index];
      if (!row || row.payment_id !== item.payment.id) item.reject(new Error('payments_insert_with_debits answered out of order'));
      else if (row.result === 'created' || row.result === 'exists' || row.result === 'payment_exists') {
        if (row.result === 'created') recordLedgerTransfer(item.transfer[2]);
        item.resolve(row.result);
      }
      else item.reject(new LedgerError(row.result as LedgerErrorCode, row.account_id ?? undefined));
    });
  }
}

const batchers = new WeakMap<Database, DebitBatcher>();

/** The batcher of a database (one per database, so tests with several databases stay apart). */
export function debitBatcher(db: Database): DebitBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new DebitBatcher(db);
    batchers.set(db, batcher);
  }
  return batcher;
}
