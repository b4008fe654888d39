-- Wallet top-ups by bank transfer (issue 26 item 1; docs/wallet-money.md "Top-ups by bank transfer").
--
-- A holder's wallet may have one virtual bank account per currency and mode: an account number at
-- a bank, made for her by a provider (Paystack's dedicated virtual accounts) or, for test wallets,
-- by the sandbox. Anyone may pay into it from any bank; the provider tells us (a signed webhook we
-- confirm with its own verify) and the wallet is credited.
CREATE TABLE wallet_virtual_accounts (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  currency text NOT NULL,
  provider text NOT NULL,
  -- The provider's own ids: its customer (Paystack CUS_...) and its account's id.
  provider_customer text,
  provider_account_id text,
  account_number text NOT NULL,
  account_name text NOT NULL,
  bank_name text NOT NULL,
  bank_slug text,
  created_at timestamptz NOT NULL,
  UNIQUE (wallet_id, currency, mode),
  UNIQUE (provider, account_number, mode)
);

-- Each bank transfer that arrived in a virtual account and was credited: one row per provider
-- transaction (UNIQUE (provider, provider_reference): a duplicate webhook, a requery, a retry find
-- it and change nothing), written in the transaction of its ledger transfer and the holder's
-- notification. `received` is what the sender's bank paid in; `fee` is kept from it; the wallet
-- gets `amount` = received - fee. `beyond_limit`: credited although it passed the wallet's tier
-- (a transfer the bank already made is never refused).
CREATE TABLE wallet_bank_transfers (
  id text PRIMARY KEY,
  virtual_account_id text NOT NULL REFERENCES wallet_virtual_accounts (id),
  wallet_id text NOT NULL REFERENCES wallets (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  provider text NOT NULL,
  provider_reference text NOT NULL,
  received bigint NOT NULL CHECK (received > 0),
  fee bigint NOT NULL CHECK (fee >= 0),
  amount bigint NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  sender_name text,
  sender_bank text,
  narration text,
  beyond_limit boolean NOT NULL DEFAULT false,
  transfer_id text NOT NULL,
  paid_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (provider, provider_reference)
);
CREATE INDEX wallet_bank_transfers_wallet ON wallet_bank_transfers (wallet_id, mode, created_at DESC);
