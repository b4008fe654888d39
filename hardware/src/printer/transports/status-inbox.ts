import { isStatusByte } from '../status.ts';

/** At most this many unread status bytes are kept: a chatty printer cannot grow memory. */
const STATUS_BYTES_MAX = 64;

/** Status bytes a printer sent back, waiting to be read one at a time with a deadline. */
export class StatusInbox {
  #bytes: number[] = [];
  #waiter: (() => void) | null = null;
  #closed = false;

  /** Keeps the status bytes of a received chunk and wakes a waiting reader. */
  receive(chunk: Iterable<number>): void {
    for (const byte of chunk) if (isStatusByte(byte) && this.#bytes.length < STATUS_BYTES_MAX) this.#bytes.push(byte);
    this.#waiter?.();
  }

  /**
   * The connection closed: a waiting reader gets what is left, then null at once, rather than
   * waiting out its deadline for bytes that can no longer come.
   */
  wake(): void {
    this.#closed = true;
    this.#waiter?.();
  }

  clear(): void {
    this.#bytes = [];
  }

  /** The next status byte, or null when none arrives within timeoutMs. */
  async next(timeoutMs: number): Promise<number | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#bytes.length === 0) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.#closed) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#waiter = null;
    }
    return this.#bytes.shift() ?? null;
  }
}
