import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageBudget } from './message-budget.ts';

describe('a connection\'s message budget', () => {
  it('allows a burst at once, then refills at its rate, never beyond the burst', () => {
    let now = 1_000;
    const budget = messageBudget(10, 3, () => now);
    assert.deepEqual([budget.take(), budget.take(), budget.take(), budget.take()], [true, true, true, false]);
    now += 50; // half a message's worth
    assert.equal(budget.take(), false);
    now += 50;
    assert.equal(budget.take(), true);
    assert.equal(budget.take(), false);
    now += 60_000; // a long quiet spell refills only up to the burst
    assert.deepEqual([budget.take(), budget.take(), budget.take(), budget.take()], [true, true, true, false]);
  });
});
