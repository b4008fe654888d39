-- Sales the till completed with their tenders (shared/src/sync-documents.ts, TillSaleDoc; issue 25):
-- a cash sale, recorded by the kiosk online or offline alike and pushed in the collection
-- `till_sales`. The id is the terminal's: a replayed push records it once. Cash moves no wallet
-- money, so no ledger transfer: the row is the record (tenders with what was handed over and the
-- change, lines and stock, cashier and shift, the day report that claims it).
CREATE TABLE till_sales (
  id uuid PRIMARY KEY,
  terminal_id text NOT NULL REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The sale's total (lines after discounts, tax included) and the tip on top, minor units.
  amount bigint NOT NULL,
  tip bigint NOT NULL DEFAULT 0 CHECK (tip >= 0),
  currency text NOT NULL,
  -- [{kind, amount, tendered?, change?, reference?}] in minor units, as the terminal sent them.
  tenders jsonb NOT NULL,
  -- The cash the drawer kept (cash tenders' amounts), handed over and given back: what a cash-up adds.
  cash_amount bigint NOT NULL DEFAULT 0,
  cash_tendered bigint NOT NULL DEFAULT 0,
  cash_change bigint NOT NULL DEFAULT 0,
  items jsonb,
  cart_discount bigint,
  cashier_id text,
  shift_id text,
  description text,
  captured_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('accepted', 'declined')),
  decline_code text,
  decline_reason text,
  settled_at timestamptz NOT NULL,
  server_seq bigint NOT NULL,
  z_report_id text REFERENCES terminal_reports (id) DEFERRABLE INITIALLY DEFERRED,
  CHECK ((status = 'declined') = (decline_code IS NOT NULL))
);
CREATE UNIQUE INDEX till_sales_seq ON till_sales (terminal_id, server_seq);
CREATE INDEX till_sales_merchant ON till_sales (merchant_id, mode, captured_at DESC);
CREATE INDEX till_sales_unreported ON till_sales (terminal_id) WHERE z_report_id IS NULL;

-- A cash sale is refunded from the drawer: no wallet paid it, so no correcting transfer.
ALTER TABLE sale_refunds DROP CONSTRAINT sale_refunds_sale_kind_check;
ALTER TABLE sale_refunds ADD CONSTRAINT sale_refunds_sale_kind_check CHECK (sale_kind IN ('pos_session', 'offline_payment', 'till_sale'));
ALTER TABLE sale_refunds ALTER COLUMN payer_wallet_id DROP NOT NULL;
ALTER TABLE sale_refunds ALTER COLUMN transfer_id DROP NOT NULL;
ALTER TABLE sale_refunds ADD CONSTRAINT sale_refunds_wallet_refund CHECK (sale_kind = 'till_sale' OR (payer_wallet_id IS NOT NULL AND transfer_id IS NOT NULL));
-- How the refund went back: [{kind, amount}] (cash from the drawer, wallet to the wallet that paid).
ALTER TABLE sale_refunds ADD COLUMN tenders jsonb;
