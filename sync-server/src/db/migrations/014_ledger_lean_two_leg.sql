-- The lean two-leg transfer of migration 008 (a person's wallet pays a merchant's wallet in one
-- currency: four statements instead of ledger_post_transfer's dozen, crediting the merchant's
-- inflow shard of this database connection) becomes a function of its own, so that offline taps
-- settled from a terminal's sync take it too (bench:sync measured the general function at about
-- a third of an offline payment's database time). pos_tap calls it instead of carrying it inline.
--
-- It writes exactly what ledger_post_transfer would (transfer row, two postings, balances, lock
-- order: the payer's account by the debit's UPDATE, then the merchant's shard by the credit's,
-- the last statement) and hands every other case to ledger_post_transfer: a payer account that
-- does not exist yet or is not a person's main account, short funds (the general function
-- answers insufficient_funds), or a shard not opened yet. It answers ledger_post_transfer's
-- result: created, exists, or the rule that failed. The caller's transaction stays usable.
CREATE FUNCTION ledger_post_person_to_merchant(
  p_transfer_id text, p_mode text, p_kind text, p_payer_wallet_id text, p_merchant_wallet_id text,
  p_currency text, p_amount bigint, p_fingerprint text, p_metadata jsonb
) RETURNS text LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  c_inflow_shards constant integer := 16;
  v_debit_account bigint;
  v_credit_account bigint;
  v_result text;
BEGIN
  SELECT a.id INTO v_credit_account FROM ledger_accounts a
  WHERE a.owner_type = 'wallet' AND a.owner_id = p_merchant_wallet_id AND a.currency = p_currency
    AND a.mode = p_mode AND a.shard = 1 + pg_backend_pid() % c_inflow_shards AND a.lock_rank = 1 AND NOT a.allow_negative;
  IF FOUND AND NOT EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.id = p_transfer_id) THEN
    UPDATE ledger_accounts a SET balance = a.balance - p_amount
    WHERE a.owner_type = 'wallet' AND a.owner_id = p_payer_wallet_id AND a.currency = p_currency AND a.mode = p_mode
      AND a.shard = 0 AND a.lock_rank = 0 AND NOT a.allow_negative AND a.balance >= p_amount
    RETURNING a.id INTO v_debit_account;
    IF FOUND THEN
      INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
      VALUES (p_transfer_id, p_mode, p_kind, p_fingerprint, p_metadata);
      INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
      VALUES (p_transfer_id, 1, v_debit_account, p_currency, -p_amount),
             (p_transfer_id, 2, v_credit_account, p_currency, p_amount);
      UPDATE ledger_accounts a SET balance = a.balance + p_amount WHERE a.id = v_credit_account;
      RETURN 'created';
    END IF;
  END IF;

  SELECT t.result INTO v_result FROM ledger_post_transfer(
    p_transfer_id, p_mode, p_kind,
    ARRAY['wallet', 'wallet'], ARRAY[p_payer_wallet_id, p_merchant_wallet_id],
    ARRAY[p_currency, p_currency], ARRAY[-p_amount, p_amount]::bigint[],
    p_fingerprint, p_metadata
  ) AS t;
  RETURN v_result;
END
$$;

CREATE OR REPLACE FUNCTION pos_tap(
  p_session_id uuid, p_mode text, p_merchant_id text, p_tag_id text,
  p_payer_wallet_id text, p_payer_handle text, p_now timestamptz, p_transfer_id text, p_callbacks_allowed boolean
) RETURNS TABLE (outcome text, session pos_sessions) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_session pos_sessions;
  v_wallet text := p_payer_wallet_id;
  v_handle text := p_payer_handle;
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

  v_result := ledger_post_person_to_merchant(p_transfer_id, p_mode, 'pos_payment', v_wallet, v_session.merchant_wallet_id,
    v_session.currency, v_session.amount, v_fingerprint, v_metadata);
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
