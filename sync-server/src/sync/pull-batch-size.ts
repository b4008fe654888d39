import { SYNC_PULL_BATCH_SIZE_MAX } from '@tapline/shared/limits';
/**
 * The number of documents a pull answers: the terminal's batchSize, kept between 1 and
 * SYNC_PULL_BATCH_SIZE_MAX so one message never holds more than the server is willing to send.
 * A batchSize that is not an integer means the largest.
 */
export function pullBatchSize(requested: unknown): number {
  const size = typeof requested === 'number' && Number.isSafeInteger(requested) ? requested : SYNC_PULL_BATCH_SIZE_MAX;
  return Math.min(Math.max(size, 1), SYNC_PULL_BATCH_SIZE_MAX);
}
