-- The daily reconciliation reads Paystack's and Flutterwave's lists of the day's transactions
-- (modules/reconciliation, issue 24 item 6, issue 26 item 1). A successful bank transfer into a
-- wallet's virtual account that the list shows and no webhook brought is credited then, once, by
-- the webhook's own path (keyed on provider and reference): how many a day's runs credited that way
-- is kept with the day's record, summed over its runs (each transfer is credited once, so counted once).
ALTER TABLE rail_reconciliations ADD COLUMN IF NOT EXISTS bank_transfers_recovered integer NOT NULL DEFAULT 0 CHECK (bank_transfers_recovered >= 0);
