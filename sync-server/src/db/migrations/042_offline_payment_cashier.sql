-- Who took an offline payment at the till (issue 25: every sale records who made it): the till
-- staff member signed in at the kiosk, as the kiosk sends it (cashierId). NULL: a till without
-- staff, a kiosk from before, or an id that could not be used (the payment is never declined for it).
ALTER TABLE offline_payments ADD COLUMN cashier_id text;
