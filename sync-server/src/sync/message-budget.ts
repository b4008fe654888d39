/**
 * One terminal's allowance of messages: `perSecond` on average and `burst` at once (a token
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

/**
 * The budgets of the terminals connected to this process, one per terminal however many
 * connections it opens: a second window (or a script opening a hundred sockets with one token)
 * shares the first one's allowance rather than multiplying it. A budget lives while any of its
 * terminal's connections does.
 */
export interface TerminalBudgets {
  /** The terminal's budget for a new connection, and the call that ends that connection's share. */
  join(terminalId: string): { budget: MessageBudget; leave(): void };
  /** How many terminals hold a budget now (for tests: none is kept after its last connection). */
  size(): number;
}

export function terminalBudgets(perSecond: number, burst: number, now?: () => number): TerminalBudgets {
  const budgets = new Map<string, { budget: MessageBudget; connections: number }>();
  return {
    join(terminalId) {
      let entry = budgets.get(terminalId);
      if (!entry) {
        entry = { budget: messageBudget(perSecond, burst, now), connections: 0 };
        budgets.set(terminalId, entry);
      }
      entry.connections += 1;
      const joined = entry;
      let left = false;
      return {
        budget: joined.budget,
        leave() {
          if (left) return;
          left = true;
          joined.connections -= 1;
          if (joined.connections === 0 && budgets.get(terminalId) === joined) budgets.delete(terminalId);
        },
      };
    },
    size: () => budgets.size,
  };
}
