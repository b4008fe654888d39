-- The ledger's rules, each written once: every function that moves money calls these.

-- How many inflow shards a merchant's wallet spreads its credits over (per currency and mode).
-- ledger_accounts.shard is 0 for the main account and 1..this for the shards.
CREATE OR REPLACE FUNCTION ledger_inflow_shard_count() RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 16
$$;

-- The one shard rule: a credit to a merchant's wallet lands on the shard of this database
-- connection (1 + backend pid % count), not one chosen from the transfer id. A server's pool has
-- about ten connections, so concurrent payments to one merchant almost never queue on the same
-- shard row (with shards chosen at random two of ten often met on one row: bench:pos measured
-- 0.6 ms of lock wait per tap). PGlite has one connection, hence one shard.
CREATE OR REPLACE FUNCTION ledger_inflow_shard() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT (1 + pg_backend_pid() % ledger_inflow_shard_count())::smallint
$$;

-- The one transfer fingerprint: the kind, '|', the legs "owner_type/owner_id/currency:amount"
-- sorted in code-unit order (COLLATE "C") and joined by ','. A retry with the same transfer id
-- must carry the same fingerprint ('exists'); another one is 'exists_with_different_legs'.
-- PL/pgSQL rather than SQL: a SQL function with a subquery is not inlined and re-plans on every
-- call, which bench:pos measured; two legs (nearly every transfer) need no sort at all.
CREATE OR REPLACE FUNCTION ledger_fingerprint(
  p_kind text, p_owner_types text[], p_owner_ids text[], p_currencies text[], p_amounts bigint[]
) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v_first text;
  v_second text;
BEGIN
  IF cardinality(p_amounts) = 2 THEN
    v_first := p_owner_types[1] || '/' || p_owner_ids[1] || '/' || p_currencies[1] || ':' || p_amounts[1]::text;
    v_second := p_owner_types[2] || '/' || p_owner_ids[2] || '/' || p_currencies[2] || ':' || p_amounts[2]::text;
    RETURN p_kind || '|' || CASE WHEN v_first COLLATE "C" <= v_second COLLATE "C" THEN v_first || ',' || v_second
                                 ELSE v_second || ',' || v_first END;
  END IF;
  RETURN (SELECT p_kind || '|' || string_agg(l.leg, ',' ORDER BY l.leg COLLATE "C")
          FROM (SELECT t || '/' || o || '/' || c || ':' || m::text AS leg
                FROM unnest(p_owner_types, p_owner_ids, p_currencies, p_amounts) AS x (t, o, c, m)) l);
END
$$;

-- The one "balance >= 0" rule: whether an account may take `delta` (negative: a debit). Only
-- system accounts may go negative. The ledger checks it under the account's row lock before
-- anything is written; the CHECK constraint wallet_balance_must_not_be_negative on
-- ledger_accounts (migration 001) is the database's last line of defence behind it.
CREATE OR REPLACE FUNCTION ledger_balance_allows(p_balance bigint, p_allow_negative boolean, p_delta bigint)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_allow_negative OR p_balance + p_delta >= 0
$$;

-- Transfers and postings are never updated or deleted: a mistake is corrected by another transfer.
CREATE OR REPLACE FUNCTION ledger_forbid_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable: post a correcting transfer instead', TG_TABLE_NAME;
END
$$;
