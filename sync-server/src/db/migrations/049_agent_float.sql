-- Agents fund and settle their float through the rails (issue 26 item 3; docs/agents.md, "Funding
-- and settling the float"). An agent's float is its wallet.
--
-- A float top-up is a mobile-money collection like a holder's wallet top-up (migration 043), of its
-- own purpose: merchant_wallet_id names the agent's wallet, which it credits once the provider confirms.
ALTER TABLE pos_collections DROP CONSTRAINT pos_collections_purpose_check;
ALTER TABLE pos_collections ADD CONSTRAINT pos_collections_purpose_check CHECK (purpose IN ('till_sale', 'wallet_top_up', 'agent_float_top_up'));
CREATE INDEX pos_collections_agent_float_top_ups ON pos_collections (merchant_wallet_id, mode, created_at DESC) WHERE purpose = 'agent_float_top_up';

-- A float settlement is a payment of its own kind: a payout from the agent's wallet
-- (source_wallet_id) to its registered settlement account, through the payment scheduler like a
-- withdrawal; no merchant, no payment.* event.
ALTER TABLE payments DROP CONSTRAINT payments_kind_check;
ALTER TABLE payments ADD CONSTRAINT payments_kind_check CHECK (kind IN ('payout', 'link', 'payroll', 'withdrawal', 'settlement', 'agent_settlement'));
ALTER TABLE payments DROP CONSTRAINT payments_merchant_or_withdrawal;
ALTER TABLE payments ADD CONSTRAINT payments_merchant_or_withdrawal CHECK (kind IN ('withdrawal', 'settlement', 'agent_settlement') OR merchant_id IS NOT NULL);
CREATE INDEX payments_agent_settlements ON payments (source_wallet_id, created_at DESC) WHERE kind = 'agent_settlement';

-- Where an agent's float is settled: one bank account or mobile money number per agent, registered
-- by an administrator (the platform vouches for it, so a leaked agent secret cannot send the float
-- elsewhere). Checked like a merchant's settlement account (migration 045): the holder's name
-- resolved by the provider where one can. A settlement's payment keeps the destination it paid.
CREATE TABLE agent_settlement_accounts (
  agent_id text PRIMARY KEY REFERENCES agents (id),
  type text NOT NULL CHECK (type IN ('bank', 'mobile_money')),
  country text NOT NULL,
  currency text NOT NULL,
  bank_code text,
  account_number text,
  phone text,
  operator text,
  account_name text NOT NULL,
  name_source text NOT NULL CHECK (name_source IN ('provider', 'sandbox', 'merchant')),
  registered_at timestamptz NOT NULL,
  CHECK ((type = 'bank') = (account_number IS NOT NULL)),
  CHECK ((type = 'mobile_money') = (phone IS NOT NULL))
);
