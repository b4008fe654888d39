-- POS sessions: one tap (or one wallet payment on the session's page) in one call.

-- The one session-expiry rule: a pending session whose 90 seconds have passed by p_now is
-- expired (whoever notices first: a tap, a read, a cancel, the sweeper), with this message.
CREATE OR REPLACE FUNCTION pos_session_overdue(p_status text, p_expires_at timestamptz, p_now timestamptz)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_status = 'pending' AND p_expires_at <= p_now
$$;

CREATE OR REPLACE FUNCTION pos_session_expired_message() RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 'The session expired: no payment within 90 seconds'::text
$$;

-- The body of pos.session.completed / pos.session.failed as compact JSON, key for key what
-- events/outbox.ts enqueueEvent writes for modules/pos (id, event, the spec's fields, timestamp):
-- amount in major units (p_exponent: the currency's ISO 4217 exponent), payerHandle '@handle'.
-- p_sale_members: a sale's lines as the API answers them ("items":[…],"cartDiscount":…,"totals":{…},
-- JSON members without the braces, made by modules/pos), or NULL for a session without lines.
CREATE OR REPLACE FUNCTION pos_session_event_body(p_session pos_sessions, p_event_id text, p_exponent integer, p_now timestamptz, p_sale_members text)
RETURNS text LANGUAGE sql STABLE AS $$
  SELECT '{"id":' || to_json(p_event_id)::text
    || ',"event":' || to_json(CASE WHEN p_session.status = 'completed' THEN 'pos.session.completed' ELSE 'pos.session.failed' END)::text
    || ',"sessionId":' || to_json(p_session.id::text)::text
    || ',"merchantId":' || to_json(p_session.merchant_id)::text
    || ',"amount":' || trim_scale(p_session.amount::numeric / (10::numeric ^ p_exponent))::text
    || ',"currency":' || to_json(p_session.currency)::text
    || ',"payerHandle":' || coalesce(to_json('@' || p_session.payer_handle)::text, 'null')
    || ',"walletRef":' || coalesce(to_json(CASE WHEN p_session.status = 'completed' THEN p_session.wallet_ref END)::text, 'null')
    || ',"completedAt":' || coalesce(to_json(to_char(p_session.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text, 'null')
    || CASE WHEN p_session.status = 'failed' THEN ',"errorMessage":' || coalesce(to_json(p_session.error_message)::text, 'null') ELSE '' END
    || CASE WHEN p_sale_members IS NOT NULL AND p_sale_members <> '' THEN ',' || p_sale_members ELSE '' END
    || ',"timestamp":' || to_json(to_char(p_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text
    || '}'
$$;

-- Lock the session, check it is pending and in time, resolve and count the tag (taking the tap's
-- amount from the tag's no-PIN allowance of the day unless the holder proved their PIN), mark the
-- session completed and post ONE ledger transfer from the payer's wallet to the merchant's
-- (ledger_post_transfer); when the ledger refuses it (insufficient funds posts nothing and raises
-- nothing), the session is marked failed instead and the allowance goes back. The session's
-- pos.session.completed / pos.session.failed event is written here too, with a delivery to the
-- merchant's webhook URL (signed as every webhook, hex) and one to the session's callbackUrl
-- (sha256=) unless that is the same URL (one delivery then, the webhook's); with neither URL no
-- event is written, as nothing would read it (p_event_id, p_delivery_id for the callback,
-- p_webhook_delivery_id: ids the caller generated). Run on its own it is its own transaction:
-- transfer, session and event commit together in a single round trip, and the hot merchant
-- account (which the ledger locks last) is held only from the transfer to the commit.
--
-- p_sale_members: see pos_session_event_body; a session with lines (items) is answered
-- 'needs_lines' with nothing changed while it is NULL.
--
-- p_merchant_id NULL: any merchant's session of the mode (a wallet holder paying by PIN).
-- p_tag_id NULL: the payer is p_payer_wallet_id / p_payer_handle. p_pin_wallet_id: the wallet
-- whose holder proved their PIN for this tap (NULL: no PIN); without it, the tag pays only within
-- its no-PIN limits, in its wallet's currency; the answer is then 'pin_required' and nothing
-- changes. p_exponents: {currency: ISO 4217 exponent} for the event's amount.
--
-- Outcomes: completed, failed, expired, not_pending, session_not_found, tag_not_found,
-- tag_disabled, pin_required (over the tag's no-PIN limits), pin_required_merchant (the holder has
-- not allowed this merchant to charge the tag without her PIN), needs_lines. Only completed, failed and expired change anything.
CREATE OR REPLACE FUNCTION pos_tap(
  p_session_id uuid, p_mode text, p_merchant_id text, p_tag_id text,
  p_payer_wallet_id text, p_payer_handle text, p_now timestamptz, p_transfer_id text,
  p_pin_wallet_id text, p_event_id text, p_delivery_id text, p_exponents jsonb, p_sale_members text,
  p_webhook_delivery_id text
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
  v_outcome text;
  v_webhook_url text;
BEGIN
  SELECT * INTO v_session FROM pos_sessions s
  WHERE s.id = p_session_id AND s.mode = p_mode AND (p_merchant_id IS NULL OR s.merchant_id = p_merchant_id)
  FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'session_not_found'::text, NULL::pos_sessions;
    RETURN;
  END IF;
  IF pos_session_overdue(v_session.status, v_session.expires_at, p_now) THEN
    UPDATE pos_sessions s SET status = 'expired', error_message = pos_session_expired_message(),
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
  -- A sale with lines is settled by its caller in a transaction that checks the products' stock
  -- and gives its event's lines: nothing changes here without them.
  IF v_session.items IS NOT NULL AND p_sale_members IS NULL THEN
    RETURN QUERY SELECT 'needs_lines'::text, v_session;
    RETURN;
  END IF;

  IF p_tag_id IS NOT NULL THEN
    -- One statement counts the tap and, without the holder's PIN, takes the amount from the tag's
    -- no-PIN allowance of the day. The tag's row lock orders concurrent taps of one tag, and the
    -- condition is checked again on the locked row, so two taps cannot both fit into the last of
    -- an allowance. The count is the rule of modules/wearables countTaps (active tag only, +1,
    -- last_tapped_at) written into this UPDATE: a second statement on the same hot row took
    -- bench:pos from 0.56x to 0.36x pgbench. pos/tap-count.test.ts holds the two to one effect.
    --
    -- Without the PIN, the tag pays only a merchant its holder allowed (wearable_merchants), within
    -- its limits; the day's total is the one budget offline settlements spend too
    -- (no_pin_budget.sql): when a new day starts, the last day's total moves into the history.
    -- The allowed-merchant test names p_tag_id, not w.tag_id: uncorrelated, it is one probe of
    -- wearable_merchants' key. Correlated, the cached plan hashed every tag the merchant was
    -- allowed by, twice a tap (1,000 rows in bench:pos: half of this statement's time, and it
    -- grows with the shop's customers).
    UPDATE wearables w SET tap_count = w.tap_count + 1, last_tapped_at = p_now,
      no_pin_history = CASE WHEN w.wallet_id = p_pin_wallet_id OR w.no_pin_day IS NULL OR w.no_pin_day >= v_today THEN w.no_pin_history
                            ELSE no_pin_history_roll(w.no_pin_history, w.no_pin_day, w.no_pin_spent, v_today) END,
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
                   <= least(coalesce(w.no_pin_per_day, d.per_day, 0), coalesce(d.per_day, 0))
               AND EXISTS (SELECT 1 FROM wearable_merchants t WHERE t.tag_id = p_tag_id AND t.merchant_id = v_session.merchant_id)))
    RETURNING w.wallet_id, w.handle, w.wallet_id IS DISTINCT FROM p_pin_wallet_id INTO v_wallet, v_handle, v_without_pin;
    IF NOT FOUND THEN
      SELECT w.status INTO v_tag_status FROM wearables w WHERE w.tag_id = p_tag_id AND w.mode = p_mode;
      RETURN QUERY SELECT CASE WHEN v_tag_status IS NULL THEN 'tag_not_found'
                               WHEN v_tag_status <> 'active' THEN 'tag_disabled'
                               WHEN NOT EXISTS (SELECT 1 FROM wearable_merchants t WHERE t.tag_id = p_tag_id AND t.merchant_id = v_session.merchant_id)
                                 THEN 'pin_required_merchant'
                               ELSE 'pin_required' END, v_session;
      RETURN;
    END IF;
  END IF;

  IF payer_is_merchant(v_wallet, v_session.merchant_wallet_id) THEN
    v_result := 'payer_is_merchant';
    UPDATE pos_sessions s SET status = 'failed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
      error_message = 'The payer is the merchant itself: a merchant cannot pay its own session', ended_at = p_now, updated_at = p_now
    WHERE s.id = p_session_id RETURNING * INTO v_session;
  ELSE
    -- Completed first, so that the transfer is the last thing before the commit.
    UPDATE pos_sessions s SET status = 'completed', payer_handle = v_handle, payer_wallet_id = v_wallet, tag_id = p_tag_id,
      wallet_ref = p_transfer_id, error_message = NULL, ended_at = p_now, updated_at = p_now
    WHERE s.id = p_session_id RETURNING * INTO v_session;
    SELECT t.result INTO v_result FROM ledger_post_transfer(
      p_transfer_id, p_mode, 'pos_payment',
      ARRAY['wallet', 'wallet'], ARRAY[v_wallet, v_session.merchant_wallet_id],
      ARRAY[v_session.currency, v_session.currency], ARRAY[-v_session.amount, v_session.amount]::bigint[],
      CASE WHEN p_tag_id IS NULL THEN jsonb_build_object('sessionId', p_session_id)
           ELSE jsonb_build_object('sessionId', p_session_id, 'tagId', p_tag_id) END
    ) AS t;
    IF v_result NOT IN ('created', 'exists') THEN
      UPDATE pos_sessions s SET status = 'failed', wallet_ref = NULL,
        error_message = CASE WHEN v_result = 'insufficient_funds' THEN 'Insufficient funds in @' || v_handle || '''s wallet'
                             ELSE 'Settlement refused by the ledger: ' || v_result END
      WHERE s.id = p_session_id RETURNING * INTO v_session;
    END IF;
  END IF;

  v_outcome := CASE WHEN v_result IN ('created', 'exists') THEN 'completed' ELSE 'failed' END;
  -- Nothing was paid: the allowance taken above goes back.
  IF v_outcome = 'failed' AND v_without_pin THEN
    UPDATE wearables w SET no_pin_spent = w.no_pin_spent - v_session.amount WHERE w.tag_id = p_tag_id;
  END IF;
  -- The holder paid this merchant with her tag and PIN: from now on it may charge the tag without.
  IF v_outcome = 'completed' AND p_tag_id IS NOT NULL AND NOT v_without_pin THEN
    INSERT INTO wearable_merchants (tag_id, merchant_id, source, created_at)
    VALUES (p_tag_id, v_session.merchant_id, 'pin', p_now) ON CONFLICT (tag_id, merchant_id) DO NOTHING;
  END IF;
  SELECT m.webhook_url INTO v_webhook_url FROM merchants m WHERE m.id = v_session.merchant_id;
  IF v_session.callback_url IS NOT NULL OR v_webhook_url IS NOT NULL THEN
    INSERT INTO events (id, merchant_id, mode, type, body, created_at)
    VALUES (p_event_id, v_session.merchant_id, v_session.mode,
            CASE WHEN v_outcome = 'completed' THEN 'pos.session.completed' ELSE 'pos.session.failed' END,
            pos_session_event_body(v_session, p_event_id, (p_exponents ->> v_session.currency)::integer, p_now, p_sale_members), p_now);
    INSERT INTO event_deliveries (id, event_id, merchant_id, mode, url, signature_format, state, next_attempt_at, created_at, updated_at)
    SELECT d.id, p_event_id, v_session.merchant_id, v_session.mode, d.url, d.format, 'pending', p_now, p_now, p_now
    FROM (VALUES (p_webhook_delivery_id, v_webhook_url, 'hex'), (p_delivery_id, v_session.callback_url, 'sha256=')) AS d (id, url, format)
    WHERE d.url IS NOT NULL AND (d.format = 'hex' OR d.url IS DISTINCT FROM v_webhook_url);
  END IF;
  RETURN QUERY SELECT v_outcome, v_session;
END
$$;
