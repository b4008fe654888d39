-- Live bill payments in the daily reconciliation (modules/reconciliation): a bill a provider paid
-- that we show failed, or one we show paid that it never paid, is a mismatch with direction 'bill'.
--
-- Each mismatch says whether it is about a payout, a collection or a bill (rows before this keep theirs).
ALTER TABLE rail_reconciliation_mismatches DROP CONSTRAINT IF EXISTS rail_reconciliation_mismatches_direction_check;
ALTER TABLE rail_reconciliation_mismatches ADD CONSTRAINT rail_reconciliation_mismatches_direction_check CHECK (direction IN ('payout', 'collection', 'bill'));

-- A day's live bills through the provider, kept apart from payouts and collections: ours we show
-- completed, and the ones the provider confirms paid, per currency (minor units: what the biller
-- is paid, Tapline's fee excluded).
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS bill_totals jsonb NOT NULL DEFAULT '{}';
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS bill_provider_totals jsonb NOT NULL DEFAULT '{}';

-- Our live bills through one provider created in one day: what a reconciliation reads.
CREATE INDEX IF NOT EXISTS bill_payments_provider_day ON bill_payments (provider, created_at) WHERE mode = 'live';
