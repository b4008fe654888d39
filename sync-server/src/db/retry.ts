import { isDatabaseUnavailable } from './database.ts';

export interface RetryInBackgroundOptions {
  /** After this long since the first attempt, the statement is dropped (logged). */
  giveUpAfterMs: number;
  onError: (error: unknown) => void;
}

const FIRST_RETRY_DELAY_MS = 250;
const RETRY_DELAY_MAX_MS = 2_000;

/**
 * Runs an idempotent statement now; when the database could not be reached, runs it again in
 * the background (250 ms, doubling to 2 s apart) until it succeeds or `giveUpAfterMs` has passed.
 * Resolves after the first attempt either way and never rejects: for bookkeeping a caller must
 * not fail over (its answer is already decided), and that a dropped connection must not lose.
 * Errors other than an unreachable database are reported once and not retried.
 */
export async function retryInBackground(statement: () => Promise<unknown>, options: RetryInBackgroundOptions): Promise<void> {
  const startedAt = Date.now();
  const attempt = async (delayMs: number): Promise<void> => {
    try {
      await statement();
    } catch (error) {
      options.onError(error);
      if (!isDatabaseUnavailable(error) || Date.now() - startedAt + delayMs > options.giveUpAfterMs) return;
      const timer = setTimeout(() => void attempt(Math.min(delayMs * 2, RETRY_DELAY_MAX_MS)), delayMs);
      // A pending retry never keeps the process alive on its own.
      timer.unref();
    }
  };
  await attempt(FIRST_RETRY_DELAY_MS);
}
