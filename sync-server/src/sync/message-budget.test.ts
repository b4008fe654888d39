import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageBudget, terminalBudgets } from './message-budget.ts';

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

  it('is one per terminal, shared by its connections, and forgotten after its last connection', () => {
    let now = 1_000;
    const budgets = terminalBudgets(10, 3, () => now);
    const first = budgets.join('term_a');
    const second = budgets.join('term_a');
    const other = budgets.join('term_b');
    assert.deepEqual([first.budget.take(), second.budget.take(), first.budget.take(), second.budget.take()], [true, true, true, false], 'two connections share three');
    assert.equal(other.budget.take(), true, 'another terminal has its own');
    first.leave();
    first.leave(); // twice is once
    assert.equal(budgets.size(), 2);
    assert.equal(second.budget.take(), false, 'the remaining connection still has the spent budget');
    second.leave();
    other.leave();
    assert.equal(budgets.size(), 0);
    now += 1;
    assert.equal(budgets.join('term_a').budget.take(), true, 'a later connection starts afresh');
  });
});
