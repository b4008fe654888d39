/**
 * One connection's allowance of messages: `perSecond` on average and `burst` at once (a token
 * bucket). It runs on the monotonic clock, not the app's: a test clock that stands still must not
 * stop the allowance from refilling, and a wall-clock jump must not grant a burst.
 */
export interface MessageBudget {
  /** Spends one message; false when none is left (the message must be refused). */
  take(): boolean;
}

export function messageBudget(perSecond: number, burst: number, now: () => number = () => performance.now()): MessageBudget {
  let tokens = burst;
  let refilledAt = now();
  return {
    take() {
      const at = now();
      tokens = Math.min(burst, tokens + ((at - refilledAt) * perSecond) / 1000);
      refilledAt = at;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
