import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Database } from '../db/database.ts';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { systemAccount, walletAccount } from './accounts.ts';
import { checkLedger } from './check.ts';
import { LedgerError, accountBalance, transfer } from './ledger.ts';

for (const target of await databaseTargets()) {
  describe(`ledger on ${target.name}`, () => {
    const database = useDatabase(target);
    let db: Database;
    before(() => {
      db = database();
    });

    const fund = (id: string, walletId: string, amount: number, currency = 'NGN') =>
      db.transaction((tx) =>
        transfer(tx, {
          id,
          mode: 'test',
          kind: 'wallet_credit',
          legs: [
            { account: systemAccount('funding', currency), amount: -amount },
            { account: walletAccount(walletId, currency), amount },
          ],
        }),
      );

    it('posts a balanced transfer and answers exists on a retry with the same id', async () => {
      assert.deepEqual(await fund('t1', 'wal_a', 1000), { status: 'created' });
      assert.deepEqual(await fund('t1', 'wal_a', 1000), { status: 'exists' });
      assert.equal(await accountBalance(db, walletAccount('wal_a', 'NGN'), 'test'), 1000);
      assert.equal(await accountBalance(db, systemAccount('funding', 'NGN'), 'test'), -1000);
    });

    it('builds one fingerprint in the database: kind, then the legs sorted in code-unit order, whatever order they come in', async () => {
      const fingerprint = async (types: string[], ids: string[], currencies: string[], amounts: number[]) =>
        (await db.query<{ f: string }>('SELECT ledger_fingerprint($1, $2::text[], $3::text[], $4::text[], $5::bigint[]) AS f', ['wallet_payment', types, ids, currencies, amounts]))[0]!.f;
      const two = 'wallet_payment|wallet/W_b/NGN:-5,wallet/w_a/NGN:5';
      assert.equal(await fingerprint(['wallet', 'wallet'], ['w_a', 'W_b'], ['NGN', 'NGN'], [5, -5]), two);
      assert.equal(await fingerprint(['wallet', 'wallet'], ['W_b', 'w_a'], ['NGN', 'NGN'], [-5, 5]), two);
      const three = 'wallet_payment|system/fees/NGN:1,wallet/W_b/NGN:-5,wallet/w_a/NGN:4';
      assert.equal(await fingerprint(['wallet', 'system', 'wallet'], ['w_a', 'fees', 'W_b'], ['NGN', 'NGN', 'NGN'], [4, 1, -5]), three);
      assert.equal(await fingerprint(['wallet', 'wallet', 'system'], ['W_b', 'w_a', 'fees'], ['NGN', 'NGN', 'NGN'], [-5, 4, 1]), three);
    });

    it('refuses the same id with different legs', async () => {
      await assert.rejects(fund('t1', 'wal_a', 999), (error: unknown) => error instanceof LedgerError && error.code === 'exists_with_different_legs');
      assert.equal(await accountBalance(db, walletAccount('wal_a', 'NGN'), 'test'), 1000);
    });

    it('refuses an overdraft without posting anything and leaves the transaction usable', async () => {
      const outcome = await db.transaction(async (tx) => {
        await assert.rejects(
          transfer(tx, {
            id: 't2',
            mode: 'test',
            kind: 'wallet_payment',
            legs: [
              { account: walletAccount('wal_a', 'NGN'), amount: -1001 },
              { account: walletAccount('wal_b', 'NGN'), amount: 1001 },
            ],
          }),
          (error: unknown) => error instanceof LedgerError && error.code === 'insufficient_funds',
        );
        return tx.query<{ one: number }>('SELECT 1 AS one');
      });
      assert.deepEqual(outcome, [{ one: 1 }]);
      assert.equal(await accountBalance(db, walletAccount('wal_a', 'NGN'), 'test'), 1000);
      assert.equal((await db.query('SELECT 1 FROM ledger_transfers WHERE id = $1', ['t2'])).length, 0);
    });

    it('refuses unbalanced transfers and zero legs', async () => {
      await assert.rejects(
        db.transaction((tx) =>
          transfer(tx, { id: 't3', mode: 'test', kind: 'wallet_payment', legs: [
            { account: walletAccount('wal_a', 'NGN'), amount: -10 },
            { account: walletAccount('wal_b', 'NGN'), amount: 9 },
          ] }),
        ),
        (error: unknown) => error instanceof LedgerError && error.code === 'transfer_must_balance',
      );
      await assert.rejects(
        db.transaction((tx) =>
          transfer(tx, { id: 't4', mode: 'test', kind: 'wallet_payment', legs: [
            { account: walletAccount('wal_a', 'NGN'), amount: -10 },
            { account: walletAccount('wal_b', 'USD'), amount: 10 },
          ] }),
        ),
        (error: unknown) => error instanceof LedgerError && error.code === 'transfer_must_balance',
      );
    });

    it('balances per currency in a multi-currency transfer through the FX account', async () => {
      await fund('t5', 'wal_c', 10_000, 'USD');
      await db.transaction((tx) =>
        transfer(tx, { id: 't6', mode: 'test', kind: 'payment_debit', legs: [
          { account: walletAccount('wal_c', 'USD'), amount: -1000 },
          { account: systemAccount('fx', 'USD'), amount: 1000 },
          { account: systemAccount('fx', 'NGN'), amount: -1_500_000 },
          { account: walletAccount('wal_c', 'NGN'), amount: 1_500_000 },
        ] }),
      );
      assert.equal(await accountBalance(db, walletAccount('wal_c', 'NGN'), 'test'), 1_500_000);
      assert.equal(await accountBalance(db, walletAccount('wal_c', 'USD'), 'test'), 9000);
    });

    it('keeps test and live accounts apart', async () => {
      assert.equal(await accountBalance(db, walletAccount('wal_a', 'NGN'), 'live'), 0);
      await assert.rejects(
        db.transaction((tx) =>
          transfer(tx, { id: 't7', mode: 'live', kind: 'wallet_payment', legs: [
            { account: walletAccount('wal_a', 'NGN'), amount: -1 },
            { account: walletAccount('wal_b', 'NGN'), amount: 1 },
          ] }),
        ),
        (error: unknown) => error instanceof LedgerError && error.code === 'insufficient_funds',
      );
    });

    it('forbids changing posted transfers and postings', async () => {
      await assert.rejects(db.query(`UPDATE ledger_postings SET amount = amount + 1`), /immutable/);
      await assert.rejects(db.query(`DELETE FROM ledger_transfers WHERE id = 't1'`), /immutable/);
    });

    it('passes the invariant check, and the check catches a tampered balance', async () => {
      const clean = await checkLedger(db);
      assert.deepEqual(clean.violations, []);
      assert.ok(clean.transfers >= 3);
      await db.query(`UPDATE ledger_accounts SET balance = balance + 5 WHERE owner_id = 'wal_b'`);
      const tampered = await checkLedger(db);
      assert.deepEqual(tampered.violations.map((v) => v.rule), ['balance_must_equal_postings']);
      await db.query(`UPDATE ledger_accounts SET balance = balance - 5 WHERE owner_id = 'wal_b'`);
    });
  });
}
