-- Who charged a POS session at the till (issue 25: every sale records who made it): the till
-- staff member signed in at the kiosk, as the kiosk sends it. NULL: a till without staff, or a
-- merchant key.
ALTER TABLE pos_sessions ADD COLUMN cashier_id text;
