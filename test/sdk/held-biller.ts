// A bill-payment provider (Kenya's billers, live mode) whose next payment can be held in flight:
// the request that pays it has claimed its Idempotency-Key and waits inside the server, so a retry
// with the same key meets 409 idempotency_in_progress until the test releases it. Used by the
// TypeScript SDK's suite in process and, through held-biller-server.ts, by the Python SDK's.
import type { BuildAppOptions } from '@tapline/sync-server/app';

export type BillerProvider = NonNullable<BuildAppOptions['billerProviders']>[number];

export interface HeldBiller {
  provider: BillerProvider;
  /** Holds the next payment: resolves `entered` when it reaches the provider; it waits until `release()`. */
  holdNext(): { entered: Promise<void>; release(): void };
  /** Payments the provider was asked to make. */
  calls(): number;
}

export function heldBiller(): HeldBiller {
  let calls = 0;
  let hold: { enter(): void; released: Promise<void> } | undefined;
  return {
    provider: {
      name: 'held-test-biller',
      supports: (biller) => biller.country === 'KE',
      async pay(request) {
        calls += 1;
        const held = hold;
        hold = undefined;
        if (held) {
          held.enter();
          await held.released;
        }
        return { status: 'completed', providerReference: `HELD-${calls}-${request.billId}` };
      },
    },
    holdNext() {
      let enter!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((resolve) => (enter = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { enter, released };
      return { entered, release };
    },
    calls: () => calls,
  };
}
