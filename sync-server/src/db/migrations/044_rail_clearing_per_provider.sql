-- Rail clearing per payment provider: a live payout's money in flight now sits in the clearing
-- account of its provider and currency (system account `rail_clearing:<provider>`, e.g.
-- `rail_clearing:paystack`), so each provider's clearing can be read on its own and shown to net
-- to zero once a day is reconciled. Money with no provider (sandbox payouts, bills, mobile-money
-- collections) stays in the shared `rail_clearing` account of its currency.
--
-- What live payouts already hold in the shared account (the postings of their debit, settlement
-- and refund transfers, `<payment id>:debit|settle|refund`) is moved to their provider's account
-- by one balanced transfer per (provider, currency, mode), kind `rail_clearing_split`, written
-- here row by row (a migration calls no database function: those are applied after the
-- migrations). A database without such payouts moves nothing.
CREATE TEMP TABLE rail_clearing_moves AS
  SELECT pay.provider, p.currency, a.mode, sum(p.amount)::int8 AS amount
  FROM payments pay
  JOIN ledger_postings p ON p.transfer_id IN (pay.id || ':debit', pay.id || ':settle', pay.id || ':refund')
  JOIN ledger_accounts a ON a.id = p.account_id AND a.owner_type = 'system' AND a.owner_id = 'rail_clearing'
  WHERE pay.scenario = 'provider' AND pay.provider IS NOT NULL
  GROUP BY pay.provider, p.currency, a.mode
  HAVING sum(p.amount) <> 0;

INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative, lock_rank)
  SELECT 'system', 'rail_clearing:' || m.provider, m.currency, m.mode, true, 2 FROM rail_clearing_moves m
  ON CONFLICT DO NOTHING;

-- The fingerprint as ledger_fingerprint builds it: kind, '|', the legs sorted in code-unit order
-- ('/' sorts before ':', so the shared account's leg comes first).
INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
  SELECT 'rail_clearing_split:' || m.provider || ':' || m.currency || ':' || m.mode, m.mode, 'rail_clearing_split',
    'rail_clearing_split|system/rail_clearing/' || m.currency || ':' || (-m.amount)::text
      || ',system/rail_clearing:' || m.provider || '/' || m.currency || ':' || m.amount::text,
    jsonb_build_object('provider', m.provider, 'migration', '044_rail_clearing_per_provider')
  FROM rail_clearing_moves m;

INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
  SELECT 'rail_clearing_split:' || m.provider || ':' || m.currency || ':' || m.mode, 1, a.id, m.currency, -m.amount
  FROM rail_clearing_moves m
  JOIN ledger_accounts a ON a.owner_type = 'system' AND a.owner_id = 'rail_clearing' AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0
  UNION ALL
  SELECT 'rail_clearing_split:' || m.provider || ':' || m.currency || ':' || m.mode, 2, a.id, m.currency, m.amount
  FROM rail_clearing_moves m
  JOIN ledger_accounts a ON a.owner_type = 'system' AND a.owner_id = 'rail_clearing:' || m.provider AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0;

UPDATE ledger_accounts a SET balance = a.balance - moved.amount
  FROM (SELECT currency, mode, sum(amount)::int8 AS amount FROM rail_clearing_moves GROUP BY currency, mode) moved
  WHERE a.owner_type = 'system' AND a.owner_id = 'rail_clearing' AND a.currency = moved.currency AND a.mode = moved.mode AND a.shard = 0;

UPDATE ledger_accounts a SET balance = a.balance + m.amount
  FROM rail_clearing_moves m
  WHERE a.owner_type = 'system' AND a.owner_id = 'rail_clearing:' || m.provider AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0;

DROP TABLE rail_clearing_moves;

-- A reconciliation also records the ledger's side of its provider's clearing: the postings of the
-- day's payouts on the provider's clearing accounts (zero per currency once every payout of the day
-- is final), and the provider's clearing balance when it was reconciled (payouts of every day still
-- in flight). Minor units per currency, as the other totals.
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS ledger_clearing_net jsonb NOT NULL DEFAULT '{}';
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS clearing_balance jsonb NOT NULL DEFAULT '{}';
