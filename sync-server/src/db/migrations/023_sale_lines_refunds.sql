-- Lines on sales, refunds and the terminals' manager PINs (issue 16).
-- A sale's lines are shared/src/cart.ts SaleLines (minor units, basis points), stored as the
-- kiosk sent them once they add up to the amount charged; cart_discount in minor units.
ALTER TABLE pos_sessions ADD COLUMN items jsonb;
ALTER TABLE pos_sessions ADD COLUMN cart_discount bigint;
ALTER TABLE offline_payments ADD COLUMN items jsonb;
ALTER TABLE offline_payments ADD COLUMN cart_discount bigint;

-- A refund: a correcting ledger transfer from the merchant's wallet back to the wallet that paid.
-- All refunds of a sale together never exceed what was paid (the sale row is locked while one
-- is made). `lines`: [{line, quantity, amount}] (amount in minor units).
CREATE TABLE sale_refunds (
  id text PRIMARY KEY,
  sale_id uuid NOT NULL,
  sale_kind text NOT NULL CHECK (sale_kind IN ('pos_session', 'offline_payment')),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The terminal the sale was made on (its reports count the refund), and the one that refunded it (NULL: the merchant's key).
  sale_terminal_id text REFERENCES terminals (id),
  refunded_by_terminal_id text REFERENCES terminals (id),
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  lines jsonb NOT NULL,
  reason text,
  payer_wallet_id text NOT NULL,
  transfer_id text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);
CREATE INDEX sale_refunds_sale ON sale_refunds (sale_id, created_at);
CREATE INDEX sale_refunds_terminal ON sale_refunds (sale_terminal_id, created_at);

-- The manager PIN a merchant sets per terminal (refunds, Z reports): scrypt, with a lock-out.
ALTER TABLE terminals ADD COLUMN manager_pin_hash text;
ALTER TABLE terminals ADD COLUMN manager_pin_failures integer NOT NULL DEFAULT 0;
ALTER TABLE terminals ADD COLUMN manager_pin_locked_until timestamptz;
