import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findWallet } from '../modules/wallets/store.ts';
import { databaseTargets } from '../testing/databases.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../testing/server.ts';
import { walletAccount } from './accounts.ts';
import { checkLedger } from './check.ts';
import { LedgerError, accountBalance, transfer } from './ledger.ts';

/** The rows behind one wallet's account in a currency: its main row (shard 0) and its inflow shards. */
async function rowsOf(server: TestServer, walletId: string, currency = 'NGN') {
  return server.db.query<{ shard: number; balance: number }>(
    `SELECT shard, balance FROM ledger_accounts WHERE owner_type = 'wallet' AND owner_id = $1 AND currency = $2 AND mode = 'test' ORDER BY shard`,
    [walletId, currency],
  );
}

const pay = (server: TestServer, id: string, fromWalletId: string, toWalletId: string, amount: number) =>
  server.db.transaction((tx) =>
    transfer(tx, {
      id,
      mode: 'test',
      kind: 'wallet_payment',
      legs: [
        { account: walletAccount(fromWalletId, 'NGN'), amount: -amount },
        { account: walletAccount(toWalletId, 'NGN'), amount },
      ],
    }),
  );

for (const target of await databaseTargets()) {
  describe(`merchant inflow shards on ${target.name}`, () => {
    const started = useTestServer(target, { rateLimitScale: 10 });

    async function setUp(customers: number) {
      const server = started();
      const merchant = await server.createMerchant();
      const merchantWallet = (await findWallet(server.db, merchant.handle.slice(1), 'test'))!;
      const payers: string[] = [];
      for (let index = 0; index < customers; index++) {
        const handle = uniqueHandle('payer');
        await server.createWallet({ handle, fund: 1000 });
        payers.push((await findWallet(server.db, handle, 'test'))!.id);
      }
      const float = await accountBalance(server.db, walletAccount(merchantWallet.id, 'NGN'), 'test');
      return { server, merchantWalletId: merchantWallet.id, payers, float };
    }

    it('spreads concurrent credits to one merchant over several rows whose sum is its balance', async () => {
      const { server, merchantWalletId, payers, float } = await setUp(24);
      const results = await Promise.all(payers.map((payer, index) => pay(server, `shard_credit_${merchantWalletId}_${index}`, payer, merchantWalletId, 250)));
      assert.ok(results.length === 24 && results.every((result) => result.status === 'created'));
      const rows = await rowsOf(server, merchantWalletId);
      const shards = rows.filter((row) => row.shard > 0);
      // One shard per database connection (ledger_inflow_shard): PGlite has one connection.
      if (target.name === 'pglite') assert.equal(shards.length, 1);
      else assert.ok(shards.length >= 2 && shards.length <= 16, `credits landed on ${shards.length} shards`);
      // Every credit went to a shard, the sandbox float given at provisioning included.
      assert.equal(rows.find((row) => row.shard === 0)?.balance ?? 0, 0);
      assert.equal(shards.reduce((sum, row) => sum + row.balance, 0), float + 24 * 250);
      assert.equal(await accountBalance(server.db, walletAccount(merchantWalletId, 'NGN'), 'test'), float + 24 * 250);
      const report = await checkLedger(server.db);
      assert.deepEqual(report.violations, []);
    });

    it('sweeps the shards into the main row when the merchant spends, inside the same balanced transfer', async () => {
      const { server, merchantWalletId, payers, float } = await setUp(12);
      for (const [index, payer] of payers.entries()) await pay(server, `sweep_credit_${merchantWalletId}_${index}`, payer, merchantWalletId, 500);
      const total = float + 12 * 500;
      // More than the main row holds on its own: only the swept shards make it fit.
      const spend = float + 5000;
      const spendId = `sweep_spend_${merchantWalletId}`;
      assert.deepEqual(await pay(server, spendId, merchantWalletId, payers[0]!, spend), { status: 'created' });
      const rows = await rowsOf(server, merchantWalletId);
      assert.equal(rows.find((row) => row.shard === 0)?.balance, total - spend);
      assert.ok(rows.filter((row) => row.shard > 0).every((row) => row.balance === 0), 'every shard swept');
      assert.equal(await accountBalance(server.db, walletAccount(merchantWalletId, 'NGN'), 'test'), total - spend);
      const [posted] = await server.db.query<{ legs: number; sum: number }>(
        'SELECT count(*)::int8 AS legs, sum(amount)::int8 AS sum FROM ledger_postings WHERE transfer_id = $1',
        [spendId],
      );
      assert.ok(posted!.legs > 2, 'sweep legs were posted with the debit');
      assert.equal(posted!.sum, 0);
      // A retry of the same debit is recognised (the caller's legs and fingerprint are unchanged).
      assert.deepEqual(await pay(server, spendId, merchantWalletId, payers[0]!, spend), { status: 'exists' });
      assert.deepEqual((await checkLedger(server.db)).violations, []);
    });

    it('refuses a debit beyond the sum of all rows and changes nothing', async () => {
      const { server, merchantWalletId, payers, float } = await setUp(4);
      for (const [index, payer] of payers.entries()) await pay(server, `refuse_credit_${merchantWalletId}_${index}`, payer, merchantWalletId, 100);
      const before = await rowsOf(server, merchantWalletId);
      await assert.rejects(
        pay(server, `refuse_spend_${merchantWalletId}`, merchantWalletId, payers[0]!, float + 401),
        (error: unknown) => error instanceof LedgerError && error.code === 'insufficient_funds',
      );
      assert.deepEqual(await rowsOf(server, merchantWalletId), before);
      assert.deepEqual(await pay(server, `refuse_exact_${merchantWalletId}`, merchantWalletId, payers[0]!, float + 400), { status: 'created' });
      assert.equal(await accountBalance(server.db, walletAccount(merchantWalletId, 'NGN'), 'test'), 0);
    });

    it('takes concurrent credits and debits of one merchant without deadlock, overdraft or lost money', async () => {
      const { server, merchantWalletId, payers, float } = await setUp(16);
      const credits = payers.map((payer, index) => pay(server, `mixed_credit_${merchantWalletId}_${index}`, payer, merchantWalletId, 300));
      // Twenty debits of float / 10 each: at most ten fit the float, more as credits arrive.
      const debit = Math.floor(float / 10);
      const debits = Array.from({ length: 20 }, (_, index) =>
        pay(server, `mixed_debit_${merchantWalletId}_${index}`, merchantWalletId, payers[index % payers.length]!, debit).then(
          () => true,
          (error: unknown) => {
            if (error instanceof LedgerError && error.code === 'insufficient_funds') return false;
            throw error;
          },
        ),
      );
      await Promise.all(credits);
      const paid = (await Promise.all(debits)).filter(Boolean).length;
      assert.ok(paid >= 10, `${paid} debits went through`);
      const rows = await rowsOf(server, merchantWalletId);
      assert.ok(rows.every((row) => row.balance >= 0));
      assert.equal(await accountBalance(server.db, walletAccount(merchantWalletId, 'NGN'), 'test'), float + 16 * 300 - paid * debit);
      assert.deepEqual((await checkLedger(server.db)).violations, []);
    });
  });
}
