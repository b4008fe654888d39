-- Merchant payouts (settlement; docs/payouts.md): a merchant's money out of its wallet to its own
-- bank account or mobile money number, on a schedule or on demand.
--
-- The money moves as a payment of kind 'settlement' (modules/payments): debited from the merchant's
-- wallet in the transaction that records the payout, paid out by the payment scheduler through the
-- rails with its exactly-once keys, refunded by the payments module's refund or reversal transfer.
-- Like a withdrawal it has no merchant_id on the payments row: it sends no payment.* event and is
-- not among the merchant's POST /api/pay payments; merchant_payouts says whose it is, and the
-- payouts module sends payout.* events.

-- Where a merchant is paid out: a bank account or a mobile money number, one default per currency.
CREATE TABLE settlement_accounts (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  type text NOT NULL CHECK (type IN ('bank', 'mobile_money')),
  country text NOT NULL,
  currency text NOT NULL,
  bank_code text,
  account_number text,
  phone text,
  operator text,
  account_name text NOT NULL,
  -- Who vouched for the name: the provider's account resolve (paystack), the sandbox, or nobody
  -- (the merchant typed it: no resolve where the account is).
  name_source text NOT NULL CHECK (name_source IN ('provider', 'sandbox', 'merchant')),
  is_default boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  -- Removed accounts stay, so that a payout's statement still names where it went.
  removed_at timestamptz,
  CHECK ((type = 'bank') = (account_number IS NOT NULL)),
  CHECK ((type = 'mobile_money') = (phone IS NOT NULL))
);
CREATE INDEX settlement_accounts_merchant ON settlement_accounts (merchant_id, mode, created_at DESC);
CREATE UNIQUE INDEX settlement_accounts_one_default ON settlement_accounts (merchant_id, mode, currency) WHERE is_default AND removed_at IS NULL;

-- How a merchant is paid out automatically; no row: daily, no minimum, the wallet's currency.
CREATE TABLE merchant_payout_settings (
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  schedule text NOT NULL CHECK (schedule IN ('daily', 'weekly', 'manual')),
  minimum_amount bigint NOT NULL CHECK (minimum_amount >= 0),
  currency text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, mode)
);

CREATE TABLE merchant_payouts (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  -- The payment that moves the money; its status is the payout's. Checked at the commit: the payout
  -- is written first, so that a payment that ends at once (the sandbox) finds it.
  payment_id text NOT NULL UNIQUE REFERENCES payments (id) DEFERRABLE INITIALLY DEFERRED,
  settlement_account_id text NOT NULL REFERENCES settlement_accounts (id),
  trigger text NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
  -- A scheduled payout's day (merchant, mode, currency, UTC day): at most one per day, whatever
  -- runs the job and however often.
  schedule_key text UNIQUE,
  statement jsonb NOT NULL,
  -- The statement covers the wallet's movements in (covered_from, covered_to], database time.
  covered_from timestamptz,
  covered_to timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX merchant_payouts_merchant ON merchant_payouts (merchant_id, mode, created_at DESC);
CREATE INDEX merchant_payouts_period ON merchant_payouts (merchant_id, mode, currency, covered_to DESC);

ALTER TABLE payments DROP CONSTRAINT payments_kind_check;
ALTER TABLE payments ADD CONSTRAINT payments_kind_check CHECK (kind IN ('payout', 'link', 'payroll', 'withdrawal', 'settlement'));
ALTER TABLE payments DROP CONSTRAINT payments_merchant_or_withdrawal;
ALTER TABLE payments ADD CONSTRAINT payments_merchant_or_withdrawal CHECK (kind IN ('withdrawal', 'settlement') OR merchant_id IS NOT NULL);

-- The hold: a merchant's recent offline sales by capture time.
CREATE INDEX offline_payments_merchant_captured ON offline_payments (merchant_id, mode, currency, captured_at) WHERE status = 'accepted';
