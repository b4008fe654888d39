-- A tap's transfer takes a lean path: the common case (a person's wallet pays a merchant's
-- wallet in the session's currency) is posted by pos_tap itself in four statements, instead of
-- the general ledger_post_transfer's dozen (validation, per-leg lookups, two lock passes, an
-- UPDATE over an unnest). bench:pos measured the general function at about half of the database
-- time of a tap.
--
-- The lean path writes exactly what ledger_post_transfer would: the same transfer row (id, kind,
-- fingerprint, metadata), the same two postings (leg 1 the payer's main account, leg 2 one of the
-- merchant's inflow shards, migration 007), the same balance moves, and it takes its row locks in
-- the ledger's (lock_rank, id) order: the payer's account (rank 0) by the debit's UPDATE, which
-- also checks the funds under the lock, then the merchant's shard (rank 1) by the credit's
-- UPDATE, the last statement before the commit.
--
-- Which shard: the one of this database connection (1 + backend pid % 16), not one chosen from
-- the transfer id. A server's pool has about ten connections, so concurrent taps to one merchant
-- almost never queue on the same shard row; with shards chosen at random, two of ten concurrent
-- taps often met on one row and the second waited for the first's commit (bench:pos measured
-- 0.6 ms of lock wait per tap).
--
-- Anything else goes through ledger_post_transfer as before: the payer's account does not exist
-- yet, or is not a person's wallet (a merchant's wallet paying by tag, whose debit must sweep
-- its shards), or the funds are short (the general function answers insufficient_funds), or the
-- merchant's shard for this connection has not been opened yet (the general function opens
-- shards). Nothing has been written when the lean path hands over.
CREATE OR REPLACE FUNCTION pos_tap(
  p_session_id uuid, p_mode text, p_merchant_id text, p_tag_id text,
  p_payer_wallet_id text, p_payer_handle text, p_now timestamptz, p_transfer_id text, p_callbacks_allowed boolean
) RETURNS TABLE (outcome text, session pos_sessions) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  c_inflow_shards constant integer := 16;
  v_session pos_sessions;
  v_wallet text := p_payer_wallet_id;
  v_handle text := p_payer_handle;
  v_result text;
  v_debit_leg text;
  v_credit_leg text;
  v_fingerprint text;
  v_metadata jsonb;
  v_debit_account bigint;
  v_credit_account bigint;
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

  -- The lean path (see the header).
  SELECT a.id INTO v_credit_account FROM ledger_accounts a
  WHERE a.owner_type = 'wallet' AND a.owner_id = v_session.merchant_wallet_id AND a.currency = v_session.currency
    AND a.mode = p_mode AND a.shard = 1 + pg_backend_pid() % c_inflow_shards AND a.lock_rank = 1 AND NOT a.allow_negative;
  IF FOUND THEN
    UPDATE ledger_accounts a SET balance = a.balance - v_session.amount
    WHERE a.owner_type = 'wallet' AND a.owner_id = v_wallet AND a.currency = v_session.currency AND a.mode = p_mode
      AND a.shard = 0 AND a.lock_rank = 0 AND NOT a.allow_negative AND a.balance >= v_session.amount
    RETURNING a.id INTO v_debit_account;
    IF FOUND THEN
      -- The transfer id is this session's, and only the tap that completes the pending session
      -- (locked above) writes it: a conflict here means the ledger is not what it must be, and
      -- the whole tap rolls back.
      INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
      VALUES (p_transfer_id, p_mode, 'pos_payment', v_fingerprint, v_metadata);
      INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
      VALUES (p_transfer_id, 1, v_debit_account, v_session.currency, -v_session.amount),
             (p_transfer_id, 2, v_credit_account, v_session.currency, v_session.amount);
      UPDATE ledger_accounts a SET balance = a.balance + v_session.amount WHERE a.id = v_credit_account;
      RETURN QUERY SELECT 'completed'::text, v_session;
      RETURN;
    END IF;
  END IF;

  SELECT t.result INTO v_result FROM ledger_post_transfer(
    p_transfer_id, p_mode, 'pos_payment',
    ARRAY['wallet', 'wallet'], ARRAY[v_wallet, v_session.merchant_wallet_id],
    ARRAY[v_session.currency, v_session.currency], ARRAY[-v_session.amount, v_session.amount]::bigint[],
    v_fingerprint, v_metadata
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
