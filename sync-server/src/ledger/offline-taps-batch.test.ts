// offline_post_taps decides a push's taps in memory and writes the ones that go through in four
// statements (ledger_post_person_to_merchant_batch); before, each tap was one ledger_post_transfer.
// These tests hold it to the same answers and the same rows as that: the reference below is the
// function as it was (one ledger_post_transfer per tap, byte for byte the old body but for its
// name), and seeded scenarios with every case the batch must hand back to the ledger or decline in
// its place (payers that run out of money in the middle of a push, ids repeated in a push or
// already posted with the same or other legs, a payer with no account yet, a merchant whose inflow
// shard is not open yet, spent offline budgets and no-PIN day budgets, taps of an earlier day) are
// run through both inside one transaction, rolled back in between, and compared row for row.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Database, Queryable } from '../db/database.ts';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { checkLedger } from './check.ts';
import { postOfflineTaps } from './ledger.ts';

const REFERENCE = `
CREATE OR REPLACE FUNCTION offline_post_taps_reference(
  p_mode text, p_merchant_wallet_id text, p_currency text, p_transfer_ids text[], p_payer_wallet_ids text[],
  p_amounts bigint[], p_metadata jsonb[], p_windows integer[], p_budgets bigint[],
  p_tag_ids text[], p_capture_days date[], p_settle_day date, p_per_day bigint[]
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_budgets bigint[] := p_budgets;
  v_results text[] := ARRAY[]::text[];
  v_result text;
  v_tags text[];
  v_days date[];
  v_spent bigint[];
  v_history jsonb[];
  v_changed boolean := false;
  v_k integer;
  v_on date;
  v_amount bigint;
  v_day date;
  v_day_spent bigint;
  v_day_history jsonb;
BEGIN
  SELECT coalesce(array_agg(w.tag_id), ARRAY[]::text[]), array_agg(w.no_pin_day), array_agg(w.no_pin_spent), array_agg(w.no_pin_history)
  INTO v_tags, v_days, v_spent, v_history
  FROM wearables w WHERE w.tag_id = ANY (p_tag_ids);
  FOR i IN 1 .. coalesce(array_length(p_transfer_ids, 1), 0) LOOP
    v_amount := p_amounts[i];
    v_k := array_position(v_tags, p_tag_ids[i]);
    v_on := least(p_capture_days[i], p_settle_day);
    IF v_amount > v_budgets[p_windows[i]] THEN
      v_result := 'offline_exposure_limit';
    ELSIF v_k IS NULL
       OR no_pin_spent_on(v_days[v_k], v_spent[v_k], v_history[v_k], v_on) + v_amount > p_per_day[i]
       OR no_pin_spent_on(v_days[v_k], v_spent[v_k], v_history[v_k], p_settle_day) + v_amount > p_per_day[i] THEN
      v_result := 'pin_required';
    ELSE
      SELECT t.result INTO v_result FROM ledger_post_transfer(
        p_transfer_ids[i], p_mode, 'offline_tap', ARRAY['wallet', 'wallet'], ARRAY[p_payer_wallet_ids[i], p_merchant_wallet_id],
        ARRAY[p_currency, p_currency], ARRAY[-v_amount, v_amount]::bigint[], p_metadata[i]) AS t;
      IF v_result IN ('created', 'exists') THEN
        v_budgets[p_windows[i]] := v_budgets[p_windows[i]] - v_amount;
        SELECT a.day, a.spent, a.history INTO v_day, v_day_spent, v_day_history
        FROM no_pin_add(v_days[v_k], v_spent[v_k], v_history[v_k], v_on, v_amount) AS a;
        IF v_on <> p_settle_day THEN
          SELECT a.day, a.spent, a.history INTO v_day, v_day_spent, v_day_history
          FROM no_pin_add(v_day, v_day_spent, v_day_history, p_settle_day, v_amount) AS a;
        END IF;
        v_days[v_k] := v_day;
        v_spent[v_k] := v_day_spent;
        v_history[v_k] := v_day_history;
        v_changed := true;
      END IF;
    END IF;
    v_results := v_results || v_result;
  END LOOP;
  IF v_changed THEN
    UPDATE wearables w SET no_pin_day = u.day, no_pin_spent = u.spent, no_pin_history = u.history
    FROM unnest(v_tags, v_days, v_spent, v_history) AS u (tag_id, day, spent, history)
    WHERE w.tag_id = u.tag_id
      AND (w.no_pin_day, w.no_pin_spent, w.no_pin_history) IS DISTINCT FROM (u.day, u.spent, u.history);
  END IF;
  RETURN v_results;
END
$$`;

/** A small seeded generator (mulberry32), so a failing scenario can be run again. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Push {
  ids: string[];
  payers: string[];
  amounts: number[];
  metadata: string[];
  windows: number[];
  budgets: number[];
  tags: string[];
  days: string[];
  settleDay: string;
  perDay: number[];
}

const MERCHANT = 'wal_batch_merchant';
const PAYERS = ['wal_batch_p0', 'wal_batch_p1', 'wal_batch_p2', 'wal_batch_p3', 'wal_batch_p4', 'wal_batch_p5'];
/** p5 is never funded: it has no ledger account until a tap of it opens one. */
const tagOf = (payer: number, second = false) => `TG${(0xa0 + payer + (second ? 0x10 : 0)).toString(16).toUpperCase()}000000`;

const postTaps = async (tx: Queryable, fn: string, push: Push): Promise<string[]> => {
  const [row] = await tx.query<{ results: string[] }>(
    `SELECT ${fn}('test', $1, 'NGN', $2::text[], $3::text[], $4::int8[], $5::jsonb[], $6::int4[], $7::int8[], $8::text[], $9::date[], $10::date, $11::int8[]) AS results`,
    [MERCHANT, push.ids, push.payers, push.amounts, push.metadata, push.windows, push.budgets, push.tags, push.days, push.settleDay, push.perDay],
  );
  return row!.results;
};

/** Everything the taps may change, with accounts named by owner and shard (ids differ after a rollback). */
async function snapshot(tx: Queryable) {
  return {
    transfers: await tx.query('SELECT id, mode, kind, fingerprint, metadata FROM ledger_transfers ORDER BY id'),
    postings: await tx.query(
      `SELECT p.transfer_id, p.leg, a.owner_type, a.owner_id, a.currency, a.shard, p.currency AS posted_currency, p.amount::int8 AS amount
       FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id ORDER BY p.transfer_id, p.leg`,
    ),
    accounts: await tx.query(
      'SELECT owner_type, owner_id, currency, mode, shard, lock_rank, allow_negative, balance::int8 AS balance FROM ledger_accounts ORDER BY owner_type, owner_id, currency, mode, shard',
    ),
    tags: await tx.query("SELECT tag_id, to_char(no_pin_day, 'YYYY-MM-DD') AS day, no_pin_spent::int8 AS spent, no_pin_history FROM wearables ORDER BY tag_id"),
  };
}

/** A scenario: a few pushes of taps drawn from a seed, over payers with little money. */
function scenario(seed: number): { funding: number[]; openShard: boolean; preposted: { id: string; payer: string; amount: number }[]; pushes: Push[] } {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const funding = PAYERS.map((_, index) => (index === 5 ? 0 : Math.floor(next() * 900)));
  const ids = Array.from({ length: 70 }, (_, index) => `offline:s${seed}-${index}`);
  const preposted = [0, 1, 2].map((index) => ({ id: ids[index]!, payer: PAYERS[index]!, amount: 1 + index }));
  const pushes: Push[] = [];
  const settleDay = '2026-03-10';
  for (let p = 0; p < 3; p++) {
    const size = 10 + Math.floor(next() * 30);
    const push: Push = { ids: [], payers: [], amounts: [], metadata: [], windows: [], budgets: [400 + Math.floor(next() * 2000), 300], tags: [], days: [], settleDay, perDay: [] };
    for (let t = 0; t < size; t++) {
      const payer = Math.floor(next() * PAYERS.length);
      // Ids: mostly new, some repeated (in this push or an earlier one), some posted before the pushes.
      push.ids.push(pick(ids.slice(0, 10 + p * 20 + t)));
      push.payers.push(PAYERS[payer]!);
      // The preposted transfers' own legs for their ids sometimes ('exists'), other legs otherwise.
      const pre = preposted.find((entry) => entry.id === push.ids[t]);
      push.amounts.push(pre && next() < 0.5 ? pre.amount : 1 + Math.floor(next() * 250));
      if (pre && push.amounts[t] === pre.amount) push.payers[t] = pre.payer;
      push.metadata.push(JSON.stringify({ offlinePaymentId: push.ids[t], n: t }));
      push.windows.push(next() < 0.8 ? 1 : 2);
      push.tags.push(tagOf(PAYERS.indexOf(push.payers[t]!), next() < 0.3));
      push.days.push(next() < 0.75 ? settleDay : pick(['2026-03-09', '2026-03-08', '2026-03-11']));
      push.perDay.push(next() < 0.2 ? 300 : 5000);
    }
    pushes.push(push);
  }
  return { funding, openShard: next() < 0.5, preposted, pushes };
}

for (const target of await databaseTargets()) {
  describe(`offline taps posted set-based on ${target.name}`, () => {
    const database = useDatabase(target);
    let db: Database;
    before(async () => {
      db = database();
      await db.exec(REFERENCE);
      await db.query("INSERT INTO wallets (id, handle, mode, owner_type, country, currency) VALUES ($1, 'batch_merchant', 'test', 'merchant', 'NG', 'NGN')", [MERCHANT]);
      for (const [index, payer] of PAYERS.entries()) {
        await db.query("INSERT INTO wallets (id, handle, mode, owner_type, country, currency) VALUES ($1, $2, 'test', 'person', 'NG', 'NGN')", [payer, `batch_payer_${index}`]);
        for (const second of [false, true]) {
          await db.query("INSERT INTO wearables (tag_id, mode, wallet_id, handle, tag_type, display_name) VALUES ($1, 'test', $2, $3, 'ring', 'Ring')", [tagOf(index, second), payer, `batch_payer_${index}`]);
        }
      }
    });

    /** Runs `work` in a transaction that is always rolled back. */
    async function rolledBack(work: (tx: Queryable) => Promise<void>): Promise<void> {
      const undo = new Error('roll back');
      await assert.rejects(db.transaction(async (tx) => {
        await work(tx);
        throw undo;
      }), (error: unknown) => error === undo);
    }

    async function setUp(tx: Queryable, plan: ReturnType<typeof scenario>): Promise<void> {
      for (const [index, amount] of plan.funding.entries()) {
        if (amount === 0) continue;
        await tx.query(
          "SELECT result FROM ledger_post_transfer($1, 'test', 'wallet_credit', ARRAY['system', 'wallet'], ARRAY['funding', $2], ARRAY['NGN', 'NGN'], ARRAY[-$3::int8, $3::int8], '{}'::jsonb)",
          [`fund-${index}`, PAYERS[index]!, amount],
        );
      }
      // Some scenarios start with the merchant's accounts open (shard included), others with none.
      if (plan.openShard) {
        await tx.query(
          "SELECT result FROM ledger_post_transfer('opening', 'test', 'wallet_credit', ARRAY['system', 'wallet'], ARRAY['funding', $1], ARRAY['NGN', 'NGN'], ARRAY[-1::int8, 1::int8], '{}'::jsonb)",
          [MERCHANT],
        );
      }
      for (const pre of plan.preposted) {
        await tx.query(
          "SELECT result FROM ledger_post_transfer($1, 'test', 'offline_tap', ARRAY['wallet', 'wallet'], ARRAY[$2, $3], ARRAY['NGN', 'NGN'], ARRAY[-$4::int8, $4::int8], '{}'::jsonb)",
          [pre.id, pre.payer, MERCHANT, pre.amount],
        );
      }
    }

    it('answers and writes what one ledger_post_transfer per tap did, in 40 seeded scenarios', async () => {
      const outcomes = new Set<string>();
      for (let seed = 1; seed <= 40; seed++) {
        const plan = scenario(seed);
        let batched: { results: string[][]; rows: Awaited<ReturnType<typeof snapshot>> } | undefined;
        let reference: typeof batched;
        for (const fn of ['offline_post_taps', 'offline_post_taps_reference']) {
          await rolledBack(async (tx) => {
            await setUp(tx, plan);
            const results: string[][] = [];
            for (const push of plan.pushes) results.push(await postTaps(tx, fn, push));
            const outcome = { results, rows: await snapshot(tx) };
            if (fn === 'offline_post_taps') batched = outcome;
            else reference = outcome;
            const report = await checkLedger(tx);
            assert.deepEqual(report.violations, [], `seed ${seed} ${fn}: the ledger's invariants hold`);
          });
        }
        assert.deepEqual(batched!.results, reference!.results, `seed ${seed}: the same result per tap`);
        assert.deepEqual(batched!.rows, reference!.rows, `seed ${seed}: the same transfers, postings, balances and tag budgets`);
        for (const result of batched!.results.flat()) outcomes.add(result);
      }
      // The scenarios reach every answer the batch must give or hand to the ledger.
      assert.deepEqual([...outcomes].sort(), ['created', 'exists', 'exists_with_different_legs', 'insufficient_funds', 'offline_exposure_limit', 'pin_required']);
    });

    it('declines, in its place in the order, the tap that would overdraw, and posts the later ones that fit', async () => {
      await rolledBack(async (tx) => {
        await setUp(tx, { funding: [300, 0, 0, 0, 0, 0], openShard: true, preposted: [], pushes: [] });
        const amounts = [150, 100, 100, 50, 1];
        const results = await postOfflineTaps(tx, {
          mode: 'test',
          merchantWalletId: MERCHANT,
          currency: 'NGN',
          taps: amounts.map((amount, index) => ({ id: `offline:order-${index}`, payerWalletId: PAYERS[0]!, amount, metadata: {}, tagId: tagOf(0), noPinPerDay: 10_000, capturedOn: '2026-03-10' })),
          windows: amounts.map(() => 1),
          budgets: [10_000],
          settledOn: '2026-03-10',
        });
        assert.deepEqual(results, ['created', 'created', 'insufficient_funds', 'created', 'insufficient_funds']);
        const [payer] = await tx.query<{ balance: number }>("SELECT balance::int8 AS balance FROM ledger_accounts WHERE owner_id = $1 AND shard = 0", [PAYERS[0]!]);
        assert.equal(Number(payer!.balance), 0, 'the payer paid 150 + 100 + 50 of its 300');
        const [merchant] = await tx.query<{ total: number }>('SELECT sum(balance)::int8 AS total FROM ledger_accounts WHERE owner_id = $1', [MERCHANT]);
        assert.equal(Number(merchant!.total), 1 + 300, "the merchant's rows hold its opening 1 and the three taps");
        const [tag] = await tx.query<{ spent: number }>('SELECT no_pin_spent::int8 AS spent FROM wearables WHERE tag_id = $1', [tagOf(0)]);
        assert.equal(Number(tag!.spent), 300, 'only the accepted taps spent the no-PIN day budget');
      });
    });

    it('refuses a batch a caller got wrong (a debit over the balance) and writes nothing', async () => {
      await rolledBack(async (tx) => {
        await setUp(tx, { funding: [100, 0, 0, 0, 0, 0], openShard: true, preposted: [], pushes: [] });
        const [payer] = await tx.query<{ id: number }>("SELECT id FROM ledger_accounts WHERE owner_id = $1 AND shard = 0", [PAYERS[0]!]);
        const [shard] = await tx.query<{ id: number }>('SELECT id FROM ledger_accounts WHERE owner_id = $1 AND shard > 0', [MERCHANT]);
        await tx.query('SAVEPOINT wrong_batch');
        await assert.rejects(
          tx.query(
            "SELECT ledger_post_person_to_merchant_batch(ARRAY['x1', 'x2'], 'test', 'offline_tap', ARRAY[$1, $1], ARRAY[$2, $2]::int8[], $3, $4, 'NGN', ARRAY[60, 60]::int8[], ARRAY['{}', '{}']::jsonb[])",
            [PAYERS[0]!, payer!.id, MERCHANT, shard!.id],
          ),
          /cannot take its debits/,
        );
        await tx.query('ROLLBACK TO SAVEPOINT wrong_batch');
        const posted = await tx.query("SELECT id FROM ledger_transfers WHERE id IN ('x1', 'x2')");
        assert.deepEqual(posted, [], 'nothing posted');
        const [after] = await tx.query<{ balance: number }>('SELECT balance::int8 AS balance FROM ledger_accounts WHERE id = $1', [payer!.id]);
        assert.equal(Number(after!.balance), 100);
      });
    });
  });
}
