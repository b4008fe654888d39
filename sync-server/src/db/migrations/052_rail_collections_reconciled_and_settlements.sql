-- Collections in the daily reconciliation, and the provider settlements that bring a provider's
-- rail clearing back to zero (modules/reconciliation, issue 24 item 6).
--
-- A completed live collection (till mobile money, wallet and agent float top-ups) takes what the
-- customer paid out of the provider's clearing account rail_clearing:<provider>: the money is at
-- the provider until it pays it to Tapline's bank. A settlement record is an operator's statement
-- that the provider did: one balanced ledger transfer from the platform's bank account of the
-- currency (system account `bank`) to the provider's clearing, written with its row.

-- Each mismatch says whether it is about a payout or a collection (rows before this: payouts).
ALTER TABLE rail_reconciliation_mismatches ADD COLUMN IF NOT EXISTS direction text NOT NULL DEFAULT 'payout' CHECK (direction IN ('payout', 'collection'));

-- A day's collections through the provider: ours we show completed, and the provider's completed
-- ones, per currency (minor units: what the customer paid, amount + fee).
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS collection_totals jsonb NOT NULL DEFAULT '{}';
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS collection_provider_totals jsonb NOT NULL DEFAULT '{}';

CREATE TABLE IF NOT EXISTS rail_settlements (
  id text PRIMARY KEY,
  provider text NOT NULL,
  mode text NOT NULL DEFAULT 'live' CHECK (mode IN ('live')),
  -- Minor units of currency, what the provider paid Tapline.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The provider's settlement or batch reference: one record per provider and reference, so a
  -- repeat answers the first record and never posts twice.
  reference text NOT NULL,
  settled_on date NOT NULL,
  transfer_id text NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (provider, reference)
);
CREATE INDEX IF NOT EXISTS rail_settlements_provider ON rail_settlements (provider, settled_on DESC, created_at DESC);

-- Our live collections through one provider created in one day: what a reconciliation reads.
CREATE INDEX IF NOT EXISTS pos_collections_provider_day ON pos_collections (provider, created_at) WHERE mode = 'live';
