-- Tips at the till (issue 25): per terminal, whether the kiosk asks for a tip before the payment,
-- after it, or not at all, and the percentages it suggests. NULL: off.
ALTER TABLE terminals ADD COLUMN tipping jsonb;
