/**
 * How many sync messages this process works on at once, the rest waiting their turn in arrival
 * order. When a city's terminals reconnect together (hundreds of pushes of 100 payments each)
 * every push would otherwise ask the database pool for a connection at once: those past the
 * pool's connect timeout were answered `database_unavailable`, and HTTP requests (sales at other
 * tills) queued behind them. Gated, a push waits here as long as it must, and the pool keeps
 * connections free for HTTP.
 */
export interface MessageGate {
  /** Runs `work` when a place is free; `stillWanted` is asked then, and false skips the work. */
  run<T>(work: () => Promise<T>, stillWanted?: () => boolean): Promise<T | undefined>;
  /** Messages waiting for a place now (for tests and metrics). */
  readonly waiting: number;
}

export function messageGate(places: number): MessageGate {
  if (!Number.isInteger(places) || places < 1) throw new RangeError(`a message gate needs at least one place, not ${places}`);
  let busy = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else busy--;
  };
  return {
    async run(work, stillWanted) {
      if (busy < places) busy++;
      // The place is handed over by release(): busy stays counted for the waiter.
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        if (stillWanted && !stillWanted()) return undefined;
        return await work();
      } finally {
        release();
      }
    },
    get waiting() {
      return queue.length;
    },
  };
}
