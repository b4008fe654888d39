-- The store (spec: "Store", its endpoint table and the admin paragraph; issue 7): products,
-- flash sales, referral codes, orders, reviews, stock alerts, the wallet's in-app notices and the
-- durable e-mail outbox. Every record carries its mode: the test and live catalogues, orders and
-- codes never mix. Money columns are integer minor units of the named currency.
--
-- Every time column is written from the application's clock (context.now()), so flash-sale
-- windows, referral expiry and mail retries follow one injectable clock.

CREATE TABLE store_products (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  slug text NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length(slug) <= 80),
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  category text NOT NULL,
  base_price bigint NOT NULL CHECK (base_price > 0),
  base_currency text NOT NULL,
  -- Conditional updates (stock >= quantity) keep it from going below zero under concurrency;
  -- the constraint is the last line of defence.
  stock integer NOT NULL CHECK (stock >= 0),
  status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
  images jsonb NOT NULL DEFAULT '[]',
  -- [{name, priceDelta}] with priceDelta in minor units of base_currency (>= 0).
  variants jsonb NOT NULL DEFAULT '[]',
  available_countries jsonb NOT NULL DEFAULT '[]',
  -- all: ships everywhere; include: only to available_countries; exclude: everywhere else.
  geo_mode text NOT NULL DEFAULT 'all' CHECK (geo_mode IN ('all', 'include', 'exclude')),
  sort_order integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (mode, slug)
);
CREATE INDEX store_products_listing ON store_products (mode, status, category, sort_order);

CREATE TABLE store_flash_sales (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  product_id text NOT NULL REFERENCES store_products (id),
  name text NOT NULL,
  discount_type text NOT NULL CHECK (discount_type IN ('percent', 'fixed')),
  -- percent: an exact decimal string, 0 < p < 100, at most 2 decimals; fixed: minor units of the product currency.
  discount_percent text,
  discount_amount bigint CHECK (discount_amount IS NULL OR discount_amount > 0),
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  max_units integer CHECK (max_units IS NULL OR max_units > 0),
  -- Net units sold at the sale price: taken by a conditional update at checkout, released by a refund.
  units_sold integer NOT NULL DEFAULT 0 CHECK (units_sold >= 0 AND (max_units IS NULL OR units_sold <= max_units)),
  -- The admin's switch; whether a sale is running also depends on the window and the units left.
  status text NOT NULL CHECK (status IN ('active', 'paused', 'ended')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (end_at > start_at),
  CHECK ((discount_type = 'percent' AND discount_percent IS NOT NULL AND discount_amount IS NULL)
      OR (discount_type = 'fixed' AND discount_amount IS NOT NULL AND discount_percent IS NULL))
);
CREATE INDEX store_flash_sales_product ON store_flash_sales (product_id, status, end_at);
CREATE INDEX store_flash_sales_mode ON store_flash_sales (mode, status, end_at);

CREATE TABLE store_referral_codes (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- Canonical upper case; looked up case-insensitively by upper-casing the input.
  code text NOT NULL CHECK (code ~ '^[A-Z0-9_-]{3,32}$'),
  description text,
  discount_type text NOT NULL CHECK (discount_type IN ('percent', 'fixed')),
  discount_percent text,
  discount_amount bigint CHECK (discount_amount IS NULL OR discount_amount > 0),
  -- The currency of a fixed discount; a fixed code applies only to orders in that currency.
  currency text,
  max_uses integer CHECK (max_uses IS NULL OR max_uses > 0),
  uses integer NOT NULL DEFAULT 0 CHECK (uses >= 0 AND (max_uses IS NULL OR uses <= max_uses)),
  expires_at timestamptz,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (mode, code),
  CHECK ((discount_type = 'percent' AND discount_percent IS NOT NULL AND discount_amount IS NULL)
      OR (discount_type = 'fixed' AND discount_amount IS NOT NULL AND discount_percent IS NULL AND currency IS NOT NULL))
);

CREATE TABLE store_orders (
  -- ord_ + 32 hex (128 random bits, or derived from an Idempotency-Key): unguessable, so the
  -- public order page needs no credential.
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  status text NOT NULL CHECK (status IN ('pending', 'paid', 'fulfilled', 'shipped', 'delivered', 'cancelled', 'refunded')),
  product_id text NOT NULL REFERENCES store_products (id),
  product_slug text NOT NULL,
  product_name text NOT NULL,
  variant_name text,
  quantity integer NOT NULL CHECK (quantity > 0),
  -- Order currency = the product's base currency. unit_price includes the flash-sale price and
  -- the variant's delta; total = subtotal - discount = wallet_debit + gift_card_debit.
  currency text NOT NULL,
  unit_price bigint NOT NULL CHECK (unit_price >= 0),
  subtotal bigint NOT NULL CHECK (subtotal >= 0),
  discount bigint NOT NULL DEFAULT 0 CHECK (discount >= 0 AND discount <= subtotal),
  total bigint NOT NULL CHECK (total = subtotal - discount),
  flash_sale_id text REFERENCES store_flash_sales (id),
  referral_code_id text REFERENCES store_referral_codes (id),
  referral_code text,
  -- No foreign keys to wallets and gift cards on purpose (as gift_card_redemptions): a check
  -- would lock a busy row at every checkout; the service writes ids it just read.
  buyer_wallet_id text NOT NULL,
  buyer_handle text NOT NULL,
  wallet_debit bigint NOT NULL DEFAULT 0 CHECK (wallet_debit >= 0),
  -- What the wallet actually paid, in the currency it paid in (differs from the order currency
  -- when FX converted it), and the mid rate used (order currency -> wallet currency).
  wallet_charged bigint NOT NULL DEFAULT 0 CHECK (wallet_charged >= 0),
  wallet_currency text,
  fx_rate text,
  gift_card_id text,
  -- The first 10 characters of the card's code (never the code itself), for receipts.
  gift_card_prefix text,
  gift_card_debit bigint NOT NULL DEFAULT 0 CHECK (gift_card_debit >= 0),
  CHECK (wallet_debit + gift_card_debit = total),
  shipping_name text NOT NULL,
  shipping_phone text NOT NULL,
  shipping_address text NOT NULL,
  shipping_city text NOT NULL,
  shipping_country text NOT NULL,
  notes text,
  payment_transfer_id text,
  refund_transfer_id text,
  -- What a refund or cancel gave back: restocked units, whether the gift-card part went back to
  -- the card ('card') or, the card having ended, to the buyer's wallet ('wallet').
  restocked integer NOT NULL DEFAULT 0,
  gift_card_refunded_to text CHECK (gift_card_refunded_to IS NULL OR gift_card_refunded_to IN ('card', 'wallet')),
  -- [{status, at, note?}], oldest first.
  timeline jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX store_orders_buyer ON store_orders (buyer_wallet_id, created_at DESC);
CREATE INDEX store_orders_mode_status ON store_orders (mode, status, created_at DESC);
CREATE INDEX store_orders_product ON store_orders (product_id);

CREATE TABLE store_reviews (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  product_id text NOT NULL REFERENCES store_products (id),
  order_id text NOT NULL REFERENCES store_orders (id),
  buyer_wallet_id text NOT NULL,
  buyer_handle text NOT NULL,
  rating integer NOT NULL CHECK (rating BETWEEN 1 AND 5),
  title text CHECK (title IS NULL OR char_length(title) <= 120),
  body text CHECK (body IS NULL OR char_length(body) <= 2000),
  created_at timestamptz NOT NULL,
  -- One review per buyer per product (spec).
  UNIQUE (product_id, buyer_wallet_id)
);
CREATE INDEX store_reviews_product ON store_reviews (product_id, created_at DESC);

CREATE TABLE store_stock_alerts (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  product_id text NOT NULL REFERENCES store_products (id),
  wallet_id text NOT NULL,
  handle text NOT NULL,
  email text NOT NULL,
  status text NOT NULL CHECK (status IN ('waiting', 'notified')),
  created_at timestamptz NOT NULL,
  notified_at timestamptz
);
-- A repeated subscription answers the waiting one instead of adding another.
CREATE UNIQUE INDEX store_stock_alerts_waiting ON store_stock_alerts (product_id, wallet_id, email) WHERE status = 'waiting';

-- In-app notices for a wallet holder (GET /api/wallet/notifications).
CREATE TABLE wallet_notifications (
  id text PRIMARY KEY,
  wallet_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  kind text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  read_at timestamptz
);
CREATE INDEX wallet_notifications_wallet ON wallet_notifications (wallet_id, created_at DESC);

-- The e-mail outbox: written in the same transaction as the change that causes the mail, sent
-- by a background job with retries. A claim marks the row 'sending' with a lease in
-- next_attempt_at, so a sender that dies mid-send loses nothing (the lease runs out, the mail is
-- claimed again).
CREATE TABLE mail_outbox (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text,
  -- What caused it, e.g. stock_alert:<id>.
  source text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz
);
CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE state IN ('pending', 'sending');
