import type { TestServer } from './server.ts';

/** A wallet's balance in minor units, straight from the ledger: the sum of its rows (a merchant's inflow shards included). */
export async function balanceMinor(s: Pick<TestServer, 'db'>, handle: string, currency: string, mode = 'test'): Promise<number> {
  const rows = await s.db.query<{ balance: number | null }>(
    `SELECT sum(a.balance)::int8 AS balance FROM ledger_accounts a JOIN wallets w ON w.id = a.owner_id
     WHERE a.owner_type = 'wallet' AND w.handle = $1 AND w.mode = $2 AND a.currency = $3 AND a.mode = $2`,
    [handle.replace(/^@/, ''), mode, currency],
  );
  return rows[0]?.balance ?? 0;
}

/** A system account's balance in minor units. */
export async function systemBalance(s: Pick<TestServer, 'db'>, code: string, currency: string, mode = 'test'): Promise<number> {
  const rows = await s.db.query<{ balance: number | null }>(
    'SELECT sum(balance)::int8 AS balance FROM ledger_accounts WHERE owner_type = $1 AND owner_id = $2 AND currency = $3 AND mode = $4',
    ['system', code, currency, mode],
  );
  return rows[0]?.balance ?? 0;
}
