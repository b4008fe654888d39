-- Tap wearables and POS sessions (spec: "Wearable tag", "POS session", "POS session status").

-- An NFC tag linked to a wallet's @handle. The tag id is global (the public resolve carries no
-- credential and so no mode); the tag itself belongs to one mode, like its wallet.
CREATE TABLE wearables (
  tag_id text PRIMARY KEY CHECK (tag_id ~ '^TG[0-9A-F]{8}$'),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The wallet the tag pays from and resolves to; handle is kept beside it for answers.
  wallet_id text NOT NULL REFERENCES wallets (id),
  handle text NOT NULL,
  tag_type text NOT NULL CHECK (tag_type IN ('sticker', 'card', 'ring', 'band', 'keychain', 'watch', 'custom')),
  display_name text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  -- Who registered it: a merchant (merchant_id set) or the holder themself (merchant_id null).
  merchant_id text REFERENCES merchants (id),
  tap_count bigint NOT NULL DEFAULT 0,
  last_tapped_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX wearables_merchant ON wearables (merchant_id, mode, created_at) WHERE merchant_id IS NOT NULL;
CREATE INDEX wearables_wallet ON wearables (wallet_id, created_at);

-- A merchant's request for one payment, paid by one tap (or by the customer's PIN on the
-- session's page) within 90 seconds. pending -> (tapped -> processing, inside the tap's
-- transaction) -> completed | failed; pending -> expired | cancelled.
--
-- No foreign keys on merchant_id, merchant_wallet_id and terminal_id, on purpose: each check
-- would take a KEY SHARE lock on the merchant's row and on its wallet's row at every session
-- created, and concurrent sessions of one busy merchant would turn those row locks into
-- MultiXacts (the same reason ledger_postings has none). The service writes only ids it has just
-- read from merchants and wallets, which are never deleted.
CREATE TABLE pos_sessions (
  id uuid PRIMARY KEY,
  merchant_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The merchant's wallet in this mode, resolved once at creation: the account every tap credits.
  merchant_wallet_id text NOT NULL,
  terminal_id text,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  description text NOT NULL DEFAULT '',
  callback_url text,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'tapped', 'processing', 'completed', 'failed', 'expired', 'cancelled')),
  tag_id text,
  payer_handle text,
  payer_wallet_id text,
  -- The ledger transfer that settled the session (completed only).
  wallet_ref text,
  error_message text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pos_session_completed_has_payer CHECK (status <> 'completed' OR (payer_handle IS NOT NULL AND wallet_ref IS NOT NULL))
);
CREATE INDEX pos_sessions_merchant ON pos_sessions (merchant_id, mode, created_at);
-- The sweeper's scan: pending sessions by expiry, nothing else.
CREATE INDEX pos_sessions_pending_expiry ON pos_sessions (expires_at) WHERE status = 'pending';

-- One tap (or one wallet payment on the session's page) in one statement: lock the session, check
-- it is pending and in time, resolve and count the tag, mark the session completed and post ONE
-- ledger transfer from the payer's wallet to the merchant's. Run on its own it is its own
-- transaction: a single round trip, and the hot merchant account (which the ledger locks last)
-- is held only from the transfer to the commit. The transfer is the last statement; when the
-- ledger refuses it (insufficient funds posts nothing and raises nothing), the session is marked
-- failed instead.
--
-- p_merchant_id NULL: any merchant's session of the mode (a wallet holder paying by PIN).
-- p_tag_id NULL: the payer is p_payer_wallet_id / p_payer_handle. p_callbacks_allowed false: a
-- session with a callbackUrl is left untouched ('needs_transaction'), because its callback event
-- must be written in the same transaction; the caller runs it again inside one and enqueues it.
--
-- Outcomes: completed, failed, expired, not_pending, session_not_found, tag_not_found,
-- tag_disabled, needs_transaction. Only completed, failed and expired change anything.
--
-- The fingerprint follows ledger.ts: kind, '|', the legs "owner_type/owner_id/currency:amount"
-- sorted (code-unit order, hence COLLATE "C") and joined by ','; a retry of the same session's
-- transfer through transfer() therefore answers 'exists'.
CREATE FUNCTION pos_tap(
  p_session_id uuid, p_mode text, p_merchant_id text, p_tag_id text,
  p_payer_wallet_id text, p_payer_handle text, p_now timestamptz, p_transfer_id text, p_callbacks_allowed boolean
) RETURNS TABLE (outcome text, session pos_sessions) LANGUAGE plpgsql AS $$
DECLARE
  v_session pos_sessions;
  v_wallet text := p_payer_wallet_id;
  v_handle text := p_payer_handle;
  v_result text;
  v_fingerprint text;
BEGIN
  SELECT * INTO v_session FROM pos_sessions s
  WHERE s.id = p_session_id AND s.mode = p_mode AND (p_merchant_id IS NULL OR s.merchant_id = p_merchant_id)
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'session_not_found'::text, NULL::pos_sessions;
    RETURN;
  END IF;
  IF v_session.status = 'pending' AND v_session.expires_at <= p_now THEN
    UPDATE pos_sessions s SET status = 'expired', error_message = 'The session expired: no payment within 90 seconds',
      ended_at = s.expires_at, updated_at = p_now
    WHERE s.id = p_session_id RETURNING * INTO v_session;
    RETURN QUERY SELECT 'expired'::text, v_session;
    RETURN;
  END IF;
  IF v_session.status = 'expired' THEN
    RETURN QUERY SELECT 'expired'::text, v_session;
    RETURN;
  END IF;
  IF v_session.status <> 'pending' THEN
    RETURN QUERY SELECT 'not_pending'::text, v_session;
    RETURN;
  END IF;
  IF v_session.callback_url IS NOT NULL AND NOT p_callbacks_allowed THEN
    RETURN QUERY SELECT 'needs_transaction'::text, v_session;
    RETURN;
  END IF;

  IF p_tag_id IS NOT NULL THEN
    UPDATE wearables w SET tap_count = w.tap_count + 1, last_tapped_at = p_now
    WHERE w.tag_id = p_tag_id AND w.mode = p_mode AND w.status = 'active'
    RETURNING w.wallet_id, w.handle INTO v_wallet, v_handle;
    IF NOT FOUND THEN
      RETURN QUERY SELECT CASE WHEN EXISTS (SELECT 1 FROM wearables w WHERE w.tag_id = p_tag_id AND w.mode = p_mode)
                               THEN 'tag_disabled' ELSE 'tag_not_found' END, v_session;
      RETURN;
    END IF;
  END IF;

  IF v_wallet = v_session.merchant_wallet_id THEN
    UPDATE pos_sessions s SET status = 'failed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
      error_message = 'The payer is the merchant itself: a merchant cannot pay its own session', ended_at = p_now, updated_at = p_now
    WHERE s.id = p_session_id RETURNING * INTO v_session;
    RETURN QUERY SELECT 'failed'::text, v_session;
    RETURN;
  END IF;

  -- Completed first, so that the transfer is the last statement before the commit.
  UPDATE pos_sessions s SET status = 'completed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
    wallet_ref = p_transfer_id, error_message = NULL, ended_at = p_now, updated_at = p_now
  WHERE s.id = p_session_id RETURNING * INTO v_session;
  SELECT 'pos_payment|' || string_agg(l.leg, ',' ORDER BY l.leg COLLATE "C") INTO v_fingerprint
  FROM unnest(ARRAY[
    'wallet/' || v_wallet || '/' || v_session.currency || ':' || (-v_session.amount)::text,
    'wallet/' || v_session.merchant_wallet_id || '/' || v_session.currency || ':' || v_session.amount::text
  ]) AS l (leg);
  SELECT t.result INTO v_result FROM ledger_post_transfer(
    p_transfer_id, p_mode, 'pos_payment',
    ARRAY['wallet', 'wallet'], ARRAY[v_wallet, v_session.merchant_wallet_id],
    ARRAY[v_session.currency, v_session.currency], ARRAY[-v_session.amount, v_session.amount]::bigint[],
    v_fingerprint,
    CASE WHEN p_tag_id IS NULL THEN jsonb_build_object('sessionId', p_session_id)
         ELSE jsonb_build_object('sessionId', p_session_id, 'tagId', p_tag_id) END
  ) AS t;
  IF v_result IN ('created', 'exists') THEN
    RETURN QUERY SELECT 'completed'::text, v_session;
    RETURN;
  END IF;

  UPDATE pos_sessions s SET status = 'failed', wallet_ref = NULL,
    error_message = CASE WHEN v_result = 'insufficient_funds' THEN 'Insufficient funds in @' || v_handle || '''s wallet'
                         ELSE 'Settlement refused by the ledger: ' || v_result END
  WHERE s.id = p_session_id RETURNING * INTO v_session;
  RETURN QUERY SELECT 'failed'::text, v_session;
END
$$;
