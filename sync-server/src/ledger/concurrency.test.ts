import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { systemAccount, walletAccount } from './accounts.ts';
import { checkLedger } from './check.ts';
import { LedgerError, transfer } from './ledger.ts';

/** A tiny seeded generator (mulberry32), so a failing run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WALLETS = 20;
const TRANSFERS = 2000;
const RETRY_SHARE = 0.1;
const CONCURRENCY = 16;

for (const target of await databaseTargets()) {
  describe(`ledger under concurrency on ${target.name}`, () => {
    const database = useDatabase(target);

    it(`${TRANSFERS} concurrent random transfers among ${WALLETS} wallets, ${RETRY_SHARE * 100}% retried`, async () => {
      const db = database();
      const seed = Number(process.env.TEST_SEED ?? 20261122);
      const random = seededRandom(seed);
      const wallets = Array.from({ length: WALLETS }, (_, index) => `wal_c${index}`);
      for (const wallet of wallets) {
        await db.transaction((tx) =>
          transfer(tx, { id: `fund_${wallet}`, mode: 'test', kind: 'wallet_credit', legs: [
            { account: systemAccount('funding', 'KES'), amount: -5_000 },
            { account: walletAccount(wallet, 'KES'), amount: 5_000 },
          ] }),
        );
      }

      // Build the workload first, then replay a tenth of it with the same ids, interleaved.
      const planned = Array.from({ length: TRANSFERS }, (_, index) => {
        const from = Math.floor(random() * WALLETS);
        let to = Math.floor(random() * (WALLETS - 1));
        if (to >= from) to += 1;
        return { id: `p2p_${index}`, from: wallets[from]!, to: wallets[to]!, amount: 1 + Math.floor(random() * 2_000) };
      });
      const retries = planned.filter(() => random() < RETRY_SHARE);
      const work = [...planned, ...retries].sort(() => random() - 0.5);

      const outcomes = { created: 0, exists: 0, insufficient: 0 };
      const createdIds = new Set<string>();
      let next = 0;
      const worker = async () => {
        while (next < work.length) {
          const job = work[next++]!;
          try {
            const result = await db.transaction((tx) =>
              transfer(tx, { id: job.id, mode: 'test', kind: 'wallet_payment', legs: [
                { account: walletAccount(job.from, 'KES'), amount: -job.amount },
                { account: walletAccount(job.to, 'KES'), amount: job.amount },
              ] }),
            );
            if (result.status === 'created') {
              assert.ok(!createdIds.has(job.id), `transfer ${job.id} was created twice`);
              createdIds.add(job.id);
              outcomes.created++;
            } else outcomes.exists++;
          } catch (error) {
            if (error instanceof LedgerError && error.code === 'insufficient_funds') outcomes.insufficient++;
            else throw error;
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      assert.equal(outcomes.created + outcomes.exists + outcomes.insufficient, work.length);
      assert.ok(outcomes.created > TRANSFERS / 2, `only ${outcomes.created} transfers went through`);

      const report = await checkLedger(db);
      assert.deepEqual(report.violations, [], `seed ${seed}`);
      // Each id posted at most once, with exactly two postings.
      const duplicates = await db.query(`SELECT transfer_id FROM ledger_postings GROUP BY transfer_id HAVING count(*) <> 2`);
      assert.deepEqual(duplicates, []);
      assert.equal(report.transfers, WALLETS + createdIds.size);
      const [sums] = await db.query<{ total: number; wallets_total: number; negative: number }>(
        `SELECT sum(amount)::int8 AS total,
                (SELECT sum(balance) FROM ledger_accounts WHERE owner_type = 'wallet')::int8 AS wallets_total,
                (SELECT count(*) FROM ledger_accounts WHERE balance < 0 AND owner_type = 'wallet')::int8 AS negative
         FROM ledger_postings`,
      );
      assert.deepEqual(sums, { total: 0, wallets_total: WALLETS * 5_000, negative: 0 });
    });
  });
}
