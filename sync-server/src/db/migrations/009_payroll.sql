-- Payroll disbursement (modules/payroll): a run pays many items from the merchant's wallet in
-- one currency. An item goes to a Tapline wallet (@handle, credited at once by the run's ledger
-- transfers) or out through a rail as a payment of kind 'payroll' (modules/payments), whose
-- outcome settles the item in the payment's own transaction.
--
-- Every time column is written from the application's clock (context.now()).

CREATE TABLE payroll_runs (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The wallet the run is paid from: the merchant's wallet in the run's mode.
  merchant_wallet_id text NOT NULL,
  currency text NOT NULL,
  description text,
  reference text,
  status text NOT NULL CHECK (status IN ('draft', 'processing', 'completed', 'partially_failed', 'failed', 'cancelled')),
  submitted_at timestamptz,
  -- When the run reached completed, partially_failed, failed or cancelled.
  ended_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payroll_runs_merchant ON payroll_runs (merchant_id, mode, created_at);

CREATE TABLE payroll_items (
  id text PRIMARY KEY,
  run_id text NOT NULL REFERENCES payroll_runs (id),
  -- Insertion order: items are listed as they were added.
  seq bigserial NOT NULL,
  -- Integer minor units of the run's currency.
  amount bigint NOT NULL CHECK (amount > 0),
  -- On-us: the recipient wallet, resolved when the item is added.
  handle text,
  recipient_wallet_id text,
  -- Through a rail: the payment's rail, normalised receiver and recipient country.
  rail text,
  receiver jsonb,
  to_country text,
  receiver_name text,
  reference text,
  -- The merchant's own id for the line (an employee number): unique within a run.
  external_ref text,
  status text NOT NULL CHECK (status IN ('pending', 'paid', 'failed')),
  failure_reason text,
  -- The ledger transfer that paid an on-us item; the payment of a rail item.
  transfer_id text,
  payment_id text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((handle IS NOT NULL AND recipient_wallet_id IS NOT NULL AND rail IS NULL)
      OR (handle IS NULL AND rail IS NOT NULL AND receiver IS NOT NULL AND to_country IS NOT NULL))
);
CREATE INDEX payroll_items_run ON payroll_items (run_id, seq);
CREATE UNIQUE INDEX payroll_items_external_ref ON payroll_items (run_id, external_ref) WHERE external_ref IS NOT NULL;
CREATE UNIQUE INDEX payroll_items_payment ON payroll_items (payment_id) WHERE payment_id IS NOT NULL;

-- Rail items are payments of their own kind, so the payments module tells payroll their outcome.
ALTER TABLE payments DROP CONSTRAINT payments_kind_check;
ALTER TABLE payments ADD CONSTRAINT payments_kind_check CHECK (kind IN ('payout', 'link', 'payroll'));
