import type { Queryable } from '../db/database.ts';

export interface LedgerViolation {
  rule: 'transfer_must_balance' | 'balance_must_equal_postings' | 'wallet_must_not_be_negative' | 'transfer_must_have_postings' | 'posting_must_have_account';
  subject: string;
  detail: string;
}

export interface LedgerCheckReport {
  transfers: number;
  postings: number;
  accounts: number;
  violations: LedgerViolation[];
}

/** Bound on violations reported per rule: enough to act on, never an unbounded dump. */
const VIOLATIONS_PER_RULE_MAX = 100;

/**
 * Proves the ledger's invariants on a live database: every transfer balances per currency,
 * every account balance equals the sum of its postings, no wallet is below zero.
 */
export async function checkLedger(db: Queryable): Promise<LedgerCheckReport> {
  const [counts] = await db.query<{ transfers: number; postings: number; accounts: number }>(
    `SELECT (SELECT count(*) FROM ledger_transfers)::int8 AS transfers,
            (SELECT count(*) FROM ledger_postings)::int8 AS postings,
            (SELECT count(*) FROM ledger_accounts)::int8 AS accounts`,
  );
  const violations: LedgerViolation[] = [];

  const unbalanced = await db.query<{ transfer_id: string; currency: string; total: number }>(
    `SELECT transfer_id, currency, sum(amount)::int8 AS total FROM ledger_postings
     GROUP BY transfer_id, currency HAVING sum(amount) <> 0 ORDER BY transfer_id LIMIT ${VIOLATIONS_PER_RULE_MAX}`,
  );
  for (const row of unbalanced) {
    violations.push({ rule: 'transfer_must_balance', subject: row.transfer_id, detail: `${row.currency} postings sum to ${row.total}` });
  }

  const empty = await db.query<{ id: string; legs: number }>(
    `SELECT t.id, count(p.leg)::int8 AS legs FROM ledger_transfers t LEFT JOIN ledger_postings p ON p.transfer_id = t.id
     GROUP BY t.id HAVING count(p.leg) < 2 ORDER BY t.id LIMIT ${VIOLATIONS_PER_RULE_MAX}`,
  );
  for (const row of empty) violations.push({ rule: 'transfer_must_have_postings', subject: row.id, detail: `${row.legs} postings` });

  const orphans = await db.query<{ id: string; account_id: number }>(
    `SELECT p.transfer_id || '#' || p.leg AS id, p.account_id FROM ledger_postings p LEFT JOIN ledger_accounts a ON a.id = p.account_id
     WHERE a.id IS NULL ORDER BY p.transfer_id, p.leg LIMIT ${VIOLATIONS_PER_RULE_MAX}`,
  );
  for (const row of orphans) violations.push({ rule: 'posting_must_have_account', subject: `posting ${row.id}`, detail: `account ${row.account_id} does not exist` });

  const drifted = await db.query<{ id: number; balance: number; postings: number }>(
    `SELECT a.id, a.balance, coalesce(p.total, 0)::int8 AS postings FROM ledger_accounts a
     LEFT JOIN (SELECT account_id, sum(amount) AS total FROM ledger_postings GROUP BY account_id) p ON p.account_id = a.id
     WHERE a.balance <> coalesce(p.total, 0) ORDER BY a.id LIMIT ${VIOLATIONS_PER_RULE_MAX}`,
  );
  for (const row of drifted) {
    violations.push({ rule: 'balance_must_equal_postings', subject: `account ${row.id}`, detail: `balance ${row.balance}, postings ${row.postings}` });
  }

  const negative = await db.query<{ id: number; owner_id: string; currency: string; balance: number }>(
    `SELECT id, owner_id, currency, balance FROM ledger_accounts WHERE NOT allow_negative AND balance < 0
     ORDER BY id LIMIT ${VIOLATIONS_PER_RULE_MAX}`,
  );
  for (const row of negative) {
    violations.push({ rule: 'wallet_must_not_be_negative', subject: `account ${row.id} (${row.owner_id})`, detail: `${row.currency} balance ${row.balance}` });
  }

  return { transfers: counts?.transfers ?? 0, postings: counts?.postings ?? 0, accounts: counts?.accounts ?? 0, violations };
}
