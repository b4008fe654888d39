import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../../testing/databases.ts';

// A tag's no-PIN day budget (db/functions/no_pin_budget.sql): the latest day on the row, earlier
// days of the last 31 in the history. pos_tap and offline_post_taps both spend it through these.
type Budget = { day: string | null; spent: number; history: Record<string, number> };

for (const target of await databaseTargets()) {
  describe(`a tag's no-PIN day budget on ${target.name}`, () => {
    const db = useDatabase(target);

    async function add(budget: Budget, on: string, amount: number): Promise<Budget> {
      const [row] = await db().query<{ day: string | null; spent: number | string; history: Record<string, number> }>(
        `SELECT to_char(a.day, 'YYYY-MM-DD') AS day, a.spent, a.history FROM no_pin_add($1::date, $2::int8, $3::jsonb, $4::date, $5::int8) AS a`,
        [budget.day, budget.spent, JSON.stringify(budget.history), on, amount],
      );
      return { day: row!.day, spent: Number(row!.spent), history: Object.fromEntries(Object.entries(row!.history).map(([day, value]) => [day, Number(value)])) };
    }

    async function spentOn(budget: Budget, on: string): Promise<number> {
      const [row] = await db().query<{ spent: number | string }>('SELECT no_pin_spent_on($1::date, $2::int8, $3::jsonb, $4::date) AS spent', [budget.day, budget.spent, JSON.stringify(budget.history), on]);
      return Number(row!.spent);
    }

    it('adds to the latest day, starts a later one (the latest joins the history), and adds to an earlier one in the history', async () => {
      let budget: Budget = { day: null, spent: 0, history: {} };
      budget = await add(budget, '2026-03-10', 500);
      assert.deepEqual(budget, { day: '2026-03-10', spent: 500, history: {} });
      budget = await add(budget, '2026-03-10', 250);
      assert.deepEqual(budget, { day: '2026-03-10', spent: 750, history: {} });
      budget = await add(budget, '2026-03-12', 100);
      assert.deepEqual(budget, { day: '2026-03-12', spent: 100, history: { '2026-03-10': 750 } });
      budget = await add(budget, '2026-03-11', 40);
      budget = await add(budget, '2026-03-10', 10);
      assert.deepEqual(budget, { day: '2026-03-12', spent: 100, history: { '2026-03-10': 760, '2026-03-11': 40 } });
      assert.deepEqual(
        await Promise.all(['2026-03-09', '2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13'].map((day) => spentOn(budget, day))),
        [0, 760, 40, 100, 0],
      );
    });

    it('forgets days 31 or more before the latest (no offline payment that old is accepted), and never keeps an empty day', async () => {
      let budget: Budget = { day: '2026-03-01', spent: 0, history: { '2026-01-15': 300, '2026-02-20': 200, '2026-02-25': 70 } };
      budget = await add(budget, '2026-03-25', 50);
      assert.deepEqual(budget, { day: '2026-03-25', spent: 50, history: { '2026-02-25': 70 } }, 'an empty latest day is not kept; 2026-01-15 and 2026-02-20 are 69 and 33 days back, 2026-02-25 is 28');
      budget = await add(budget, '2026-03-23', 5);
      budget = await add(budget, '2026-04-22', 1);
      assert.deepEqual(budget, { day: '2026-04-22', spent: 1, history: { '2026-03-23': 5, '2026-03-25': 50 } }, '2026-02-25 is 56 days back; 2026-03-23 is 30');
      budget = await add(budget, '2026-04-23', 1);
      assert.deepEqual(budget.history, { '2026-04-22': 1, '2026-03-25': 50 }, '2026-03-23 is now 31 days back');
    });
  });
}
