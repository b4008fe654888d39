-- Pairing a kiosk terminal with a short code instead of its token: the merchant gets a code of 8
-- characters (valid 10 minutes, single use) when it creates a terminal or asks for a new one; the
-- kiosk exchanges it for a fresh terminal token (POST /api/terminals/pair), which no person sees.
-- Only the code's SHA-256 is stored. A newer code for the same terminal replaces the older one.
CREATE TABLE terminal_pairing_codes (
  code_hash text PRIMARY KEY CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  terminal_id text NOT NULL REFERENCES terminals (id),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
-- One live code per terminal: issuing a new one deletes the others.
CREATE INDEX terminal_pairing_codes_terminal ON terminal_pairing_codes (terminal_id);

-- Unknown codes tried per client IP in a window: past the limit the IP is locked out until the
-- window ends (with about 40 bits per code and a 10 minute life, guessing is hopeless anyway).
CREATE TABLE terminal_pairing_misses (
  ip text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
