/**
 * Runs one job function every `intervalMs` (real time), never overlapping itself: the next run is
 * scheduled only after the current one settles. `stop()` waits for a run in progress.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private running = false;

  constructor(
    private readonly job: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.current = this.job()
        .then(
          () => undefined,
          (error: unknown) => this.onError(error),
        )
        .finally(() => {
          this.current = undefined;
          this.schedule(this.intervalMs);
        });
    }, delayMs);
    // Background work never keeps the process alive on its own.
    this.timer.unref();
  }
}

/** A durable job as its module hands it out: one run on demand (tests, with the injected clock), or a timer. */
export interface PolledJob<Run> {
  runOnce(): Promise<Run>;
  start(): void;
  /** Waits for a run in progress. */
  stop(): Promise<void>;
}

/** `runOnce` every `intervalMs` once started; `intervalMs` 0: no timer, runOnce only. */
export function polledJob<Run>(runOnce: () => Promise<Run>, intervalMs: number, onError: (error: unknown) => void): PolledJob<Run> {
  const poller = intervalMs > 0 ? new Poller(runOnce, intervalMs, onError) : undefined;
  return {
    runOnce,
    start: () => poller?.start(),
    stop: async () => {
      await poller?.stop();
    },
  };
}

/** Runs `work` over `items` with at most `limit` in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
