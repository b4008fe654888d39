-- How many documents a kiosk last said it still holds unsent (offline payments and gift-card sales
-- waiting to sync), and when it said so: the server learns of a payment only when the kiosk
-- pushes it, so this is the kiosk's own count, reported over its sync connection.
ALTER TABLE terminals ADD COLUMN queued_count integer CHECK (queued_count >= 0);
ALTER TABLE terminals ADD COLUMN queued_reported_at timestamptz;
