-- From here on every database function is defined once, in sync-server/src/db/functions/*.sql,
-- and applied with CREATE OR REPLACE after the migrations on every start (db/migrate.ts). The
-- definitions in migrations 001, 003, 004, 005, 007, 008, 010, 014, 016 and 018 are history,
-- superseded by that folder. This migration drops what the folder no longer defines or defines
-- with another signature (CREATE OR REPLACE cannot change a signature):
--   - ledger_post_transfer builds the fingerprint itself (ledger_fingerprint): no p_fingerprint;
--   - ledger_post_person_to_merchant is folded into ledger_post_transfer (its first path);
--   - offline_post_taps no longer takes fingerprints;
--   - pos_tap writes a callback session's event itself: no p_callbacks_allowed, and it takes
--     the event's ids and the currencies' exponents.
DROP FUNCTION pos_tap(uuid, text, text, text, text, text, timestamptz, text, boolean, text);
DROP FUNCTION offline_post_taps(text, text, text, text[], text[], bigint[], text[], jsonb[], integer[], bigint[]);
DROP FUNCTION ledger_post_person_to_merchant(text, text, text, text, text, text, bigint, text, jsonb);
DROP FUNCTION ledger_post_transfer(text, text, text, text[], text[], text[], bigint[], text, jsonb);
