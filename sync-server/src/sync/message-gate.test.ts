import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageGate } from './message-gate.ts';

/** A piece of work the test finishes by hand. */
function manual() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { done, finish };
}

describe('messageGate', () => {
  it('works on at most its places at once and lets the others in, in arrival order, as places free up', async () => {
    const gate = messageGate(2);
    const started: number[] = [];
    const works = Array.from({ length: 5 }, () => manual());
    const runs = works.map((work, index) => gate.run(async () => {
      started.push(index);
      await work.done;
      return index;
    }));
    await Promise.resolve();
    assert.deepEqual(started, [0, 1]);
    assert.equal(gate.waiting, 3);
    works[1]!.finish();
    assert.equal(await runs[1], 1);
    assert.deepEqual(started, [0, 1, 2]);
    works[0]!.finish();
    works[2]!.finish();
    await Promise.all([runs[0], runs[2]]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(gate.waiting, 0);
    works[3]!.finish();
    works[4]!.finish();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
  });

  it('skips work no longer wanted when its turn comes, and a failure frees its place', async () => {
    const gate = messageGate(1);
    const first = manual();
    const running = gate.run(() => first.done);
    let ranSkipped = false;
    const skipped = gate.run(async () => {
      ranSkipped = true;
    }, () => false);
    const failing = gate.run(() => Promise.reject(new Error('database gone')));
    const after = gate.run(async () => 'ran');
    first.finish();
    await running;
    assert.equal(await skipped, undefined);
    assert.equal(ranSkipped, false);
    await assert.rejects(failing, /database gone/);
    assert.equal(await after, 'ran');
    assert.equal(gate.waiting, 0);
  });

  it('refuses a gate without places', () => {
    assert.throws(() => messageGate(0), RangeError);
  });
});
