import { type ApiError, type TaplineError, retryAfterSeconds } from './errors.ts';

/** How the client retries: which failures, how many times, how long it waits. */
export interface RetryPolicy {
  /** Retries after the first attempt; default 3. */
  maxRetries: number;
  /** The first backoff; it doubles on every retry, with jitter; default 500 ms. */
  initialDelayMs: number;
  /** The longest backoff; default 8 s. */
  maxDelayMs: number;
  /** A 429 whose Retry-After is longer than this is not waited for: the error is thrown; default 60 s. */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterSeconds: 60 };

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Why: the error of the attempt that failed (its status and code say what happened). */
  error: TaplineError;
}

/** Exponential backoff with "equal jitter": between half and all of the doubled delay. */
export function backoffMs(policy: RetryPolicy, retry: number, random = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * How long to wait before retrying after `error`, or undefined when it must not be retried.
 * Retried: no answer (the request carries its Idempotency-Key, so a payment that did run is
 * answered, not made again), 409 idempotency_in_progress (the first attempt still runs), 429
 * after its Retry-After, and 5xx. A locked PIN (429 pin_attempts_exceeded) is never retried:
 * sending the same PIN again cannot help.
 */
export function retryDelayMs(policy: RetryPolicy, error: TaplineError, retry: number): number | undefined {
  if (error.status === undefined) return backoffMs(policy, retry);
  const apiError = error as ApiError;
  if (apiError.status === 409) return apiError.code === 'idempotency_in_progress' ? backoffMs(policy, retry) : undefined;
  if (apiError.status === 429) {
    if (apiError.code === 'pin_attempts_exceeded') return undefined;
    const seconds = retryAfterSeconds(apiError.headers);
    if (seconds === undefined) return backoffMs(policy, retry);
    // A little more than asked: the server's window may end a few milliseconds after ours.
    return seconds > policy.maxRetryAfterSeconds ? undefined : seconds * 1000 + 50;
  }
  if (apiError.status >= 500) {
    const seconds = retryAfterSeconds(apiError.headers);
    return seconds !== undefined && seconds <= policy.maxRetryAfterSeconds ? seconds * 1000 : backoffMs(policy, retry);
  }
  return undefined;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
