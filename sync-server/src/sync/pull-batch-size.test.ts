import { SYNC_PULL_BATCH_SIZE_MAX } from '@tapline/shared/limits';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pullBatchSize } from './pull-batch-size.ts';

describe('a pull\'s batch size', () => {
  it('is the terminal\'s, between 1 and the largest the server sends; anything else means the largest', () => {
    assert.equal(SYNC_PULL_BATCH_SIZE_MAX, 500);
    const cases: [unknown, number][] = [[10, 10], [500, 500], [501, 500], [10_000, 500], [Number.MAX_SAFE_INTEGER, 500], [0, 1], [-5, 1], [1.5, 500], ['all', 500], [null, 500], [undefined, 500], [Number.NaN, 500], [Infinity, 500], ['20', 500]];
    for (const [requested, size] of cases) assert.equal(pullBatchSize(requested), size, String(requested));
  });
});
