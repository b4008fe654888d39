import type { Clock } from '../clock.ts';

export const DEFAULT_DEBOUNCE_WINDOW_MS = 1500;
const REMEMBERED_KEYS_MAX = 256;

/**
 * Suppresses repeated reads of the same tag. A tag held at the edge of the field is read again
 * and again; the window slides with every read, so it takes a pause of windowMs without the
 * tag before it counts as a new tap.
 */
export class TapDebouncer {
  readonly #lastSeenAt = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number = DEFAULT_DEBOUNCE_WINDOW_MS,
  ) {}

  /** True when this read is a new tap of `key` (a UID), false when it repeats one. */
  accept(key: string): boolean {
    const now = this.clock.now();
    const lastSeenAt = this.#lastSeenAt.get(key);
    this.#lastSeenAt.delete(key);
    this.#lastSeenAt.set(key, now);
    this.#forgetOld(now);
    return lastSeenAt === undefined || now - lastSeenAt >= this.windowMs;
  }

  #forgetOld(now: number): void {
    for (const [key, seenAt] of this.#lastSeenAt) {
      // Entries are kept in insertion order of last sighting, so the oldest come first.
      if (now - seenAt < this.windowMs && this.#lastSeenAt.size <= REMEMBERED_KEYS_MAX) break;
      this.#lastSeenAt.delete(key);
    }
  }
}
