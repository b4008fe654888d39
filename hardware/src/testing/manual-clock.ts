import type { Clock, TimerHandle } from '../clock.ts';

/**
 * A clock for tests: time moves only when the test calls advance(), and timers that fall due
 * run in order of their due time. Nothing sleeps.
 */
export class ManualClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, { dueAt: number; callback: () => void }>();

  constructor(startMs = Date.UTC(2026, 0, 15, 9, 30, 0)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { dueAt: this.#now + Math.max(0, delayMs), callback });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle.id);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by ms, running every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let nextId: number | undefined;
      let nextDue = Infinity;
      for (const [id, timer] of this.#timers) {
        if (timer.dueAt <= target && timer.dueAt < nextDue) {
          nextDue = timer.dueAt;
          nextId = id;
        }
      }
      if (nextId === undefined) break;
      const timer = this.#timers.get(nextId);
      this.#timers.delete(nextId);
      this.#now = nextDue;
      timer?.callback();
    }
    this.#now = target;
  }
}
