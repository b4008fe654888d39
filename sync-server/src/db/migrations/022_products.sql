-- The merchant's catalogue (issue 16): what a till sells, per merchant and mode (test and live
-- apart). Prices in integer minor units, tax rates in basis points. `server_seq` orders the
-- changes of one merchant's products in one mode: the kiosks' pull checkpoint. It is taken from
-- product_sync_heads under that row's lock, so sequence numbers commit in their order and a pull
-- can never pass over a change that commits later with a smaller number.
CREATE TABLE product_sync_heads (
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (merchant_id, mode)
);

CREATE TABLE products (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  price bigint NOT NULL CHECK (price >= 0),
  currency text NOT NULL,
  sku text,
  barcode text,
  category text,
  tax_rate integer NOT NULL DEFAULT 0 CHECK (tax_rate BETWEEN 0 AND 10000),
  tax_inclusive boolean NOT NULL DEFAULT true,
  image_url text,
  track_stock boolean NOT NULL DEFAULT false,
  -- Units in stock when tracked; below zero only through offline sales (oversold).
  stock bigint,
  active boolean NOT NULL DEFAULT true,
  archived_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  server_seq bigint NOT NULL,
  CHECK (track_stock = (stock IS NOT NULL))
);
CREATE UNIQUE INDEX products_sku ON products (merchant_id, mode, lower(sku)) WHERE sku IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX products_sync ON products (merchant_id, mode, server_seq);
CREATE INDEX products_by_name ON products (merchant_id, mode, lower(name), id);
CREATE INDEX products_barcode ON products (merchant_id, mode, barcode) WHERE barcode IS NOT NULL;
