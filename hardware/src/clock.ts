/**
 * Time and timers behind one small interface, so that debounce windows, restart back-off and
 * print retries run on a manual clock in tests instead of sleeping for real time.
 */
export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

let nextSystemTimerId = 1;

class SystemClock implements Clock {
  readonly #timers = new Map<number, NodeJS.Timeout>();

  now(): number {
    return Date.now();
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = nextSystemTimerId++;
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      callback();
    }, delayMs);
    // A pending retry or restart must never keep a CLI or a test process alive on its own.
    timer.unref();
    this.#timers.set(id, timer);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = this.#timers.get(handle.id);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(handle.id);
  }
}

export const systemClock: Clock = new SystemClock();

/** Exponential back-off: initial, doubled per attempt, capped at max. Attempt 0 waits initial. */
export function backoffDelayMs(attempt: number, initialMs: number, maxMs: number): number {
  const exponent = Math.min(Math.max(attempt, 0), 30);
  return Math.min(initialMs * 2 ** exponent, maxMs);
}
