-- Creates payments and posts their debits in ONE statement: the hot path of POST /api/pay, a thin
-- caller of ledger_post_transfer. The server groups concurrent payments that lock the same
-- accounts (one merchant wallet, one currency pair) into one call, so the hot merchant and system
-- rows are locked once and committed once for the whole group (group commit); run in autocommit,
-- PostgreSQL releases those locks at the end of the statement, never across a client round trip.
-- Each payment stands alone: a payment whose id exists already answers 'payment_exists' (nothing
-- posted); a debit the ledger refuses (insufficient_funds...) removes that payment's row and
-- answers the rule; the others go through. p_payments: a JSON array of payments rows;
-- p_transfers: a JSON array of the ledger_post_transfer arguments [id, mode, kind, owner_types,
-- owner_ids, currencies, amounts, metadata], one per payment (ledger.ts postPaymentsWithDebits).
CREATE OR REPLACE FUNCTION payments_insert_with_debits(p_payments jsonb, p_transfers jsonb)
RETURNS TABLE (payment_id text, result text, account_id bigint) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_count integer := jsonb_array_length(p_payments);
  v_payment jsonb;
  v_transfer jsonb;
  v_id text;
  v_result text;
  v_account bigint;
BEGIN
  IF v_count <> jsonb_array_length(p_transfers) THEN
    RAISE EXCEPTION 'payments_insert_with_debits: % payments but % transfers', v_count, jsonb_array_length(p_transfers);
  END IF;
  FOR i IN 0 .. v_count - 1 LOOP
    v_payment := p_payments -> i;
    v_transfer := p_transfers -> i;
    v_id := v_payment ->> 'id';
    INSERT INTO payments SELECT * FROM jsonb_populate_record(NULL::payments, v_payment) ON CONFLICT (id) DO NOTHING;
    IF NOT FOUND THEN
      RETURN QUERY SELECT v_id, 'payment_exists'::text, NULL::bigint;
      CONTINUE;
    END IF;
    SELECT t.result, t.account_id INTO v_result, v_account
    FROM ledger_post_transfer(
      v_transfer ->> 0, v_transfer ->> 1, v_transfer ->> 2,
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 3) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 4) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e FROM jsonb_array_elements_text(v_transfer -> 5) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      ARRAY(SELECT e::bigint FROM jsonb_array_elements_text(v_transfer -> 6) WITH ORDINALITY AS x (e, n) ORDER BY x.n),
      v_transfer -> 7
    ) t;
    IF v_result NOT IN ('created', 'exists') THEN
      DELETE FROM payments WHERE id = v_id;
    END IF;
    RETURN QUERY SELECT v_id, v_result, v_account;
  END LOOP;
END
$$;
