// StatementBatcher: rows submitted while the batches are busy go together in the next one; a
// quiet batcher sends a row at once; one conflict key never twice in a batch; a failed batch
// fails each of its rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatementBatcher } from './batcher.ts';

/** A statement whose batches finish only when the test lets them. */
function gatedStatement() {
  const batches: string[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: readonly string[]) => {
    batches.push([...items]);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((item) => item.toUpperCase());
  };
  return { batches, run, open: () => gates.splice(0).forEach((resolve) => resolve()) };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('StatementBatcher', () => {
  it('sends a row at once while a slot is free, and what arrives meanwhile together, each answered its own result', async () => {
    const statement = gatedStatement();
    const batcher = new StatementBatcher(statement.run, { maxBatch: 10, maxInFlight: 1 });
    const first = batcher.submit('a');
    await settled();
    assert.deepEqual(statement.batches, [['a']], 'the first row went alone, at once');
    const rest = ['b', 'c', 'd'].map((item) => batcher.submit(item));
    await settled();
    assert.equal(statement.batches.length, 1, 'the others wait for the running batch');
    statement.open();
    assert.equal(await first, 'A');
    await settled();
    assert.deepEqual(statement.batches, [['a'], ['b', 'c', 'd']]);
    statement.open();
    assert.deepEqual(await Promise.all(rest), ['B', 'C', 'D']);
  });

  it('runs up to maxInFlight batches at once and caps each at maxBatch', async () => {
    const statement = gatedStatement();
    const batcher = new StatementBatcher(statement.run, { maxBatch: 2, maxInFlight: 2 });
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((item) => batcher.submit(item));
    await settled();
    assert.deepEqual(statement.batches, [['a'], ['b']], 'two single rows went at once; the rest wait');
    for (let round = 0; round < 4; round++) {
      statement.open();
      await settled();
      await settled();
    }
    assert.deepEqual(await Promise.all(all), ['A', 'B', 'C', 'D', 'E', 'F', 'G']);
    assert.ok(statement.batches.every((batch) => batch.length <= 2), JSON.stringify(statement.batches));
    assert.deepEqual(statement.batches.flat().sort(), ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('never puts two rows of one conflict key in a batch: the later one goes in the next batch, in order', async () => {
    const statement = gatedStatement();
    const batcher = new StatementBatcher(statement.run, { maxBatch: 10, maxInFlight: 1, conflictKey: (item: string) => item[0]! });
    const first = batcher.submit('x0');
    await settled();
    const queued = ['k1', 'm1', 'k2', 'n1', 'k3'].map((item) => batcher.submit(item));
    statement.open();
    await first;
    await settled();
    assert.deepEqual(statement.batches[1], ['k1', 'm1', 'n1']);
    statement.open();
    await settled();
    assert.deepEqual(statement.batches[2], ['k2']);
    statement.open();
    await settled();
    assert.deepEqual(statement.batches[3], ['k3']);
    statement.open();
    assert.deepEqual(await Promise.all(queued), ['K1', 'M1', 'K2', 'N1', 'K3']);
  });

  it('fails every row with its error while the database refuses them all, and keeps serving the next rows', async () => {
    let fail = true;
    const calls: number[][] = [];
    const batcher = new StatementBatcher(
      async (items: readonly number[]) => {
        calls.push([...items]);
        if (fail) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        return items.map((item) => item * 2);
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    const failed = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    assert.ok(failed.every((outcome) => outcome.status === 'rejected' && /ECONNREFUSED/.test(String(outcome.reason))), JSON.stringify(failed));
    // 1 alone; then 2 and 3 together, refused by a database that cannot be reached: not run again one by one.
    assert.deepEqual(calls, [[1], [2, 3]]);
    fail = false;
    assert.deepEqual(await Promise.all([4, 5].map((item) => batcher.submit(item))), [8, 10]);
  });

  it('runs a failed batch again row by row: only the row the database refuses fails', async () => {
    const statement = gatedStatement();
    const batcher = new StatementBatcher(
      async (items: readonly string[]) => {
        if (items.includes('bad')) throw new Error('invalid input for bad');
        return statement.run(items);
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    const first = batcher.submit('a');
    await settled();
    const rest = ['b', 'bad', 'c'].map((item) => batcher.submit(item).then((value) => ({ value }), (error: unknown) => ({ error: String(error) })));
    for (let round = 0; round < 4; round++) {
      statement.open();
      await settled();
      await settled();
    }
    assert.equal(await first, 'A');
    assert.deepEqual(await Promise.all(rest), [{ value: 'B' }, { error: 'Error: invalid input for bad' }, { value: 'C' }]);
  });

  it('refuses an answer with the wrong number of results', async () => {
    const batcher = new StatementBatcher(async (items: readonly string[]) => (items.length === 2 ? [1] : items.map(() => 1)), { maxBatch: 10, maxInFlight: 1 });
    const first = batcher.submit('a');
    const outcomes = await Promise.allSettled([first, batcher.submit('b'), batcher.submit('c')]);
    // b and c went together and were answered one result: run again alone, each is answered.
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'fulfilled', 'fulfilled']);
    const wrong = new StatementBatcher(async () => [] as number[], { maxBatch: 10, maxInFlight: 1 });
    await assert.rejects(wrong.submit('x'), /a batch of 1 answered 0 results/);
  });
});
