-- The offline taps of one push, posted in one call (a kiosk back online pushes 100 at a time), a
-- thin caller of ledger_post_transfer. Each tap, in the order given (the order the terminal took
-- them):
--   1. spends its terminal's offline budget of the UTC day it was taken (p_windows indexes
--      p_budgets): over what is left, it is not posted (offline_exposure_limit);
--   2. spends its tag's no-PIN day budget (no_pin_budget.sql) on the day it was taken and, when it
--      settles on a later day, on that day too: over the tag's limit p_per_day on either, it is not
--      posted (pin_required: the holder's PIN cannot be asked offline);
--   3. posts its transfer (payer's wallet -amount, merchant's wallet +amount, kind offline_tap).
-- A tap the ledger refuses (insufficient_funds) spends nothing. The tags must be locked by the
-- caller (modules/wearables countTaps). Answers each tap's result: created, exists,
-- offline_exposure_limit, pin_required, or the ledger rule that failed. The caller's transaction
-- stays usable.
CREATE OR REPLACE FUNCTION offline_post_taps(
  p_mode text, p_merchant_wallet_id text, p_currency text, p_transfer_ids text[], p_payer_wallet_ids text[],
  p_amounts bigint[], p_metadata jsonb[], p_windows integer[], p_budgets bigint[],
  p_tag_ids text[], p_capture_days date[], p_settle_day date, p_per_day bigint[]
) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  v_budgets bigint[] := p_budgets;
  v_results text[] := ARRAY[]::text[];
  v_result text;
  -- The taps' tags' no-PIN budgets, read once, spent here, written back once.
  v_tags text[];
  v_days date[];
  v_spent bigint[];
  v_history jsonb[];
  v_changed boolean := false;
  v_k integer;
  v_on date;
  v_amount bigint;
  v_day date;
  v_day_spent bigint;
  v_day_history jsonb;
BEGIN
  SELECT coalesce(array_agg(w.tag_id), ARRAY[]::text[]), array_agg(w.no_pin_day), array_agg(w.no_pin_spent), array_agg(w.no_pin_history)
  INTO v_tags, v_days, v_spent, v_history
  FROM wearables w WHERE w.tag_id = ANY (p_tag_ids);
  FOR i IN 1 .. coalesce(array_length(p_transfer_ids, 1), 0) LOOP
    v_amount := p_amounts[i];
    v_k := array_position(v_tags, p_tag_ids[i]);
    -- A tap dated a few minutes past midnight by a clock running ahead counts on the server's day.
    v_on := least(p_capture_days[i], p_settle_day);
    IF v_amount > v_budgets[p_windows[i]] THEN
      v_result := 'offline_exposure_limit';
    ELSIF v_k IS NULL
       OR no_pin_spent_on(v_days[v_k], v_spent[v_k], v_history[v_k], v_on) + v_amount > p_per_day[i]
       OR no_pin_spent_on(v_days[v_k], v_spent[v_k], v_history[v_k], p_settle_day) + v_amount > p_per_day[i] THEN
      v_result := 'pin_required';
    ELSE
      SELECT t.result INTO v_result FROM ledger_post_transfer(
        p_transfer_ids[i], p_mode, 'offline_tap', ARRAY['wallet', 'wallet'], ARRAY[p_payer_wallet_ids[i], p_merchant_wallet_id],
        ARRAY[p_currency, p_currency], ARRAY[-v_amount, v_amount]::bigint[], p_metadata[i]) AS t;
      IF v_result IN ('created', 'exists') THEN
        v_budgets[p_windows[i]] := v_budgets[p_windows[i]] - v_amount;
        SELECT a.day, a.spent, a.history INTO v_day, v_day_spent, v_day_history
        FROM no_pin_add(v_days[v_k], v_spent[v_k], v_history[v_k], v_on, v_amount) AS a;
        IF v_on <> p_settle_day THEN
          SELECT a.day, a.spent, a.history INTO v_day, v_day_spent, v_day_history
          FROM no_pin_add(v_day, v_day_spent, v_day_history, p_settle_day, v_amount) AS a;
        END IF;
        v_days[v_k] := v_day;
        v_spent[v_k] := v_day_spent;
        v_history[v_k] := v_day_history;
        v_changed := true;
      END IF;
    END IF;
    v_results := v_results || v_result;
  END LOOP;
  IF v_changed THEN
    UPDATE wearables w SET no_pin_day = u.day, no_pin_spent = u.spent, no_pin_history = u.history
    FROM unnest(v_tags, v_days, v_spent, v_history) AS u (tag_id, day, spent, history)
    WHERE w.tag_id = u.tag_id
      AND (w.no_pin_day, w.no_pin_spent, w.no_pin_history) IS DISTINCT FROM (u.day, u.spent, u.history);
  END IF;
  RETURN v_results;
END
$$;
