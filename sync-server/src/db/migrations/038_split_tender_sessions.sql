-- Split tender at the till (issue 25): a POS session opened for part of a till sale names that
-- sale (the kiosk's id for it). Only such a session can be returned to its payer without a
-- manager PIN, and only while no till sale claims it: the customer gets back what she paid for a
-- sale the cashier cancelled before it was fully paid.
ALTER TABLE pos_sessions ADD COLUMN tender_of uuid;
