-- Subscription billing (spec: "POST or related calls under /api/subscriptions"; CONTRACT.md events
-- subscription.charged, subscription.charge_failed, subscription.cancelled): a wallet holder
-- subscribed to a merchant's monthly plan (subscription_plans, migration 005), charged from their
-- wallet to the merchant's each period. Time columns come from the application's clock.

CREATE TABLE subscriptions (
  id text PRIMARY KEY,
  plan_id text NOT NULL REFERENCES subscription_plans (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The subscriber. No foreign keys to wallets (as in gift_cards): a check would take a KEY SHARE
  -- lock on the merchant's busy wallet row at every insert. The service writes ids it just read.
  wallet_id text NOT NULL,
  handle text NOT NULL,
  merchant_wallet_id text NOT NULL,
  -- Integer minor units of `currency` charged each period: the plan's price at creation.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'past_due', 'cancelled')),
  -- The number of the current period, from 1: a charge's ledger transfer id is derived from the
  -- subscription id and the period it pays, so no period is ever paid twice.
  period integer NOT NULL CHECK (period >= 1),
  current_period_start timestamptz NOT NULL,
  current_period_end timestamptz NOT NULL CHECK (current_period_end > current_period_start),
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  -- The row is the job: when the renewal job next looks at it (the period's end while active, the
  -- next retry while past_due); NULL once cancelled.
  next_charge_at timestamptz,
  -- Failed attempts at the renewal in progress; back to 0 when a period is paid.
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  cancelled_at timestamptz,
  cancellation_reason text CHECK (cancellation_reason IN ('cancellation_requested', 'payment_failed')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL)),
  CHECK ((status = 'cancelled') = (next_charge_at IS NULL))
);
-- One running subscription per plan and holder: a second is refused, even concurrently.
CREATE UNIQUE INDEX subscriptions_one_running ON subscriptions (plan_id, wallet_id) WHERE status <> 'cancelled';
CREATE INDEX subscriptions_merchant ON subscriptions (merchant_id, mode, created_at);
CREATE INDEX subscriptions_wallet ON subscriptions (wallet_id, created_at);
-- The renewal job looks only at running subscriptions that are due.
CREATE INDEX subscriptions_due ON subscriptions (next_charge_at) WHERE status <> 'cancelled';

-- Every attempt to charge a period, paid or failed. Immutable.
CREATE TABLE subscription_charges (
  id text PRIMARY KEY,
  subscription_id text NOT NULL REFERENCES subscriptions (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  period integer NOT NULL CHECK (period >= 1),
  period_start timestamptz NOT NULL,
  period_end timestamptz NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('paid', 'failed')),
  failure_reason text,
  attempt integer NOT NULL CHECK (attempt >= 1),
  transfer_id text,
  attempted_at timestamptz NOT NULL,
  CHECK ((status = 'paid') = (transfer_id IS NOT NULL)),
  CHECK ((status = 'failed') = (failure_reason IS NOT NULL)),
  UNIQUE (subscription_id, period, attempt)
);
-- A period is paid at most once, whatever runs twice.
CREATE UNIQUE INDEX subscription_charges_paid_once ON subscription_charges (subscription_id, period) WHERE status = 'paid';

CREATE FUNCTION subscription_charges_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'subscription charges are immutable';
END
$$;
CREATE TRIGGER subscription_charges_no_change BEFORE UPDATE OR DELETE ON subscription_charges
  FOR EACH ROW EXECUTE FUNCTION subscription_charges_immutable();
