-- The offline taps of one push, posted in one call (a kiosk back online pushes 100 at a time), a
-- thin caller of ledger_post_transfer: each tap, in the order given (the order the terminal took
-- them), spends its offline window's budget and posts its transfer (payer's wallet -amount,
-- merchant's wallet +amount, kind offline_tap). A tap over what its window has left is not posted
-- (offline_exposure_limit), and a tap the ledger refuses (insufficient_funds) spends nothing.
-- Answers each tap's result: created, exists, offline_exposure_limit, or the ledger rule that
-- failed. The caller's transaction stays usable.
CREATE OR REPLACE FUNCTION offline_post_taps(
  p_mode text, p_merchant_wallet_id text, p_currency text, p_transfer_ids text[], p_payer_wallet_ids text[],
  p_amounts bigint[], p_metadata jsonb[], p_windows integer[], p_budgets bigint[]
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_budgets bigint[] := p_budgets;
  v_results text[] := ARRAY[]::text[];
  v_result text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_transfer_ids, 1), 0) LOOP
    IF p_amounts[i] > v_budgets[p_windows[i]] THEN
      v_result := 'offline_exposure_limit';
    ELSE
      SELECT t.result INTO v_result FROM ledger_post_transfer(
        p_transfer_ids[i], p_mode, 'offline_tap', ARRAY['wallet', 'wallet'], ARRAY[p_payer_wallet_ids[i], p_merchant_wallet_id],
        ARRAY[p_currency, p_currency], ARRAY[-p_amounts[i], p_amounts[i]]::bigint[], p_metadata[i]) AS t;
      IF v_result IN ('created', 'exists') THEN
        v_budgets[p_windows[i]] := v_budgets[p_windows[i]] - p_amounts[i];
      END IF;
    END IF;
    v_results := v_results || v_result;
  END LOOP;
  RETURN v_results;
END
$$;
