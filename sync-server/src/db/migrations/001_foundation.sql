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
  -- Locks are taken in (lock_rank, id) order: people's wallets (0), merchants' wallets (1), system
  -- accounts (2). Hot accounts rank last, so they can be locked late and held briefly.
  lock_rank smallint NOT NULL DEFAULT 0,
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

CREATE TABLE ledger_postings (
  transfer_id text NOT NULL REFERENCES ledger_transfers (id),
  leg smallint NOT NULL,
  -- No foreign key here on purpose: its check would take a KEY SHARE lock on a hot merchant
  -- account on every payment and turn its row lock into a MultiXact. The transfer function only
  -- writes ids it read from ledger_accounts, and ledger:check proves no posting is orphaned.
  account_id bigint NOT NULL,
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount <> 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (transfer_id, leg)
);
CREATE INDEX ledger_postings_account ON ledger_postings (account_id);

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
-- accounts by (owner_type, owner_id, currency); missing accounts are opened. p_fingerprint is
-- the caller's canonical rendering of the legs. Returns (result, account) where result is
-- 'created', 'exists' (the same id with the same legs was already posted: success, nothing
-- posted twice) or the rule that failed. A failed rule posts nothing and raises nothing, so the
-- caller's transaction stays usable (a POS session can be marked failed in the same transaction).
--
-- Locking, deadlock-free: every transfer takes its row locks (FOR NO KEY UPDATE, which foreign
-- key checks do not conflict with) in increasing (lock_rank, id) order. People's wallets (rank 0)
-- are locked first and checked; merchants' wallets and system accounts (ranks 1 and 2) are only
-- credited or allowed negative in the common case, so they are locked last, just before balances
-- move: a hot merchant account credited by every payment is held only from its update to the
-- commit. A transfer that debits a rank 1 wallet (a refund from a merchant) locks all of its
-- accounts up front instead, in the same order.
CREATE FUNCTION ledger_post_transfer(
  p_id text, p_mode text, p_kind text,
  p_owner_types text[], p_owner_ids text[], p_currencies text[], p_amounts bigint[],
  p_fingerprint text, p_metadata jsonb
) RETURNS TABLE (result text, account_id bigint) LANGUAGE plpgsql AS $$
DECLARE
  v_legs integer := coalesce(array_length(p_amounts, 1), 0);
  v_ids bigint[];
  v_ranks smallint[];
  v_may_go_negative boolean[];
  v_early bigint[] := '{}';
  v_late bigint[] := '{}';
  v_lock_all boolean := false;
  v_existing text;
  v_bad bigint;
  v_invalid text;
BEGIN
  IF v_legs < 2 OR v_legs <> coalesce(array_length(p_owner_types, 1), 0)
     OR v_legs <> coalesce(array_length(p_owner_ids, 1), 0) OR v_legs <> coalesce(array_length(p_currencies, 1), 0) THEN
    RETURN QUERY SELECT 'transfer_must_have_two_legs'::text, NULL::bigint;
    RETURN;
  END IF;
  SELECT CASE
           WHEN EXISTS (SELECT 1 FROM unnest(p_amounts) AS m WHERE m IS NULL OR m = 0) THEN 'amount_must_not_be_zero'
           WHEN EXISTS (SELECT 1 FROM unnest(p_currencies, p_amounts) AS l (c, m) GROUP BY c HAVING sum(m) <> 0) THEN 'transfer_must_balance'
         END INTO v_invalid;
  IF v_invalid IS NOT NULL THEN
    RETURN QUERY SELECT v_invalid, NULL::bigint;
    RETURN;
  END IF;

  FOR attempt IN 1..2 LOOP
    SELECT array_agg(a.id ORDER BY l.ord), array_agg(a.lock_rank ORDER BY l.ord), array_agg(a.allow_negative ORDER BY l.ord)
      INTO v_ids, v_ranks, v_may_go_negative
    FROM unnest(p_owner_types, p_owner_ids, p_currencies) WITH ORDINALITY AS l (t, o, c, ord)
    JOIN ledger_accounts a ON a.owner_type = l.t AND a.owner_id = l.o AND a.currency = l.c AND a.mode = p_mode;
    EXIT WHEN coalesce(array_length(v_ids, 1), 0) = v_legs;
    IF attempt = 2 THEN
      -- Another transaction is opening the same account and has not committed yet.
      RETURN QUERY SELECT 'account_not_ready'::text, NULL::bigint;
      RETURN;
    END IF;
    INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative, lock_rank)
    SELECT DISTINCT l.t, l.o, l.c, p_mode, l.t = 'system',
      CASE WHEN l.t = 'system' THEN 2
           WHEN EXISTS (SELECT 1 FROM wallets w WHERE w.id = l.o AND w.owner_type = 'merchant') THEN 1
           ELSE 0 END
    FROM unnest(p_owner_types, p_owner_ids, p_currencies) AS l (t, o, c)
    ON CONFLICT DO NOTHING;
  END LOOP;

  FOR i IN 1..v_legs LOOP
    IF v_ranks[i] > 0 AND NOT v_may_go_negative[i] AND p_amounts[i] < 0 THEN
      v_lock_all := true;
    END IF;
  END LOOP;
  FOR i IN 1..v_legs LOOP
    IF v_lock_all OR v_ranks[i] = 0 THEN
      v_early := v_early || v_ids[i];
    ELSE
      v_late := v_late || v_ids[i];
    END IF;
  END LOOP;

  -- Phase one: lock and check the early accounts in (lock_rank, id) order.
  IF array_length(v_early, 1) IS NOT NULL THEN
    SELECT a.id INTO v_bad
    FROM (SELECT acc.id, acc.balance, acc.allow_negative FROM ledger_accounts acc
          WHERE acc.id = ANY (v_early) ORDER BY acc.lock_rank, acc.id FOR NO KEY UPDATE) a
    JOIN (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, p_amounts) AS l (a, m) GROUP BY l.a) d ON d.a = a.id
    WHERE NOT a.allow_negative AND a.balance + d.delta < 0
    ORDER BY a.id LIMIT 1;
  END IF;

  IF v_bad IS NOT NULL THEN
    -- Checked after the locks: a retry of a transfer that already went through is a success,
    -- even though its debit would no longer fit.
    SELECT fingerprint INTO v_existing FROM ledger_transfers WHERE id = p_id;
    IF FOUND THEN
      RETURN QUERY SELECT CASE WHEN v_existing = p_fingerprint THEN 'exists' ELSE 'exists_with_different_legs' END, NULL::bigint;
    ELSE
      RETURN QUERY SELECT 'insufficient_funds'::text, v_bad;
    END IF;
    RETURN;
  END IF;

  INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
  VALUES (p_id, p_mode, p_kind, p_fingerprint, coalesce(p_metadata, '{}'::jsonb))
  ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    SELECT fingerprint INTO v_existing FROM ledger_transfers WHERE id = p_id;
    RETURN QUERY SELECT CASE WHEN v_existing = p_fingerprint THEN 'exists' ELSE 'exists_with_different_legs' END, NULL::bigint;
    RETURN;
  END IF;

  INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
  SELECT p_id, l.ord, l.a, l.c, l.m FROM unnest(v_ids, p_currencies, p_amounts) WITH ORDINALITY AS l (a, c, m, ord);

  -- Phase two: the late accounts, in (lock_rank, id) order, then every balance moves.
  IF array_length(v_late, 1) IS NOT NULL THEN
    PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_late) ORDER BY lock_rank, id FOR NO KEY UPDATE;
  END IF;
  UPDATE ledger_accounts a SET balance = a.balance + d.delta
  FROM (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, p_amounts) AS l (a, m) GROUP BY l.a) d
  WHERE a.id = d.a;

  RETURN QUERY SELECT 'created'::text, NULL::bigint;
END
$$;
