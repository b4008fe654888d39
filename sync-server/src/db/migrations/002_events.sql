-- The transactional outbox: an event is written in the same transaction as the state change
-- it reports; deliveries are claimed by dispatchers with FOR UPDATE SKIP LOCKED.

CREATE TABLE events (
  id text PRIMARY KEY,
  merchant_id text REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  type text NOT NULL,
  -- The exact JSON body every delivery of this event sends.
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_merchant ON events (merchant_id, mode, created_at);

CREATE TABLE event_deliveries (
  id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES events (id),
  merchant_id text REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  url text NOT NULL,
  -- 'hex' for merchant webhooks, 'sha256=' for POS callbacks (spec, Events rule 1).
  signature_format text NOT NULL CHECK (signature_format IN ('hex', 'sha256=')),
  state text NOT NULL CHECK (state IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_deliveries_due ON event_deliveries (next_attempt_at) WHERE state IN ('pending', 'delivering');
CREATE INDEX event_deliveries_merchant ON event_deliveries (merchant_id, mode, created_at);

CREATE TABLE event_delivery_attempts (
  delivery_id text NOT NULL REFERENCES event_deliveries (id),
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  status integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
