import { TaplineError } from './errors.ts';
import { sleep } from './retry.ts';

export interface WaitOptions<Item> {
  /** Between two reads; default 1 s (the API's advice for POS sessions). */
  intervalMs?: number;
  /** Give up after this long with a TaplineError `wait_timeout`; default 2 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with every read, final or not. */
  onUpdate?: (item: Item) => void;
}

/** Reads `read()` until `isFinal` holds, at the interval, and answers that read. */
export async function pollUntil<Item>(read: () => Promise<Item>, isFinal: (item: Item) => boolean, options: WaitOptions<Item> = {}): Promise<Item> {
  const intervalMs = options.intervalMs ?? 1_000;
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const item = await read();
    options.onUpdate?.(item);
    if (isFinal(item)) return item;
    if (Date.now() + intervalMs > deadline) throw new TaplineError('Still not final when the wait ran out', { code: 'wait_timeout' });
    await sleep(intervalMs, options.signal);
  }
}
