-- Mobile money at the till (issue 25 item 3): a collection asks the customer's phone to pay (M-Pesa
-- STK push, MoMo request-to-pay, or the sandbox in test mode). The row is the durable job: the
-- scheduler polls the provider while next_poll_at is set, and the one ledger transfer that credits
-- the merchant is named by transfer_id. A till sale names a completed collection as its
-- mobile_money tender and claims it once (till_sale_tender_claims, migration 035).
CREATE TABLE pos_collections (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  merchant_wallet_id text NOT NULL REFERENCES wallets (id),
  terminal_id text REFERENCES terminals (id),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- E.164, as normalised at creation; answers show it masked.
  phone text NOT NULL,
  country text NOT NULL,
  description text,
  -- sandbox, or the rail provider asked (mpesa, momo, paystack, flutterwave).
  provider text NOT NULL,
  provider_reference text,
  -- The sandbox's outcome, chosen by the phone's magic last four digits.
  sandbox_outcome text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'failed', 'expired', 'cancelled')),
  failure_code text,
  failure_reason text,
  transfer_id text,
  cancelled_at timestamptz,
  -- When the scheduler next steps the sandbox or asks the provider; NULL once nothing is left to ask.
  next_poll_at timestamptz,
  poll_errors integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX pos_collections_due ON pos_collections (next_poll_at) WHERE next_poll_at IS NOT NULL;
CREATE INDEX pos_collections_merchant ON pos_collections (merchant_id, mode, created_at DESC);
