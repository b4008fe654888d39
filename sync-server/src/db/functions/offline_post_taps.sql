-- The offline taps of one push, posted in one call (a kiosk back online pushes 100 at a time), a
-- thin caller of the ledger. Each tap, in the order given (the order the terminal took them):
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
--
-- Step 3 decides each tap as ledger_post_transfer's path 1 would, in memory, and writes the taps
-- that go through together at the end (ledger_post_person_to_merchant_batch: four statements for
-- the push instead of four per tap, which was most of a catch-up's database time). The payers'
-- main accounts are locked and their balances read once; each accepted tap's debit comes off the
-- balance left by the taps before it, so a tap that would overdraw is declined insufficient_funds
-- in its place in the order, exactly as when each tap posted on its own. A tap path 1 would not
-- take (its id already posted or repeated in the push, a payer account or the merchant's inflow
-- shard not opened yet, a payer that is not a person's main account) goes through
-- ledger_post_transfer itself, after the taps queued before it are written, and the accounts are
-- read again after it: the same results and the same rows as one ledger_post_transfer per tap.
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
  v_budget record;
  -- The ledger as path 1 sees it, read (again) when v_stale: the merchant's inflow shard of this
  -- connection, the payers' main accounts (locked) with their balances less the queued debits,
  -- the ids of this push already posted.
  v_stale boolean := true;
  v_shard_id bigint;
  v_payers text[];
  v_accounts bigint[];
  v_ranks smallint[];
  v_may_go_negative boolean[];
  v_balances bigint[];
  v_posted text[];
  v_a integer;
  -- The taps decided 'created' and not written yet.
  q_ids text[] := '{}';
  q_payers text[] := '{}';
  q_accounts bigint[] := '{}';
  q_amounts bigint[] := '{}';
  q_metadata jsonb[] := '{}';
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
      IF v_stale THEN
        -- Path 1's accounts: the shard (only once the wallet's main account exists, as the general
        -- path would open that first) and the payers' main accounts, locked in the ledger's order
        -- (the caller took these locks already, lockWalletAccounts; taking them again is free).
        SELECT s.id INTO v_shard_id FROM ledger_accounts s
        WHERE s.owner_type = 'wallet' AND s.owner_id = p_merchant_wallet_id AND s.currency = p_currency AND s.mode = p_mode
          AND s.shard = ledger_inflow_shard() AND s.lock_rank = 1 AND NOT s.allow_negative
          AND EXISTS (SELECT 1 FROM ledger_accounts m WHERE m.owner_type = 'wallet' AND m.owner_id = p_merchant_wallet_id
                        AND m.currency = p_currency AND m.mode = p_mode AND m.shard = 0);
        SELECT array_agg(a.owner_id), array_agg(a.id), array_agg(a.lock_rank), array_agg(a.allow_negative), array_agg(a.balance)
        INTO v_payers, v_accounts, v_ranks, v_may_go_negative, v_balances
        FROM (SELECT acc.owner_id, acc.id, acc.lock_rank, acc.allow_negative, acc.balance FROM ledger_accounts acc
              WHERE acc.owner_type = 'wallet' AND acc.owner_id = ANY (p_payer_wallet_ids) AND acc.currency = p_currency
                AND acc.mode = p_mode AND acc.shard = 0
              ORDER BY acc.lock_rank, acc.id FOR NO KEY UPDATE) a;
        SELECT coalesce(array_agg(t.id), ARRAY[]::text[]) INTO v_posted FROM ledger_transfers t WHERE t.id = ANY (p_transfer_ids);
        v_stale := false;
      END IF;
      v_a := array_position(v_payers, p_payer_wallet_ids[i]);
      IF v_shard_id IS NOT NULL AND v_a IS NOT NULL AND v_ranks[v_a] = 0 AND v_amount > 0
         AND array_position(v_posted, p_transfer_ids[i]) IS NULL AND array_position(q_ids, p_transfer_ids[i]) IS NULL THEN
        -- Path 1: the debit checked against what the taps before it left.
        IF ledger_balance_allows(v_balances[v_a], v_may_go_negative[v_a], -v_amount) THEN
          v_balances[v_a] := v_balances[v_a] - v_amount;
          q_ids := q_ids || p_transfer_ids[i];
          q_payers := q_payers || p_payer_wallet_ids[i];
          q_accounts := q_accounts || v_accounts[v_a];
          q_amounts := q_amounts || v_amount;
          q_metadata := q_metadata || p_metadata[i];
          v_result := 'created';
        ELSE
          v_result := 'insufficient_funds';
        END IF;
      ELSE
        -- Not path 1's: the queued taps are written first, then this one through the ledger.
        PERFORM ledger_post_person_to_merchant_batch(q_ids, p_mode, 'offline_tap', q_payers, q_accounts, p_merchant_wallet_id, v_shard_id, p_currency, q_amounts, q_metadata);
        q_ids := '{}'; q_payers := '{}'; q_accounts := '{}'; q_amounts := '{}'; q_metadata := '{}';
        SELECT t.result INTO v_result FROM ledger_post_transfer(
          p_transfer_ids[i], p_mode, 'offline_tap', ARRAY['wallet', 'wallet'], ARRAY[p_payer_wallet_ids[i], p_merchant_wallet_id],
          ARRAY[p_currency, p_currency], ARRAY[-v_amount, v_amount]::bigint[], p_metadata[i]) AS t;
        v_stale := true;
      END IF;
      IF v_result IN ('created', 'exists') THEN
        v_budgets[p_windows[i]] := v_budgets[p_windows[i]] - v_amount;
        -- An assignment, not SELECT ... FROM no_pin_add(): a plain expression runs no statement.
        v_budget := no_pin_add(v_days[v_k], v_spent[v_k], v_history[v_k], v_on, v_amount);
        IF v_on <> p_settle_day THEN
          v_budget := no_pin_add(v_budget.day, v_budget.spent, v_budget.history, p_settle_day, v_amount);
        END IF;
        v_days[v_k] := v_budget.day;
        v_spent[v_k] := v_budget.spent;
        v_history[v_k] := v_budget.history;
        v_changed := true;
      END IF;
    END IF;
    v_results := v_results || v_result;
  END LOOP;
  PERFORM ledger_post_person_to_merchant_batch(q_ids, p_mode, 'offline_tap', q_payers, q_accounts, p_merchant_wallet_id, v_shard_id, p_currency, q_amounts, q_metadata);
  IF v_changed THEN
    UPDATE wearables w SET no_pin_day = u.day, no_pin_spent = u.spent, no_pin_history = u.history
    FROM unnest(v_tags, v_days, v_spent, v_history) AS u (tag_id, day, spent, history)
    WHERE w.tag_id = u.tag_id
      AND (w.no_pin_day, w.no_pin_spent, w.no_pin_history) IS DISTINCT FROM (u.day, u.spent, u.history);
  END IF;
  RETURN v_results;
END
$$;
