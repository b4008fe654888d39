// Migration 051 on both databases: what a live collection and a live bill of before it left on the
// shared rail_clearing account moves to its provider's own (rail_clearing:<provider>) by one
// balanced rail_clearing_split transfer per provider, currency and mode; the ledger check stays clean.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { checkLedger } from '../../ledger/check.ts';
import { transfer } from '../../ledger/ledger.ts';
import { databaseTargets } from '../../testing/databases.ts';
import { systemBalance } from '../../testing/ledger.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';

for (const target of await databaseTargets()) {
  describe(`migration 051 (collections' and bills' clearing per provider) on ${target.name}`, () => {
    const server = useTestServer(target);

    it('moves a live collection\'s and an open live bill\'s postings from the shared clearing to their providers\'', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 100, currency: 'UGX', mode: 'live' } });
      assert.equal(credited.status, 200, JSON.stringify(credited.body));
      const [wallet] = await s.db.query<{ id: string }>(`SELECT id FROM wallets WHERE merchant_id = $1 AND mode = 'live'`, [merchant.id]);
      const walletId = wallet!.id;
      const now = new Date();
      // A completed MoMo collection of 5,000 UGX and a pending Flutterwave bill of 30 UGX, both posted the old way.
      const collection = `col_legacy${randomBytes(8).toString('hex')}`;
      const bill = `bil_legacy${randomBytes(8).toString('hex')}`;
      await s.db.query(
        `INSERT INTO pos_collections (id, merchant_id, mode, merchant_wallet_id, amount, currency, phone, country, provider, status, created_at, expires_at, updated_at)
         VALUES ($1, $2, 'live', $3, 5000, 'UGX', '+256773123410', 'UG', 'momo', 'completed', $4, $4, $4)`,
        [collection, merchant.id, walletId, now],
      );
      await s.db.query(
        `INSERT INTO bill_payments (id, merchant_id, mode, bill_type, biller_id, account_ref, amount, currency, fee, status, provider, wallet_id, created_at, updated_at)
         VALUES ($1, $2, 'live', 'airtime', 'mtn-ug-airtime', '+256773123410', 30, 'UGX', 0, 'pending', 'flutterwave', $3, $4, $4)`,
        [bill, merchant.id, walletId, now],
      );
      await s.db.transaction(async (tx) => {
        await transfer(tx, { id: `collection:${collection}`, mode: 'live', kind: 'pos_collection', legs: [{ account: systemAccount('rail_clearing', 'UGX'), amount: -5000 }, { account: walletAccount(walletId, 'UGX'), amount: 5000 }] });
        await transfer(tx, { id: `${bill}:debit`, mode: 'live', kind: 'bill_debit', legs: [{ account: walletAccount(walletId, 'UGX'), amount: -30 }, { account: systemAccount('rail_clearing', 'UGX'), amount: 30 }] });
      });
      const before = {
        shared: await systemBalance(s, 'rail_clearing', 'UGX', 'live'),
        momo: await systemBalance(s, 'rail_clearing:momo', 'UGX', 'live'),
        flutterwave: await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live'),
      };

      await s.db.exec(readFileSync(new URL('../../db/migrations/051_cash_pickups.sql', import.meta.url), 'utf8'));

      assert.deepEqual({
        shared: await systemBalance(s, 'rail_clearing', 'UGX', 'live'),
        momo: await systemBalance(s, 'rail_clearing:momo', 'UGX', 'live'),
        flutterwave: await systemBalance(s, 'rail_clearing:flutterwave', 'UGX', 'live'),
      }, { shared: before.shared + 5000 - 30, momo: before.momo - 5000, flutterwave: before.flutterwave + 30 });
      const splits = await s.db.query<{ id: string; kind: string; legs: number }>(
        `SELECT t.id, t.kind, (SELECT count(*) FROM ledger_postings p WHERE p.transfer_id = t.id)::int8 AS legs FROM ledger_transfers t WHERE t.id LIKE 'rail_clearing_split_051:%' ORDER BY t.id`,
      );
      assert.deepEqual(splits.map((row) => [row.id, row.kind, Number(row.legs)]), [
        ['rail_clearing_split_051:flutterwave:UGX:live', 'rail_clearing_split', 2],
        ['rail_clearing_split_051:momo:UGX:live', 'rail_clearing_split', 2],
      ]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
