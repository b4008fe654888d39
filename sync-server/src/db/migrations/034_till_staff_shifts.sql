-- Till staff and cashier shifts (issue 25): who signs in at the till with a personal PIN, and the
-- shifts they run (a float counted in, cash paid in and out, drawer openings without a sale, the
-- blind count at close and its variance).

-- The merchant's till staff (both modes: the same people work the test and the live till). The PIN
-- is kept only as a PBKDF2-SHA256 verifier, which the kiosks receive (collection till_staff) to
-- check a PIN while offline. server_seq: the merchant's order of changes to its staff (pull
-- checkpoints), taken under the merchant's row lock so numbers commit in order.
CREATE TABLE till_staff (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('cashier', 'manager')),
  active boolean NOT NULL DEFAULT true,
  pin_verifier text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  removed_at timestamptz,
  server_seq bigint NOT NULL
);
CREATE UNIQUE INDEX till_staff_seq ON till_staff (merchant_id, server_seq);

-- The events of shifts as the terminals pushed them (collection shift_events), each with its verdict.
CREATE TABLE shift_events (
  id uuid PRIMARY KEY,
  terminal_id text NOT NULL REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  shift_id uuid NOT NULL,
  kind text NOT NULL,
  cashier_id text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  reason text,
  approved_by text,
  expected bigint,
  captured_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('accepted', 'declined')),
  decline_code text,
  decline_reason text,
  settled_at timestamptz NOT NULL,
  server_seq bigint NOT NULL,
  CHECK ((status = 'declined') = (decline_code IS NOT NULL))
);
CREATE UNIQUE INDEX shift_events_seq ON shift_events (terminal_id, server_seq);
CREATE INDEX shift_events_shift ON shift_events (shift_id, captured_at);

-- The shifts the accepted events make: one row per shift, changed by its events in their push's
-- transaction. A closed shift belongs to exactly one Z report (claimed like the sales).
CREATE TABLE till_shifts (
  id uuid PRIMARY KEY,
  terminal_id text NOT NULL REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  cashier_id text NOT NULL,
  currency text NOT NULL,
  opened_at timestamptz NOT NULL,
  float bigint NOT NULL CHECK (float >= 0),
  paid_in bigint NOT NULL DEFAULT 0,
  paid_out bigint NOT NULL DEFAULT 0,
  no_sales integer NOT NULL DEFAULT 0,
  closed_at timestamptz,
  counted bigint,
  expected bigint,
  z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED,
  CHECK ((closed_at IS NULL) = (counted IS NULL))
);
CREATE INDEX till_shifts_merchant ON till_shifts (merchant_id, mode, opened_at DESC);
CREATE INDEX till_shifts_unreported ON till_shifts (terminal_id) WHERE z_report_id IS NULL AND closed_at IS NOT NULL;
CREATE INDEX till_sales_shift ON till_sales (shift_id) WHERE shift_id IS NOT NULL;

-- Who refunded, in which shift (a cash refund leaves the drawer of that shift).
ALTER TABLE sale_refunds ADD COLUMN cashier_id text;
ALTER TABLE sale_refunds ADD COLUMN shift_id uuid;
CREATE INDEX sale_refunds_shift ON sale_refunds (shift_id) WHERE shift_id IS NOT NULL;
