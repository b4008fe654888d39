-- The one way money moves: posts one balanced transfer in the caller's transaction, in one round
-- trip. Every other function that moves money (pos_tap, offline_post_taps,
-- payments_insert_with_debits) calls this one (offline_post_taps writes the taps that take path 1
-- together through ledger_post_person_to_merchant_batch, at the end of this file); in TypeScript
-- only sync-server/src/ledger/ calls it.
--
-- Legs name accounts by (owner_type, owner_id, currency); missing accounts are opened. The
-- fingerprint (ledger_fingerprint) is built here from the legs. Returns (result, account) where
-- result is 'created', 'exists' (the same id with the same legs was already posted: success,
-- nothing posted twice) or the rule that failed (transfer_must_have_two_legs,
-- amount_must_not_be_zero, transfer_must_balance, insufficient_funds with the account,
-- exists_with_different_legs, account_not_ready). A failed rule posts nothing and raises nothing,
-- so the caller's transaction stays usable (a POS session can be marked failed in the same
-- transaction).
--
-- Two ways through, with the same results and the same rows:
--
-- 1. The common two-leg transfer, a person's wallet paying a merchant's wallet in one currency
--    (legs in that order: payer -amount, merchant +amount), takes four statements when the
--    accounts allow it: the payer's main account is debited by an UPDATE that checks the funds
--    under its row lock, then the transfer and its postings are written, then the merchant's
--    inflow shard of this connection is credited, the last statement. bench:pos measured the
--    general path at about half of a tap's database time. Anything else (an account or shard not
--    opened yet, short funds, a payer that is not a person's main account) is handed to the
--    general path with nothing written.
--
-- 2. The general path. Locking, deadlock-free: every transfer takes its row locks (FOR NO KEY
--    UPDATE, which foreign key checks do not conflict with) in increasing (lock_rank, id) order.
--    People's wallets (rank 0) are locked first and checked; merchants' wallets and system
--    accounts (ranks 1 and 2) are only credited or allowed negative in the common case, so they
--    are locked last, just before balances move: a hot merchant account credited by every payment
--    is held only from its update to the commit. A transfer that debits a rank 1 wallet (a refund
--    from a merchant) locks all of its accounts up front instead, in the same order, and first
--    sweeps the wallet's inflow shards that hold money into its main account (extra legs shard -b
--    / main +b, so the transfer still balances); every account therefore stays >= 0.
--
-- Inflow shards: a credit to a merchant's wallet (lock_rank 1, never negative) lands on one of its
-- ledger_inflow_shard_count() extra accounts (ledger_inflow_shard(): this connection's), so
-- concurrent payments to one merchant lock different rows and their commits share WAL flushes. A
-- wallet's balance in a currency is the sum of its rows (ledger.ts walletBalances, accountBalance).
-- The legs the caller passed (and its fingerprint) are unchanged; only postings show shards.
--
-- Generic plans (plan_cache_mode): the legs arrive as arrays; a custom plan knows an array holds 2
-- legs, the generic plan guesses 10, so custom plans always won and every call re-planned (about
-- half its cost). The per-leg account lookups are LATERAL subqueries with LIMIT so that each stays
-- one key lookup under a generic plan whatever the table's size.
CREATE OR REPLACE FUNCTION ledger_post_transfer(
  p_id text, p_mode text, p_kind text,
  p_owner_types text[], p_owner_ids text[], p_currencies text[], p_amounts bigint[],
  p_metadata jsonb
) RETURNS TABLE (result text, account_id bigint) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_legs integer := coalesce(array_length(p_amounts, 1), 0);
  v_fingerprint text;
  v_ids bigint[];
  v_ranks smallint[];
  v_may_go_negative boolean[];
  v_currencies text[] := p_currencies;
  v_amounts bigint[] := p_amounts;
  v_early bigint[] := '{}';
  v_late bigint[] := '{}';
  v_debited bigint[] := '{}';
  v_lock_all boolean := false;
  v_shard smallint;
  v_shard_id bigint;
  v_debit_account bigint;
  v_sweep record;
  v_existing text;
  v_bad bigint;
  v_invalid text;
BEGIN
  IF v_legs < 2 OR v_legs <> coalesce(array_length(p_owner_types, 1), 0)
     OR v_legs <> coalesce(array_length(p_owner_ids, 1), 0) OR v_legs <> coalesce(array_length(p_currencies, 1), 0) THEN
    RETURN QUERY SELECT 'transfer_must_have_two_legs'::text, NULL::bigint;
    RETURN;
  END IF;
  v_fingerprint := ledger_fingerprint(p_kind, p_owner_types, p_owner_ids, p_currencies, p_amounts);

  -- 1. A person's wallet pays a merchant's wallet: four statements when the accounts allow it.
  IF v_legs = 2 AND p_owner_types[1] = 'wallet' AND p_owner_types[2] = 'wallet' AND p_currencies[1] = p_currencies[2]
     AND p_amounts[1] < 0 AND p_amounts[2] = -p_amounts[1] THEN
    SELECT a.id INTO v_shard_id FROM ledger_accounts a
    WHERE a.owner_type = 'wallet' AND a.owner_id = p_owner_ids[2] AND a.currency = p_currencies[2]
      AND a.mode = p_mode AND a.shard = ledger_inflow_shard() AND a.lock_rank = 1 AND NOT a.allow_negative;
    IF FOUND AND NOT EXISTS (SELECT 1 FROM ledger_transfers t WHERE t.id = p_id) THEN
      UPDATE ledger_accounts a SET balance = a.balance + p_amounts[1]
      WHERE a.owner_type = 'wallet' AND a.owner_id = p_owner_ids[1] AND a.currency = p_currencies[1] AND a.mode = p_mode
        AND a.shard = 0 AND a.lock_rank = 0 AND ledger_balance_allows(a.balance, a.allow_negative, p_amounts[1])
      RETURNING a.id INTO v_debit_account;
      IF FOUND THEN
        INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
        VALUES (p_id, p_mode, p_kind, v_fingerprint, coalesce(p_metadata, '{}'::jsonb));
        INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
        VALUES (p_id, 1, v_debit_account, p_currencies[1], p_amounts[1]),
               (p_id, 2, v_shard_id, p_currencies[2], p_amounts[2]);
        UPDATE ledger_accounts a SET balance = a.balance + p_amounts[2] WHERE a.id = v_shard_id;
        RETURN QUERY SELECT 'created'::text, NULL::bigint;
        RETURN;
      END IF;
    END IF;
  END IF;

  -- 2. The general path.
  SELECT CASE
           WHEN EXISTS (SELECT 1 FROM unnest(p_amounts) AS m WHERE m IS NULL OR m = 0) THEN 'amount_must_not_be_zero'
           WHEN EXISTS (SELECT 1 FROM unnest(p_currencies, p_amounts) AS l (c, m) GROUP BY c HAVING sum(m) <> 0) THEN 'transfer_must_balance'
         END INTO v_invalid;
  IF v_invalid IS NOT NULL THEN
    RETURN QUERY SELECT v_invalid, NULL::bigint;
    RETURN;
  END IF;

  -- The main accounts (shard 0) of the legs, opened on first use.
  FOR attempt IN 1..2 LOOP
    SELECT array_agg(a.id ORDER BY l.ord), array_agg(a.lock_rank ORDER BY l.ord), array_agg(a.allow_negative ORDER BY l.ord)
      INTO v_ids, v_ranks, v_may_go_negative
    FROM unnest(p_owner_types, p_owner_ids, p_currencies) WITH ORDINALITY AS l (t, o, c, ord)
    CROSS JOIN LATERAL (SELECT acc.id, acc.lock_rank, acc.allow_negative FROM ledger_accounts acc
                        WHERE acc.owner_type = l.t AND acc.owner_id = l.o AND acc.currency = l.c AND acc.mode = p_mode AND acc.shard = 0
                        LIMIT 1) a;
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
    IF v_ranks[i] = 1 AND NOT v_may_go_negative[i] THEN
      IF v_amounts[i] < 0 THEN
        v_lock_all := true;
        v_debited := v_debited || v_ids[i];
      ELSIF v_amounts[i] > 0 THEN
        -- A credit to a merchant's wallet goes to one of its inflow shards.
        v_shard := ledger_inflow_shard();
        SELECT a.id INTO v_shard_id FROM ledger_accounts a
        WHERE a.owner_type = p_owner_types[i] AND a.owner_id = p_owner_ids[i] AND a.currency = v_currencies[i] AND a.mode = p_mode AND a.shard = v_shard;
        IF NOT FOUND THEN
          INSERT INTO ledger_accounts (owner_type, owner_id, currency, mode, allow_negative, lock_rank, shard)
          VALUES (p_owner_types[i], p_owner_ids[i], v_currencies[i], p_mode, false, 1, v_shard)
          ON CONFLICT DO NOTHING RETURNING id INTO v_shard_id;
          IF v_shard_id IS NULL THEN
            SELECT a.id INTO v_shard_id FROM ledger_accounts a
            WHERE a.owner_type = p_owner_types[i] AND a.owner_id = p_owner_ids[i] AND a.currency = v_currencies[i] AND a.mode = p_mode AND a.shard = v_shard;
          END IF;
        END IF;
        IF v_shard_id IS NOT NULL THEN
          v_ids[i] := v_shard_id;
        END IF;
      END IF;
    ELSIF v_ranks[i] > 0 AND NOT v_may_go_negative[i] AND v_amounts[i] < 0 THEN
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

  IF array_length(v_debited, 1) IS NOT NULL THEN
    -- A merchant's wallet is debited: lock it with its inflow shards that hold money (and the
    -- other legs), then move what those shards hold into the main account within this transfer.
    -- Empty shards are left alone (a merchant that only pays out locks no shard): a credit that
    -- reaches one meanwhile simply waits for a later sweep.
    SELECT v_early || coalesce(array_agg(s.id), '{}') INTO v_early
    FROM ledger_accounts m CROSS JOIN LATERAL (
      SELECT acc.id FROM ledger_accounts acc
      WHERE acc.owner_type = m.owner_type AND acc.owner_id = m.owner_id AND acc.currency = m.currency AND acc.mode = m.mode AND acc.shard > 0
        AND acc.balance > 0
      OFFSET 0) s
    WHERE m.id = ANY (v_debited);
    PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_early) ORDER BY lock_rank, id FOR NO KEY UPDATE;
    FOR v_sweep IN
      SELECT s.id AS shard_id, m.id AS main_id, m.currency, s.balance
      FROM ledger_accounts m CROSS JOIN LATERAL (
        SELECT acc.id, acc.balance FROM ledger_accounts acc
        WHERE acc.owner_type = m.owner_type AND acc.owner_id = m.owner_id AND acc.currency = m.currency AND acc.mode = m.mode AND acc.shard > 0
        OFFSET 0) s
      WHERE m.id = ANY (v_debited) AND s.id = ANY (v_early) AND s.balance > 0
      ORDER BY s.id
    LOOP
      v_ids := v_ids || ARRAY[v_sweep.shard_id, v_sweep.main_id];
      v_currencies := v_currencies || ARRAY[v_sweep.currency, v_sweep.currency];
      v_amounts := v_amounts || ARRAY[-v_sweep.balance, v_sweep.balance];
    END LOOP;
  END IF;

  -- Phase one: lock and check the early accounts in (lock_rank, id) order.
  IF array_length(v_early, 1) IS NOT NULL THEN
    SELECT a.id INTO v_bad
    FROM (SELECT acc.id, acc.balance, acc.allow_negative FROM ledger_accounts acc
          WHERE acc.id = ANY (v_early) ORDER BY acc.lock_rank, acc.id FOR NO KEY UPDATE) a
    JOIN (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, v_amounts) AS l (a, m) GROUP BY l.a) d ON d.a = a.id
    WHERE NOT ledger_balance_allows(a.balance, a.allow_negative, d.delta::bigint)
    ORDER BY a.id LIMIT 1;
  END IF;

  IF v_bad IS NOT NULL THEN
    -- Checked after the locks: a retry of a transfer that already went through is a success,
    -- even though its debit would no longer fit.
    SELECT fingerprint INTO v_existing FROM ledger_transfers WHERE id = p_id;
    IF FOUND THEN
      RETURN QUERY SELECT CASE WHEN v_existing = v_fingerprint THEN 'exists' ELSE 'exists_with_different_legs' END, NULL::bigint;
    ELSE
      RETURN QUERY SELECT 'insufficient_funds'::text, v_bad;
    END IF;
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

  INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
  SELECT p_id, l.ord, l.a, l.c, l.m FROM unnest(v_ids, v_currencies, v_amounts) WITH ORDINALITY AS l (a, c, m, ord);

  -- Phase two: the late accounts, in (lock_rank, id) order, then every balance moves.
  IF array_length(v_late, 1) IS NOT NULL THEN
    PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_late) ORDER BY lock_rank, id FOR NO KEY UPDATE;
  END IF;
  UPDATE ledger_accounts a SET balance = a.balance + d.delta
  FROM (SELECT l.a, sum(l.m) AS delta FROM unnest(v_ids, v_amounts) AS l (a, m) GROUP BY l.a) d
  WHERE a.id = d.a;

  RETURN QUERY SELECT 'created'::text, NULL::bigint;
END
$$;

-- Path 1 for many transfers at once: people's wallets paying ONE merchant's wallet, in one
-- currency, each transfer the two legs path 1 writes (payer -amount, merchant +amount), posted in
-- four statements whatever their number (offline_post_taps: a kiosk's push of 100 taps).
--
-- The caller has already decided, in order, which transfers go through: it holds the payers' main
-- accounts locked (FOR NO KEY UPDATE, taken before any merchant account), read their balances
-- under those locks, and kept only transfers whose debit fits the balance left by the ones before
-- (ledger_balance_allows), whose id is not posted yet, and whose payer's main account and the
-- merchant's inflow shard of this connection exist; everything else went through
-- ledger_post_transfer one by one. So this function refuses nothing a rule would refuse: it
-- checks the same rules again, set-based (the summed debit of each payer under its row lock, the
-- accounts' kind, the amounts), and raises if one fails, which only a caller's bug can cause.
-- The rows are those path 1 writes, transfer by transfer: the same transfer rows (fingerprint from
-- ledger_fingerprint), the same two postings each, the same balances (each payer's main account
-- -sum, the merchant's shard +sum). A posted id raises unique_violation, as path 1 does.
CREATE OR REPLACE FUNCTION ledger_post_person_to_merchant_batch(
  p_ids text[], p_mode text, p_kind text, p_payer_wallet_ids text[], p_payer_accounts bigint[],
  p_merchant_wallet_id text, p_shard_account bigint, p_currency text, p_amounts bigint[], p_metadata jsonb[]
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := coalesce(array_length(p_ids, 1), 0);
  v_rows integer;
BEGIN
  IF v_count = 0 THEN
    RETURN;
  END IF;
  IF v_count <> coalesce(array_length(p_payer_wallet_ids, 1), 0) OR v_count <> coalesce(array_length(p_payer_accounts, 1), 0)
     OR v_count <> coalesce(array_length(p_amounts, 1), 0) OR v_count <> coalesce(array_length(p_metadata, 1), 0)
     OR EXISTS (SELECT 1 FROM unnest(p_amounts) AS m WHERE m IS NULL OR m <= 0) THEN
    RAISE EXCEPTION 'ledger_post_person_to_merchant_batch: % transfers with arguments of other lengths or an amount not above zero', v_count;
  END IF;

  -- Every payer's main account debited by its summed amount, checked under its row lock.
  UPDATE ledger_accounts a SET balance = a.balance + d.delta
  FROM (SELECT l.a, l.o, -sum(l.m)::bigint AS delta FROM unnest(p_payer_accounts, p_payer_wallet_ids, p_amounts) AS l (a, o, m) GROUP BY l.a, l.o) d
  WHERE a.id = d.a AND a.owner_type = 'wallet' AND a.owner_id = d.o AND a.currency = p_currency AND a.mode = p_mode
    AND a.shard = 0 AND a.lock_rank = 0 AND ledger_balance_allows(a.balance, a.allow_negative, d.delta);
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  IF v_rows <> (SELECT count(*) FROM (SELECT DISTINCT l.a, l.o FROM unnest(p_payer_accounts, p_payer_wallet_ids) AS l (a, o)) x) THEN
    RAISE EXCEPTION 'ledger_post_person_to_merchant_batch: a payer account is not a person''s main account in % % or cannot take its debits', p_currency, p_mode;
  END IF;

  INSERT INTO ledger_transfers (id, mode, kind, fingerprint, metadata)
  SELECT l.id, p_mode, p_kind,
         ledger_fingerprint(p_kind, ARRAY['wallet', 'wallet'], ARRAY[l.o, p_merchant_wallet_id], ARRAY[p_currency, p_currency], ARRAY[-l.m, l.m]),
         coalesce(l.meta, '{}'::jsonb)
  FROM unnest(p_ids, p_payer_wallet_ids, p_amounts, p_metadata) AS l (id, o, m, meta);

  INSERT INTO ledger_postings (transfer_id, leg, account_id, currency, amount)
  SELECT l.id, g.leg, CASE WHEN g.leg = 1 THEN l.a ELSE p_shard_account END, p_currency, CASE WHEN g.leg = 1 THEN -l.m ELSE l.m END
  FROM unnest(p_ids, p_payer_accounts, p_amounts) AS l (id, a, m)
  CROSS JOIN (VALUES (1::smallint), (2::smallint)) AS g (leg);

  -- The merchant's inflow shard credited last (path 1's last statement): held only to the commit.
  UPDATE ledger_accounts a SET balance = a.balance + (SELECT sum(m) FROM unnest(p_amounts) AS m)::bigint
  WHERE a.id = p_shard_account AND a.owner_type = 'wallet' AND a.owner_id = p_merchant_wallet_id AND a.currency = p_currency
    AND a.mode = p_mode AND a.shard > 0 AND a.lock_rank = 1 AND NOT a.allow_negative;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger_post_person_to_merchant_batch: account % is not an inflow shard of wallet % in % %', p_shard_account, p_merchant_wallet_id, p_currency, p_mode;
  END IF;
END
$$;
