-- Foundation: platform settings, merchants and their credentials, wallets, agents, terminals,
-- the double-entry ledger and idempotency records. Every tenant record carries its mode.

CREATE TABLE system_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE merchants (
  id text PRIMARY KEY,
  name text NOT NULL,
  handle text NOT NULL UNIQUE,
  country text NOT NULL,
  currency text NOT NULL,
  webhook_url text,
  -- The webhook secret is an HMAC key the server must use to sign, so it cannot be hashed.
  webhook_secret text NOT NULL,
  rate_limit_multiplier integer NOT NULL DEFAULT 1 CHECK (rate_limit_multiplier BETWEEN 1 AND 1000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Set when the key is rotated away: it keeps working until then (the grace period).
  expires_at timestamptz
);
CREATE INDEX api_keys_merchant_mode ON api_keys (merchant_id, mode);

CREATE TABLE wallets (
  id text PRIMARY KEY,
  handle text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  owner_type text NOT NULL CHECK (owner_type IN ('person', 'merchant', 'agent')),
  merchant_id text REFERENCES merchants (id),
  display_name text,
  country text NOT NULL,
  currency text NOT NULL,
  pin_hash text,
  failed_pin_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  preferred_rail text,
  destinations jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (handle, mode)
);

CREATE TABLE wallet_sessions (
  token_hash text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX wallet_sessions_wallet ON wallet_sessions (wallet_id);

CREATE TABLE agents (
  id text PRIMARY KEY,
  name text NOT NULL,
  wallet_id text NOT NULL REFERENCES wallets (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz
);

CREATE TABLE agent_sessions (
  token_hash text PRIMARY KEY,
  agent_id text NOT NULL REFERENCES agents (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE TABLE terminals (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  last_seen_at timestamptz
);
CREATE INDEX terminals_merchant ON terminals (merchant_id, mode);

-- Idempotency-Key records: one per (scope, key), remembered 24 hours.
CREATE TABLE idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Fixed-window counters for the shared rate-limit store (RATE_LIMIT_STORE=postgres).
CREATE TABLE rate_limit_counters (
  key text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);

-- The ledger ------------------------------------------------------------------------------

CREATE TABLE ledger_accounts (
  id bigserial PRIMARY KEY,
  owner_type text NOT NULL CHECK (owner_type IN ('wallet', 'system')),
  owner_id text NOT NULL,
  currency text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  allow_negative boolean NOT NULL,
  balance bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (owner_type, owner_id, currency, mode),
  -- The last line of defence: the transfer function checks this under row locks first.
  CONSTRAINT wallet_balance_must_not_be_negative CHECK (allow_negative OR balance >= 0)
);

CREATE TABLE ledger_transfers (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  kind text NOT NULL,
  -- The legs, canonically ordered: a retry with the same id must carry the same legs.
  fingerprint text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_transfers_created ON ledger_transfers (created_at);

CREATE TABLE ledger_postings (
  id bigserial PRIMARY KEY,
  transfer_id text NOT NULL REFERENCES ledger_transfers (id),
  account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount <> 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_postings_account ON ledger_postings (account_id);
CREATE INDEX ledger_postings_transfer ON ledger_postings (transfer_id);

CREATE FUNCTION ledger_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable: post a correcting transfer instead', TG_TABLE_NAME;
END
$$;
CREATE TRIGGER ledger_transfers_immutable BEFORE UPDATE OR DELETE ON ledger_transfers
  FOR EACH ROW EXECUTE FUNCTION ledger_forbid_change();
CREATE TRIGGER ledger_postings_immutable BEFORE UPDATE OR DELETE ON ledger_postings
  FOR EACH ROW EXECUTE FUNCTION ledger_forbid_change();

-- Posts one balanced transfer in the caller's transaction, in one round trip. Legs name
-- accounts by (owner_type, owner_id, currency); missing accounts are opened. Returns
-- (result, account) where result is 'created', 'exists' (the same id with the same legs was
-- already posted: success, nothing posted twice) or the rule that failed. A failed rule posts
-- nothing and raises nothing, so the caller's transaction stays usable (a POS session can be
-- marked failed in the same transaction).
CREATE FUNCTION ledger_post_transfer(
  p_id text, p_mode text, p_kind text,
  p_owner_types text[], p_owner_ids text[], p_currencies text[], p_amounts bigint[],
  p_metadata jsonb
) RETURNS TABLE (result text, account_id bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_legs integer := coalesce(array_length(p_amounts, 1), 0);
  v_ids bigint[];
  v_fingerprint text;
  v_existing text;
  v_bad bigint;
BEGIN
  IF v_legs < 2 OR v_legs <> coalesce(array_length(p_owner_types, 1), 0)
     OR v_legs <> coalesce(array_length(p_owner_ids, 1), 0) OR v_legs <> coalesce(array_length(p_currencies, 1), 0) THEN
    RETURN QUERY SELECT 'transfer_must_have_two_legs'::text, NULL::bigint;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(p_amounts) AS m WHERE m IS NULL OR m = 0) THEN
    RETURN QUERY SELECT 'amount_must_not_be_zero'::text, NULL::bigint;
    RETURN;
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(p_currencies, p_amounts) AS l (c, m) GROUP BY c HAVING sum(m) <> 0) THEN
    RETURN QUERY SELECT 'transfer_must_balance'::text, NULL::bigint;
    RETURN;
  END IF;

  INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative)
  SELECT DISTINCT l.t, l.o, l.c, p_mode, l.t = 'system'
  FROM unnest(p_owner_types, p_owner_ids, p_currencies) AS l (t, o, c)
  WHERE NOT EXISTS (
    SELECT 1 FROM ledger_accounts a
    WHERE a.owner_type = l.t AND a.owner_id = l.o AND a.currency = l.c AND a.mode = p_mode)
  ON CONFLICT DO NOTHING;

  SELECT array_agg(a.id ORDER BY l.ord) INTO v_ids
  FROM unnest(p_owner_types, p_owner_ids, p_currencies) WITH ORDINALITY AS l (t, o, c, ord)
  JOIN ledger_accounts a ON a.owner_type = l.t AND a.owner_id = l.o AND a.currency = l.c AND a.mode = p_mode;
  IF coalesce(array_length(v_ids, 1), 0) <> v_legs THEN
    -- Another transaction is opening the same account and has not committed yet.
    RETURN QUERY SELECT 'account_not_ready'::text, NULL::bigint;
    RETURN;
  END IF;

  SELECT p_kind || '|' || string_agg(l.a::text || ':' || l.m::text, ',' ORDER BY l.a, l.m) INTO v_fingerprint
  FROM unnest(v_ids, p_amounts) AS l (a, m);

  -- Lock every account of the transfer in id order, so concurrent transfers never deadlock.
  PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_ids) ORDER BY id FOR UPDATE;

  -- Checked after the locks: a concurrent retry of this id has committed or rolled back by now.
  SELECT fingerprint INTO v_existing FROM ledger_transfers WHERE id = p_id;
  IF FOUND THEN
    RETURN QUERY SELECT CASE WHEN v_existing = v_fingerprint THEN 'exists' ELSE 'exists_with_different_legs' END, NULL::bigint;
    RETURN;
  END IF;

  SELECT a.id INTO v_bad
  FROM (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, p_amounts) AS l (a, m) GROUP BY l.a) d
  JOIN ledger_accounts a ON a.id = d.a
  WHERE NOT a.allow_negative AND a.balance + d.delta < 0
  ORDER BY a.id LIMIT 1;
  IF FOUND THEN
    RETURN QUERY SELECT 'insufficient_funds'::text, v_bad;
    RETURN;
  END IF;

  INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
  VALUES (p_id, p_mode, p_kind, v_fingerprint, coalesce(p_metadata, '{}'::jsonb))
  ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT fingerprint INTO v_existing FROM ledger_transfers WHERE id = p_id;
    RETURN QUERY SELECT CASE WHEN v_existing = v_fingerprint THEN 'exists' ELSE 'exists_with_different_legs' END, NULL::bigint;
    RETURN;
  END IF;

  INSERT INTO ledger_postings (transfer_id, account_id, currency, amount)
  SELECT p_id, l.a, l.c, l.m FROM unnest(v_ids, p_currencies, p_amounts) AS l (a, c, m);

  UPDATE ledger_accounts a SET balance = a.balance + d.delta
  FROM (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, p_amounts) AS l (a, m) GROUP BY l.a) d
  WHERE a.id = d.a;

  RETURN QUERY SELECT 'created'::text, NULL::bigint;
END
$$;
