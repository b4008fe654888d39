-- Cash pickup on Tapline's own agent network (issue 24; docs/payouts.md "Cash pickup"): a live
-- payment on the cash_pickup rail is held in the rail clearing account of the provider `agents`
-- (rail_clearing:agents) until the recipient collects it at an agent of her country with a
-- one-time code, or until it expires (the money goes back to the sender). One row per payment,
-- written when the payment is submitted to the network. The code is stored only as a slow hash,
-- like a PIN; wrong codes count per pickup and lock it for a while after too many.
CREATE TABLE IF NOT EXISTS cash_pickups (
  id text PRIMARY KEY,
  payment_id text NOT NULL UNIQUE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- What the agent pays out: the payment's destination amount and currency (minor units).
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The recipient's country and phone (E.164): only an agent of that country pays, to whoever
  -- gives both the phone and the code.
  country text NOT NULL,
  phone text NOT NULL,
  -- Null until the sender asks for a code; a new code replaces the last.
  code_hash text,
  code_issued_at timestamptz,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paid', 'expired')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  -- Who paid it, and the platform's commission to it (minor units).
  agent_id text,
  commission bigint NOT NULL DEFAULT 0 CHECK (commission >= 0)
);
-- The agent's look-up: the recipient's active pickups by phone.
CREATE INDEX IF NOT EXISTS cash_pickups_active_phone ON cash_pickups (phone, mode) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS cash_pickups_agent ON cash_pickups (agent_id, ended_at DESC) WHERE agent_id IS NOT NULL;

-- Collections (a till's mobile money, wallet top-ups: pos_collections) and live bills now post
-- through their provider's own rail clearing account (rail_clearing:<provider>), as payouts have
-- since migration 044. What live ones already left on the shared `rail_clearing` account (the
-- postings of a collection's `collection:<id>` transfer, a bill's `<id>:debit|settle|refund`) is
-- moved to their provider's account by one balanced `rail_clearing_split` transfer per (provider,
-- currency, mode), written row by row as 044 does (a migration calls no database function). A
-- database without such collections or bills moves nothing.
CREATE TEMP TABLE rail_clearing_moves_051 AS
  SELECT src.provider, p.currency, a.mode, sum(p.amount)::int8 AS amount
  FROM (
    SELECT c.provider, 'collection:' || c.id AS transfer_id FROM pos_collections c WHERE c.mode = 'live' AND c.provider <> 'sandbox'
    UNION ALL
    SELECT b.provider, b.id || step.suffix FROM bill_payments b CROSS JOIN (VALUES (':debit'), (':settle'), (':refund')) AS step (suffix)
    WHERE b.mode = 'live' AND b.provider IS NOT NULL AND b.provider <> 'sandbox'
  ) src
  JOIN ledger_postings p ON p.transfer_id = src.transfer_id
  JOIN ledger_accounts a ON a.id = p.account_id AND a.owner_type = 'system' AND a.owner_id = 'rail_clearing'
  GROUP BY src.provider, p.currency, a.mode
  HAVING sum(p.amount) <> 0;

INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative, lock_rank)
  SELECT 'system', 'rail_clearing:' || m.provider, m.currency, m.mode, true, 2 FROM rail_clearing_moves_051 m
  ON CONFLICT DO NOTHING;

INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
  SELECT 'rail_clearing_split_051:' || m.provider || ':' || m.currency || ':' || m.mode, m.mode, 'rail_clearing_split',
    'rail_clearing_split|system/rail_clearing/' || m.currency || ':' || (-m.amount)::text
      || ',system/rail_clearing:' || m.provider || '/' || m.currency || ':' || m.amount::text,
    jsonb_build_object('provider', m.provider, 'migration', '051_cash_pickups')
  FROM rail_clearing_moves_051 m;

INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
  SELECT 'rail_clearing_split_051:' || m.provider || ':' || m.currency || ':' || m.mode, 1, a.id, m.currency, -m.amount
  FROM rail_clearing_moves_051 m
  JOIN ledger_accounts a ON a.owner_type = 'system' AND a.owner_id = 'rail_clearing' AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0
  UNION ALL
  SELECT 'rail_clearing_split_051:' || m.provider || ':' || m.currency || ':' || m.mode, 2, a.id, m.currency, m.amount
  FROM rail_clearing_moves_051 m
  JOIN ledger_accounts a ON a.owner_type = 'system' AND a.owner_id = 'rail_clearing:' || m.provider AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0;

UPDATE ledger_accounts a SET balance = a.balance - moved.amount
  FROM (SELECT currency, mode, sum(amount)::int8 AS amount FROM rail_clearing_moves_051 GROUP BY currency, mode) moved
  WHERE a.owner_type = 'system' AND a.owner_id = 'rail_clearing' AND a.currency = moved.currency AND a.mode = moved.mode AND a.shard = 0;

UPDATE ledger_accounts a SET balance = a.balance + m.amount
  FROM rail_clearing_moves_051 m
  WHERE a.owner_type = 'system' AND a.owner_id = 'rail_clearing:' || m.provider AND a.currency = m.currency AND a.mode = m.mode AND a.shard = 0;

DROP TABLE rail_clearing_moves_051;
