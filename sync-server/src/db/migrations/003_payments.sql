-- Money moving out: payments and their durable state scheduler, FX rate tables and quotes, bill
-- payments, payment links; plus what the idempotency mechanism and the webhook dispatcher need.

-- Idempotency: the seed of the deterministic ids a request derives from its key
-- (http/idempotency.ts idempotentId). A fresh claim, or a claim of a key whose 24 hours ran out,
-- draws a new seed; re-running an abandoned claim of the same request keeps it, so a re-run after
-- a crash derives the same payment and transfer ids and cannot charge twice.
ALTER TABLE idempotency_keys ADD COLUMN seed text;

-- Payments ---------------------------------------------------------------------------------

CREATE TABLE payments (
  id text PRIMARY KEY,
  -- No foreign key to merchants on purpose: its check would take a KEY SHARE lock on the hot
  -- merchant row on every payment. merchant_id always comes from the authenticated key.
  merchant_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- 'payout': POST /api/pay, money leaving the merchant; 'link': a payment link paid by a wallet holder.
  kind text NOT NULL CHECK (kind IN ('payout', 'link')),
  status text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'reversed')),
  -- How the payment moves through its states: sandbox_default, sandbox_success, sandbox_failure,
  -- sandbox_pending, sandbox_reversal, on_us (live wallet rail), provider (live payout adapter), link.
  scenario text NOT NULL,
  rail text NOT NULL,
  from_country text,
  to_country text,
  -- Integer minor units of `currency` (amount, fee) and of `destination_currency`.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  fee bigint NOT NULL CHECK (fee >= 0),
  destination_amount bigint NOT NULL CHECK (destination_amount >= 0),
  destination_currency text NOT NULL,
  -- Exact decimal strings: the rate applied (with spread) and the mid-market rate.
  fx_rate text NOT NULL,
  mid_rate text NOT NULL,
  quote_id text,
  receiver jsonb NOT NULL,
  receiver_name text,
  sender_name text,
  note text,
  reference text,
  -- The wallet debited (the merchant's for payouts, the payer's for links) and the wallet
  -- credited where the money stays on-us (wallet rail, links).
  source_wallet_id text NOT NULL,
  recipient_wallet_id text,
  payment_link_id text,
  failure_reason text,
  provider text,
  provider_reference text,
  estimated_arrival timestamptz NOT NULL,
  -- [{status, at, note?}], oldest first.
  timeline jsonb NOT NULL,
  -- The durable scheduler: when the payment's next automatic step is due (NULL: none), claimed
  -- by workers with FOR UPDATE SKIP LOCKED, so a restart loses no progress.
  next_step_at timestamptz,
  step_attempts integer NOT NULL DEFAULT 0,
  last_step_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payments_due ON payments (next_step_at) WHERE next_step_at IS NOT NULL;
CREATE INDEX payments_merchant ON payments (merchant_id, mode, created_at);
CREATE INDEX payments_link ON payments (payment_link_id) WHERE payment_link_id IS NOT NULL;

-- FX ---------------------------------------------------------------------------------------

-- The last good rate table of each provider, so a restart with the source down still has one.
CREATE TABLE fx_rate_tables (
  source text PRIMARY KEY,
  -- The table's own date (the provider's `date`), reported as asOf.
  as_of text NOT NULL,
  fetched_at timestamptz NOT NULL,
  -- {"ngn": 1326.16, ...}: units of each currency per 1 USD, as published.
  usd_rates jsonb NOT NULL
);

CREATE TABLE fx_quotes (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  from_currency text NOT NULL,
  to_currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  mid_rate text NOT NULL,
  rate text NOT NULL,
  spread_pct text NOT NULL,
  fee bigint NOT NULL,
  receive bigint NOT NULL,
  rail text,
  as_of text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX fx_quotes_merchant ON fx_quotes (merchant_id, mode, created_at);

-- Bills ------------------------------------------------------------------------------------

CREATE TABLE bill_payments (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  bill_type text NOT NULL,
  biller_id text NOT NULL,
  account_ref text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  fee bigint NOT NULL CHECK (fee >= 0),
  status text NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
  plan_code text,
  token text,
  units text,
  customer_name text,
  reference text,
  failure_reason text,
  provider text,
  provider_reference text,
  wallet_id text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX bill_payments_merchant ON bill_payments (merchant_id, mode, created_at);

-- Payment links ----------------------------------------------------------------------------

CREATE TABLE payment_links (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- NULL: the payer chooses the amount (between min_amount and max_amount when set).
  amount bigint CHECK (amount IS NULL OR amount > 0),
  min_amount bigint,
  max_amount bigint,
  currency text NOT NULL,
  description text,
  reference text,
  single_use boolean NOT NULL,
  expires_at timestamptz,
  active boolean NOT NULL DEFAULT true,
  payment_count integer NOT NULL DEFAULT 0,
  amount_collected bigint NOT NULL DEFAULT 0,
  deactivated_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payment_links_merchant ON payment_links (merchant_id, mode, created_at);

-- Creates payments and posts their debits in ONE statement: the hot path of POST /api/pay. The
-- server groups concurrent payments that lock the same accounts (one merchant wallet, one
-- currency pair) into one call, so the hot merchant and system rows are locked once and committed
-- once for the whole group (group commit); run in autocommit, PostgreSQL releases those locks at
-- the end of the statement, never across a client round trip. Each payment stands alone: a
-- payment whose id exists already answers 'payment_exists' (nothing posted); a debit the ledger
-- refuses (insufficient_funds...) removes that payment's row and answers the rule; the others go
-- through. p_payments: a JSON array of payments rows; p_transfers: a JSON array of the
-- ledger_post_transfer arguments [id, mode, kind, owner_types, owner_ids, currencies, amounts,
-- fingerprint, metadata], one per payment.
CREATE FUNCTION payments_insert_with_debits(p_payments jsonb, p_transfers jsonb)
RETURNS TABLE (payment_id text, result text, account_id bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := jsonb_array_length(p_payments);
  v_payment jsonb;
  v_transfer jsonb;
  v_id text;
  v_result text;
  v_account bigint;
BEGIN
  IF v_count <> jsonb_array_length(p_transfers) THEN
    RAISE EXCEPTION 'payments_insert_with_debits: % payments but % transfers', v_count, jsonb_array_length(p_transfers);
  END IF;
  FOR i IN 0 .. v_count - 1 LOOP
    v_payment := p_payments -> i;
    v_transfer := p_transfers -> i;
    v_id := v_payment ->> 'id';
    INSERT INTO payments SELECT * FROM jsonb_populate_record(NULL::payments, v_payment) ON CONFLICT (id) DO NOTHING;
    IF NOT FOUND THEN
      RETURN QUERY SELECT v_id, 'payment_exists'::text, NULL::bigint;
      CONTINUE;
    END IF;
    SELECT t.result, t.account_id INTO v_result, v_account
    FROM ledger_post_transfer(
      v_transfer ->> 0, v_transfer ->> 1, v_transfer ->> 2,
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 3) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 4) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 5) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e::bigint FROM jsonb_array_elements_text(v_transfer -> 6) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      v_transfer ->> 7, v_transfer -> 8
    ) t;
    IF v_result NOT IN ('created', 'exists') THEN
      DELETE FROM payments WHERE id = v_id;
    END IF;
    RETURN QUERY SELECT v_id, v_result, v_account;
  END LOOP;
END
$$;
