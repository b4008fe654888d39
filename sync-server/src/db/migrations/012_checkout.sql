-- The browser drop-in (/sdk/service.js): publishable keys and checkout sessions.
-- Time columns are written from the application's clock (context.now()).

-- A publishable key (pk_test_ / pk_live_ + 32 hex) may sit in a merchant's web page: it can only
-- open and read that merchant's checkout sessions in its mode. Like every credential it is kept
-- only as a SHA-256; key_hint (its last four characters) lets the merchant tell keys apart.
CREATE TABLE publishable_keys (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  key_hash text NOT NULL UNIQUE,
  key_hint text NOT NULL,
  -- NULL: any web origin may use the key; otherwise browsers must send one of these Origins.
  allowed_origins text[],
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX publishable_keys_merchant ON publishable_keys (merchant_id, mode, created_at);

-- A customer paying a merchant's website: open -> paid | failed | expired. Money flows into the
-- merchant's wallet by ONE ledger transfer whose id is derived from the session id, so a session
-- can never be paid twice.
CREATE TABLE checkout_sessions (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  merchant_wallet_id text NOT NULL REFERENCES wallets (id),
  publishable_key_id text REFERENCES publishable_keys (id),
  -- Integer minor units of currency.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  reference text,
  description text,
  -- The customer's country as detected at creation, and the rails offered there.
  country text NOT NULL,
  rails text[] NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'paid', 'failed', 'expired')),
  payment_method text CHECK (payment_method IN ('wallet', 'mobile_money', 'bank_transfer')),
  payer_handle text,
  payer_wallet_id text REFERENCES wallets (id),
  -- The phone or account number a sandbox collection was made from (never a PIN).
  payer_account text,
  transfer_id text,
  failure_reason text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX checkout_sessions_merchant ON checkout_sessions (merchant_id, mode, created_at DESC);
