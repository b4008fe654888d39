-- Bank transfers we could not match (issue 26; docs/wallet-money.md "A transfer we cannot match").
--
-- A provider confirmed money sent to an account number that is no wallet's here (or in a currency
-- the account does not take). The money sits at the provider: it never entered our books, so no
-- ledger transfer is written when it is recorded. The row is what an operator sees and resolves:
-- assigned to a wallet (credited then, through the matched path, once) or returned to the sender
-- at the provider (recorded only: the money never reached our ledger, so nothing moves in it).
CREATE TABLE IF NOT EXISTS unmatched_bank_transfers (
  id text PRIMARY KEY,
  -- live for a provider's webhook; test only for the sandbox.
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  provider text NOT NULL,
  -- The provider's transaction reference: one row per provider and reference, so a duplicate
  -- webhook, a requery or a retry finds it and changes nothing.
  provider_reference text NOT NULL,
  -- How the provider named the account: by number (Paystack, the sandbox) or by its own reference
  -- of it (Flutterwave's tx_ref); one of them at least.
  account_number text,
  account_reference text,
  -- unknown_account: no account of ours; currency_not_accepted: ours, but in another currency.
  reason text NOT NULL CHECK (reason IN ('unknown_account', 'currency_not_accepted')),
  -- Minor units of currency: what the sender's bank paid in.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  sender_name text,
  sender_bank text,
  narration text,
  paid_at timestamptz,
  received_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'assigned', 'returned')),
  -- assigned: the wallet credited and its wallet_bank_transfers row.
  wallet_id text REFERENCES wallets (id),
  bank_transfer_id text,
  -- returned: the provider's reference of the refund the operator made there.
  return_reference text,
  note text,
  -- Who resolved it: 'admin' (the admin token; it names no person, so an operator may add a note)
  -- or 'matched' (its webhook came again once the account was known, and the matched path credited it).
  resolved_by text CHECK (resolved_by IN ('admin', 'matched')),
  resolved_at timestamptz,
  UNIQUE (provider, provider_reference),
  CHECK (account_number IS NOT NULL OR account_reference IS NOT NULL),
  CHECK ((status = 'open') = (resolved_at IS NULL)),
  CHECK (status <> 'assigned' OR (wallet_id IS NOT NULL AND bank_transfer_id IS NOT NULL)),
  CHECK (status <> 'returned' OR return_reference IS NOT NULL)
);
-- The operator's list: by status, newest first.
CREATE INDEX IF NOT EXISTS unmatched_bank_transfers_status ON unmatched_bank_transfers (status, received_at DESC, id DESC);

-- A transfer assigned to a wallet was not paid into any account of hers: its credited row names no
-- virtual account (the unmatched row keeps the number it was sent to).
ALTER TABLE wallet_bank_transfers ALTER COLUMN virtual_account_id DROP NOT NULL;

-- Flutterwave names the account a transfer arrived in by the tx_ref it was made with (kept as
-- provider_customer): findAccountByReference looks it up by (provider, provider_customer) on every
-- such webhook, which without this index reads the whole table.
CREATE INDEX IF NOT EXISTS wallet_virtual_accounts_provider_customer ON wallet_virtual_accounts (provider, provider_customer);
