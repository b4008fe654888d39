-- Issue 14: no one moves a customer's money without their consent, and retries after a crash
-- answer what happened.

-- How the holder agreed that a tag pays from their wallet (the latest link):
--   holder_pin      a merchant linked it with the holder's wallet PIN (holderPin)
--   holder_session  the holder linked it from their own wallet session
--   own_wallet      a merchant linked it to its own wallet
--   test_mode       a test-mode merchant linked it without holderPin (sandbox wallets hold no real money)
--   unrecorded      linked before consent was recorded
-- disabled_by: who disabled the tag; a tag its holder disabled (a lost ring) is re-enabled only
-- by the holder, or by a merchant with the holder's PIN.
-- linked_at: when the tag was linked to its current wallet (the holder's activity starts there).
-- no_pin_per_tap / no_pin_per_day: the holder's own no-PIN limits in minor units of the wallet's
-- currency, NULL for the default (no_pin_limit_defaults); the holder may only lower them.
-- no_pin_day / no_pin_spent: what taps without the PIN took from the tag on that UTC day.
ALTER TABLE wearables
  ADD COLUMN consent text NOT NULL DEFAULT 'unrecorded'
    CHECK (consent IN ('holder_pin', 'holder_session', 'own_wallet', 'test_mode', 'unrecorded')),
  ADD COLUMN disabled_by text CHECK (disabled_by IN ('holder', 'merchant')),
  ADD COLUMN linked_at timestamptz,
  ADD COLUMN no_pin_per_tap bigint CHECK (no_pin_per_tap >= 0),
  ADD COLUMN no_pin_per_day bigint CHECK (no_pin_per_day >= 0),
  ADD COLUMN no_pin_day date,
  ADD COLUMN no_pin_spent bigint NOT NULL DEFAULT 0 CHECK (no_pin_spent >= 0);

UPDATE wearables SET linked_at = created_at;
ALTER TABLE wearables ALTER COLUMN linked_at SET NOT NULL, ALTER COLUMN linked_at SET DEFAULT now();
UPDATE wearables SET consent = 'holder_session' WHERE merchant_id IS NULL;
UPDATE wearables w SET consent = 'own_wallet' FROM wallets wa
WHERE wa.id = w.wallet_id AND w.merchant_id IS NOT NULL AND wa.owner_type = 'merchant' AND wa.merchant_id = w.merchant_id;
UPDATE wearables SET consent = 'test_mode' WHERE consent = 'unrecorded' AND mode = 'test';
-- A live tag a merchant linked to someone else's wallet before consent existed may never have
-- been agreed to: it keeps working, but every tap needs the holder's PIN until the holder sets
-- its no-PIN limits themself (PATCH /api/wallet/wearables/<tagId>).
UPDATE wearables SET no_pin_per_tap = 0, no_pin_per_day = 0 WHERE consent = 'unrecorded';

-- The default no-PIN limits per currency, in minor units: NO_PIN_PER_TAP_USD and
-- NO_PIN_PER_DAY_USD converted at the FX mid rate, written by the server at start and at every FX
-- refresh. A currency without a row has no no-PIN allowance (every tap needs the PIN).
CREATE TABLE no_pin_limit_defaults (
  currency text PRIMARY KEY,
  per_tap bigint NOT NULL CHECK (per_tap >= 0),
  per_day bigint NOT NULL CHECK (per_day >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A holder's activity of one tag: its POS payments and offline taps.
CREATE INDEX pos_sessions_tag ON pos_sessions (tag_id, ended_at) WHERE tag_id IS NOT NULL;
CREATE INDEX offline_payments_tag ON offline_payments (tag_id, captured_at) WHERE tag_id IS NOT NULL;

-- pos_tap gains p_pin_wallet_id: the wallet whose holder proved their PIN for this tap (NULL: no
-- PIN). Without it, the tag pays only within its no-PIN limits, in its wallet's currency; the
-- answer is then 'pin_required' and nothing changes (the tap is not counted, the session stays
-- pending). Everything else is migration 014's pos_tap.
DROP FUNCTION pos_tap(uuid, text, text, text, text, text, timestamptz, text, boolean);
CREATE FUNCTION pos_tap(
  p_session_id uuid, p_mode text, p_merchant_id text, p_tag_id text,
  p_payer_wallet_id text, p_payer_handle text, p_now timestamptz, p_transfer_id text, p_callbacks_allowed boolean,
  p_pin_wallet_id text
) RETURNS TABLE (outcome text, session pos_sessions) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_session pos_sessions;
  v_wallet text := p_payer_wallet_id;
  v_handle text := p_payer_handle;
  v_today date := (p_now AT TIME ZONE 'UTC')::date;
  v_without_pin boolean := false;
  v_tag_status text;
  v_result text;
  v_debit_leg text;
  v_credit_leg text;
  v_fingerprint text;
  v_metadata jsonb;
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
    -- One statement counts the tap and, without the holder's PIN, takes the amount from the tag's
    -- no-PIN allowance of the day. The tag's row lock orders concurrent taps of one tag, and the
    -- condition is checked again on the locked row, so two taps cannot both fit into the last of
    -- an allowance.
    UPDATE wearables w SET tap_count = w.tap_count + 1, last_tapped_at = p_now,
      no_pin_day = CASE WHEN w.wallet_id = p_pin_wallet_id THEN w.no_pin_day ELSE v_today END,
      no_pin_spent = CASE WHEN w.wallet_id = p_pin_wallet_id THEN w.no_pin_spent
                          WHEN w.no_pin_day = v_today THEN w.no_pin_spent + v_session.amount
                          ELSE v_session.amount END
    FROM wallets wa LEFT JOIN no_pin_limit_defaults d ON d.currency = wa.currency
    WHERE w.tag_id = p_tag_id AND w.mode = p_mode AND w.status = 'active' AND wa.id = w.wallet_id
      AND (w.wallet_id = p_pin_wallet_id
           OR (wa.currency = v_session.currency
               AND v_session.amount <= least(coalesce(w.no_pin_per_tap, d.per_tap, 0), coalesce(d.per_tap, 0))
               AND v_session.amount + CASE WHEN w.no_pin_day = v_today THEN w.no_pin_spent ELSE 0 END
                   <= least(coalesce(w.no_pin_per_day, d.per_day, 0), coalesce(d.per_day, 0))))
    RETURNING w.wallet_id, w.handle, w.wallet_id IS DISTINCT FROM p_pin_wallet_id INTO v_wallet, v_handle, v_without_pin;
    IF NOT FOUND THEN
      SELECT w.status INTO v_tag_status FROM wearables w WHERE w.tag_id = p_tag_id AND w.mode = p_mode;
      RETURN QUERY SELECT CASE WHEN v_tag_status IS NULL THEN 'tag_not_found'
                               WHEN v_tag_status <> 'active' THEN 'tag_disabled'
                               ELSE 'pin_required' END, v_session;
      RETURN;
    END IF;
  END IF;

  IF v_wallet = v_session.merchant_wallet_id THEN
    IF v_without_pin THEN
      UPDATE wearables w SET no_pin_spent = w.no_pin_spent - v_session.amount WHERE w.tag_id = p_tag_id;
    END IF;
    UPDATE pos_sessions s SET status = 'failed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
      error_message = 'The payer is the merchant itself: a merchant cannot pay its own session', ended_at = p_now, updated_at = p_now
    WHERE s.id = p_session_id RETURNING * INTO v_session;
    RETURN QUERY SELECT 'failed'::text, v_session;
    RETURN;
  END IF;

  -- Completed first, so that the transfer is the last thing before the commit.
  UPDATE pos_sessions s SET status = 'completed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
    wallet_ref = p_transfer_id, error_message = NULL, ended_at = p_now, updated_at = p_now
  WHERE s.id = p_session_id RETURNING * INTO v_session;

  -- The fingerprint as ledger.ts builds it: kind, '|', the legs sorted in code-unit order.
  v_debit_leg := 'wallet/' || v_wallet || '/' || v_session.currency || ':' || (-v_session.amount)::text;
  v_credit_leg := 'wallet/' || v_session.merchant_wallet_id || '/' || v_session.currency || ':' || v_session.amount::text;
  v_fingerprint := 'pos_payment|' || CASE WHEN v_debit_leg COLLATE "C" <= v_credit_leg COLLATE "C"
                                          THEN v_debit_leg || ',' || v_credit_leg ELSE v_credit_leg || ',' || v_debit_leg END;
  v_metadata := CASE WHEN p_tag_id IS NULL THEN jsonb_build_object('sessionId', p_session_id)
                     ELSE jsonb_build_object('sessionId', p_session_id, 'tagId', p_tag_id) END;

  v_result := ledger_post_person_to_merchant(p_transfer_id, p_mode, 'pos_payment', v_wallet, v_session.merchant_wallet_id,
    v_session.currency, v_session.amount, v_fingerprint, v_metadata);
  IF v_result IN ('created', 'exists') THEN
    RETURN QUERY SELECT 'completed'::text, v_session;
    RETURN;
  END IF;

  -- Nothing was paid: the allowance taken above goes back.
  IF v_without_pin THEN
    UPDATE wearables w SET no_pin_spent = w.no_pin_spent - v_session.amount WHERE w.tag_id = p_tag_id;
  END IF;
  UPDATE pos_sessions s SET status = 'failed', wallet_ref = NULL,
    error_message = CASE WHEN v_result = 'insufficient_funds' THEN 'Insufficient funds in @' || v_handle || '''s wallet'
                         ELSE 'Settlement refused by the ledger: ' || v_result END
  WHERE s.id = p_session_id RETURNING * INTO v_session;
  RETURN QUERY SELECT 'failed'::text, v_session;
END
$$;

-- Idempotency-Key claims name the server process that runs them. Each process records itself here
-- and refreshes heartbeat_at every 2 seconds; a claim still in progress whose process has been
-- silent for 10 seconds (http/claim-owner.ts) died with it, and a retry with the same request
-- runs again at once instead of waiting for the 120-second fallback.
CREATE TABLE server_instances (
  id text PRIMARY KEY,
  pid integer NOT NULL,
  hostname text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE idempotency_keys ADD COLUMN owner text;
