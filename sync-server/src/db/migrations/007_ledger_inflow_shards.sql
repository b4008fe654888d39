-- A busy merchant's wallet takes its credits on several rows (inflow shards), and the money
-- functions plan their statements once per connection.
--
-- 1. Inflow shards. Every POS tap (and every other payment to a merchant) credits the merchant's
-- wallet. With one row per wallet and currency, every such transaction queues on that row's lock
-- until the one before it has committed, and a commit waits for the WAL flush: a merchant could
-- take no more payments per second than the disk flushes per second, whatever the hardware
-- (bench:pos measured one hot row at 0.4x the throughput of payments spread over many wallets).
-- Now a credit to a merchant's wallet (lock_rank 1, never negative) lands on one of its
-- c_inflow_shards (16) extra accounts, chosen from the transfer id, so concurrent payments to one
-- merchant lock different rows and their commits share WAL flushes.
--   - The shards are ordinary ledger accounts of the same (owner_type, owner_id, currency, mode),
--     told apart by `shard` (0 is the main account). A wallet's balance in a currency is the sum
--     of its rows; every reader sums (ledger.ts walletBalances, accountBalance).
--   - A debit of a merchant's wallet first locks its main account and its shards that hold money (in the
--     ledger's (lock_rank, id) order) and sweeps the shards into the main account inside the same
--     transfer (extra legs shard -b / main +b, so the transfer still balances), then checks the
--     debit against the main account. Every account therefore stays >= 0, as before.
--   - The legs the caller passed (and its fingerprint) are unchanged; only postings show shards.
--
-- 2. Generic plans. PL/pgSQL caches each statement's plan, but by default (plan_cache_mode
-- auto) it builds a custom plan on every call when that plan looks cheaper than the generic one.
-- The ledger's statements take their legs as arrays: a custom plan knows an array holds 2 legs,
-- the generic plan guesses 10, so the custom plan always won and every transfer re-planned its
-- statements. Measured with pgbench on ledger_post_transfer alone (one client, backend CPU per
-- call): about half of it was planning. Generic plans must not depend on the table's size: the
-- per-leg account lookups are LATERAL subqueries with LIMIT/OFFSET so that each stays one key
-- lookup (as a plain join on a small ledger the generic plan scanned the whole owner index:
-- 1.7 ms per call in bench:pos, found with pg_stat_statements; 0.08 ms now).

-- Room on every page for the new versions of updated balances, so updates stay HOT (no index
-- entry) and a hot page holds fewer accounts; balances are updated far more often than inserted.
ALTER TABLE ledger_accounts SET (fillfactor = 50);
ALTER TABLE ledger_accounts ADD COLUMN shard smallint NOT NULL DEFAULT 0 CHECK (shard BETWEEN 0 AND 64);
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_owner_type_owner_id_currency_mode_key;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_owner_key UNIQUE (owner_type, owner_id, currency, mode, shard);

DROP FUNCTION ledger_post_transfer(text, text, text, text[], text[], text[], bigint[], text, jsonb);
CREATE FUNCTION ledger_post_transfer(
  p_id text, p_mode text, p_kind text,
  p_owner_types text[], p_owner_ids text[], p_currencies text[], p_amounts bigint[],
  p_fingerprint text, p_metadata jsonb
) RETURNS TABLE (result text, account_id bigint) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  -- How many inflow shards a merchant's wallet spreads its credits over (per currency and mode).
  c_inflow_shards constant integer := 16;
  v_legs integer := coalesce(array_length(p_amounts, 1), 0);
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
    -- One key lookup per leg whatever the table's size: as a plain join, the generic plan
    -- (which guesses 10 legs) scanned the whole owner index of a small ledger on every call.
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
        -- A credit to a merchant's wallet goes to one of its inflow shards (see the header).
        v_shard := 1 + abs(hashtext(p_id)) % c_inflow_shards;
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

ALTER FUNCTION pos_tap(uuid, text, text, text, text, text, timestamptz, text, boolean)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION payments_insert_with_debits(jsonb, jsonb)
  SET plan_cache_mode = force_generic_plan;
