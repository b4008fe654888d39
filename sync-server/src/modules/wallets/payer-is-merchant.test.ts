import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets, useDatabase } from '../../testing/databases.ts';
import { payerIsMerchant } from './service.ts';

// "A merchant cannot pay itself" is asked in TypeScript by checkout, links and offline, and in SQL
// by pos_tap: both forms must give the same answer for every pair.
const PAIRS: [string, string][] = [
  ['wal_merchant', 'wal_merchant'],
  ['wal_customer', 'wal_merchant'],
  ['wal_merchant', 'wal_Merchant'],
  ['', ''],
];

for (const target of await databaseTargets()) {
  describe(`the payer is the merchant on ${target.name}`, () => {
    const db = useDatabase(target);

    it('payerIsMerchant() and the SQL payer_is_merchant() answer alike', async () => {
      const answers = await db().query<{ payer: string; merchant: string; same: boolean }>(
        'SELECT p.payer, p.merchant, payer_is_merchant(p.payer, p.merchant) AS same FROM unnest($1::text[], $2::text[]) AS p (payer, merchant)',
        [PAIRS.map(([payer]) => payer), PAIRS.map(([, merchant]) => merchant)],
      );
      assert.deepEqual(
        answers.map((row) => [row.payer, row.merchant, row.same]),
        PAIRS.map(([payer, merchant]) => [payer, merchant, payerIsMerchant(payer, merchant)]),
      );
      assert.deepEqual(answers.map((row) => row.same), [true, false, false, true]);
    });
  });
}
