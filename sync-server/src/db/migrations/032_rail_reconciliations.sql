-- The daily reconciliation of live payouts with each payment provider (modules/reconciliation):
-- one record per (provider, UTC day), replaced when that day is reconciled again, and the
-- mismatches it found. It reports only: no money moves because of it (an operator acts on a
-- mismatch). Amounts are integer minor units; totals are jsonb objects {currency: minor units}.
CREATE TABLE rail_reconciliations (
  id text PRIMARY KEY,
  provider text NOT NULL,
  day date NOT NULL,
  -- clean: every payout agrees; mismatched: at least one mismatch; failed: the provider could not be asked (error says why).
  status text NOT NULL CHECK (status IN ('clean', 'mismatched', 'failed')),
  -- list: the provider's record of the day (transactionsOn); by_key: each of our payouts asked about by its key.
  method text NOT NULL CHECK (method IN ('list', 'by_key')),
  matched integer NOT NULL CHECK (matched >= 0),
  mismatched integer NOT NULL CHECK (mismatched >= 0),
  -- Our payouts of the day that we show completed, and the provider's completed payouts of the day, per currency.
  our_totals jsonb NOT NULL,
  provider_totals jsonb NOT NULL,
  -- Our payouts of the day still pending or processing, per currency: zero everywhere means the
  -- rail clearing of that provider and day nets to zero.
  clearing_net jsonb NOT NULL,
  error text,
  -- How many times the day was reconciled (a re-run replaces the record and counts here).
  runs integer NOT NULL CHECK (runs >= 1),
  created_at timestamptz NOT NULL,
  UNIQUE (provider, day)
);
CREATE INDEX rail_reconciliations_day ON rail_reconciliations (day, provider);

CREATE TABLE rail_reconciliation_mismatches (
  reconciliation_id text NOT NULL REFERENCES rail_reconciliations (id) ON DELETE CASCADE,
  -- The mismatch's place in its reconciliation (its order in the answer).
  seq integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('provider_only', 'ours_only', 'amount_differs', 'status_differs')),
  -- Our payment, when the provider's reference maps to one of ours (null: unknown to us).
  payment_id text,
  provider_reference text,
  -- {status, amount, currency} as we show it / as the provider does (amount and currency null when its answer carries none).
  ours jsonb,
  theirs jsonb,
  PRIMARY KEY (reconciliation_id, seq)
);

-- Our live payouts through one provider created in one day: what a reconciliation reads.
CREATE INDEX payments_provider_day ON payments (provider, created_at) WHERE scenario = 'provider';
