-- Agents' cash (issue 26 item 3, docs/agents.md): the commission the platform pays an agent on
-- each cash-in and cash-out, recorded with the operation; and one-time cash-out codes, which a
-- wallet holder makes with her PIN so she can take cash at an agent without typing her PIN on the
-- agent's device. A code is stored only as a slow hash (like a PIN); a wallet has at most one
-- active code (a new one replaces it), used once, within its expiry.
ALTER TABLE agent_cash_transactions ADD COLUMN commission bigint NOT NULL DEFAULT 0 CHECK (commission >= 0);
ALTER TABLE agent_cash_transactions ADD COLUMN cash_out_code_id text;

CREATE TABLE wallet_cash_out_codes (
  id text PRIMARY KEY,
  wallet_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  code_hash text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'cancelled')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  -- The agent's operation that used it (agent_cash_transactions.id).
  operation_id text
);
-- At most one active code per wallet: making a new one cancels the last in the same transaction.
CREATE UNIQUE INDEX wallet_cash_out_codes_one_active ON wallet_cash_out_codes (wallet_id) WHERE status = 'active';
CREATE INDEX wallet_cash_out_codes_wallet ON wallet_cash_out_codes (wallet_id, created_at DESC);
