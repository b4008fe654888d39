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

  it('fails every row of a failed batch with its error, and keeps serving the next rows', async () => {
    let fail = true;
    const batcher = new StatementBatcher(
      async (items: readonly number[]) => {
        if (fail) throw new Error('connection terminated');
        return items.map((item) => item * 2);
      },
      { maxBatch: 10, maxInFlight: 1 },
    );
    const failed = await Promise.allSettled([1, 2, 3].map((item) => batcher.submit(item)));
    assert.ok(failed.every((outcome) => outcome.status === 'rejected' && /connection terminated/.test(String(outcome.reason))), JSON.stringify(failed));
    fail = false;
    assert.deepEqual(await Promise.all([4, 5].map((item) => batcher.submit(item))), [8, 10]);
  });

  it('refuses an answer with the wrong number of results', async () => {
    const batcher = new StatementBatcher(async () => [1], { maxBatch: 10, maxInFlight: 1 });
    const first = batcher.submit('a');
    const both = await Promise.allSettled([first, batcher.submit('b'), batcher.submit('c')]);
    assert.equal(both[0].status, 'fulfilled');
    assert.ok(both.slice(1).every((outcome) => outcome.status === 'rejected' && /answered 1 results/.test(String(outcome.reason))));
  });
});
