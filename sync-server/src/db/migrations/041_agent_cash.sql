-- An agent's cash desk (issue 26: agents' cash): a customer hands the agent cash and the agent
-- credits her wallet from its own (cash-in), or the customer confirms with her PIN and the agent
-- pays her cash from the drawer against her wallet (cash-out). One row per operation, written in
-- the transaction of its ledger transfer; the id derives from the request's Idempotency-Key, so a
-- retry finds the row instead of moving money twice.
CREATE TABLE agent_cash_transactions (
  id text PRIMARY KEY,
  agent_id text NOT NULL REFERENCES agents (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  kind text NOT NULL CHECK (kind IN ('cash_in', 'cash_out')),
  -- The customer's wallet (no foreign key: a key check would lock a busy wallet row, as elsewhere).
  wallet_id text NOT NULL,
  handle text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  transfer_id text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX agent_cash_transactions_agent ON agent_cash_transactions (agent_id, created_at DESC);
