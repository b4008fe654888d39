-- Offline-first terminals: offline QR vouchers, the payments terminals take while they cannot
-- reach the server (settled when they sync), and each terminal's offline exposure limits.
-- Time columns are written from the application's clock (context.now()).

-- Ed25519 keys that sign offline QR vouchers. The private key is sealed with the secrets key
-- (auth/secret-box.ts), like webhook secrets: a copy of the database alone cannot mint vouchers.
CREATE TABLE offline_qr_keys (
  id text PRIMARY KEY,
  -- The raw 32-byte public key, base64url: what terminals verify with.
  public_key text NOT NULL,
  private_key_sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  retired_at timestamptz
);

-- A voucher reserves `amount` of the holder's wallet (moved to the system account
-- offline_qr_reserve) until it pays once, is revoked, or expires and its settlement grace ends.
-- Only a SHA-256 of the voucher's text is kept: it is a bearer instrument, like a gift-card code.
CREATE TABLE offline_qr_vouchers (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  handle text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  key_id text NOT NULL REFERENCES offline_qr_keys (id),
  payload_hash text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('active', 'used', 'revoked', 'expired')),
  expires_at timestamptz NOT NULL,
  -- The offline payment that used it, and what it took (minor units).
  used_by_payment_id uuid,
  used_amount bigint,
  created_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX offline_qr_vouchers_wallet ON offline_qr_vouchers (wallet_id, mode, created_at DESC);
CREATE INDEX offline_qr_vouchers_releasable ON offline_qr_vouchers (expires_at) WHERE status = 'active';

-- What a terminal may take offline, in minor units of the merchant's currency. NULL: the
-- defaults (config.ts, OFFLINE_*), converted into the merchant's currency.
ALTER TABLE terminals
  ADD COLUMN offline_per_payment_max bigint CHECK (offline_per_payment_max >= 0),
  ADD COLUMN offline_total_max bigint CHECK (offline_total_max >= 0),
  ADD COLUMN offline_max_age_seconds integer CHECK (offline_max_age_seconds > 0),
  -- The order of changes to this terminal's replicated documents: each change takes the next
  -- number under this row's lock, so numbers commit in order and a pull never skips one.
  ADD COLUMN sync_seq bigint NOT NULL DEFAULT 0;

-- A payment a terminal took offline (a tap or a voucher), settled when the terminal synced. The
-- id is the terminal's: a replayed push finds the row and never settles twice.
CREATE TABLE offline_payments (
  id uuid PRIMARY KEY,
  -- NULL for a voucher redeemed online with a merchant key (no terminal).
  terminal_id text REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  kind text NOT NULL CHECK (kind IN ('tap', 'qr')),
  tag_id text,
  voucher_id text,
  voucher_hash text,
  amount bigint NOT NULL,
  currency text NOT NULL,
  description text NOT NULL,
  captured_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('accepted', 'declined')),
  payer_wallet_id text,
  payer_handle text,
  transfer_id text,
  decline_code text,
  decline_reason text,
  settled_at timestamptz NOT NULL,
  server_seq bigint NOT NULL,
  CHECK ((status = 'accepted') = (transfer_id IS NOT NULL))
);
CREATE UNIQUE INDEX offline_payments_terminal_seq ON offline_payments (terminal_id, server_seq);
CREATE INDEX offline_payments_merchant ON offline_payments (merchant_id, mode, received_at DESC);
-- One voucher pays once: the first settlement wins, a second is declined voucher_already_used.
CREATE UNIQUE INDEX offline_payments_voucher_once ON offline_payments (voucher_id) WHERE status = 'accepted';
