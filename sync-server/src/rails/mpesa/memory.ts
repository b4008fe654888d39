// What one adapter instance remembers between a request and Daraja's asynchronous answers: the
// ids Daraja acknowledged (to match callbacks against), verified outcomes, and the CheckoutRequestID
// of each M-Pesa Express push. Only an accelerator and a stricter check: after a restart it is
// empty and every path still works from what the callback URL carries (see callbacks.ts).
import type { CollectionUpdate, PayoutUpdate } from '../types.ts';

/** How many payouts and collections one adapter remembers; the oldest are forgotten first. */
export const MEMORY_ENTRIES_MAX = 10_000;
/** Status queries remembered per payout (their ConversationIDs, to match their results). */
export const STATUS_QUERIES_MAX = 8;

export type StatusAnswer =
  /** Daraja's transaction status result for the payout, read into an update. */
  | { kind: 'known'; update: PayoutUpdate }
  /** Daraja says it has no transaction with that OriginatorConversationID. */
  | { kind: 'unknown' }
  /** The status query itself failed (initiator refused, queue timeout...): nothing learnt. */
  | { kind: 'error'; reason: string };

export interface PayoutMemory {
  amountKes?: number;
  /** The B2C acknowledgement's ConversationID. */
  conversationId?: string;
  /** A verified final outcome (completed, failed or reversed). */
  final?: PayoutUpdate;
  /** ConversationIDs of the status queries Daraja acknowledged, newest last. */
  statusQueries: string[];
  /** When the last status query was acknowledged (ms since epoch); 0 when none is outstanding. */
  statusQueryAt: number;
  statusAnswer?: StatusAnswer;
  statusAnswerAt: number;
  reversal?: { transactionId: string; amountKes: number; conversationId?: string };
}

export interface CollectionMemory {
  checkoutRequestId: string;
  merchantRequestId?: string;
  amountKes?: number;
  /** MpesaReceiptNumber from a (token-verified) success callback. */
  receipt?: string;
  final?: CollectionUpdate;
}

/** A Map that forgets its oldest entries beyond a limit. */
export class BoundedMap<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly max: number = MEMORY_ENTRIES_MAX) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): V {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** Waiters for a payout's next status answer (lookup waits a little for the asynchronous result). */
export class StatusWaiters {
  private readonly waiting = new Map<string, Set<(answer: StatusAnswer) => void>>();

  wait(paymentId: string, ms: number): Promise<StatusAnswer | undefined> {
    return new Promise((resolve) => {
      let set = this.waiting.get(paymentId);
      if (!set) this.waiting.set(paymentId, (set = new Set()));
      const done = (answer: StatusAnswer | undefined): void => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(paymentId) === set) this.waiting.delete(paymentId);
        resolve(answer);
      };
      const timer = setTimeout(() => done(undefined), ms);
      timer.unref?.();
      set.add(done);
    });
  }

  answer(paymentId: string, answer: StatusAnswer): void {
    for (const done of [...(this.waiting.get(paymentId) ?? [])]) done(answer);
  }
}

export function payoutMemory(map: BoundedMap<PayoutMemory>, paymentId: string): PayoutMemory {
  return map.get(paymentId) ?? map.set(paymentId, { statusQueries: [], statusQueryAt: 0, statusAnswerAt: 0 });
}
