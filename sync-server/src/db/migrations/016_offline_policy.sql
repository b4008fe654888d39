-- The server enforces the offline policy it hands terminals (modules/offline/policy.ts).
--
-- Each sync connection of a terminal is a contact with the server. The offline taps a terminal
-- captured between the start of one contact and the start of the next (its offline window) add up
-- to at most its `total` limit, checked at settlement. The contacts are kept here, written when a
-- terminal's handshake is accepted, with the application's clock.
CREATE TABLE terminal_contacts (
  terminal_id text NOT NULL REFERENCES terminals (id),
  connected_at timestamptz NOT NULL,
  PRIMARY KEY (terminal_id, connected_at)
);

-- The accepted offline taps of a terminal by capture time: what one window already took.
CREATE INDEX offline_payments_terminal_taps ON offline_payments (terminal_id, captured_at)
  INCLUDE (amount) WHERE status = 'accepted' AND kind = 'tap';

-- The offline taps of one push, posted in one call (a kiosk back online pushes 100 at a time):
-- each tap, in the order given (the order the terminal took them), spends its offline window's
-- budget and posts its transfer by ledger_post_person_to_merchant, the ledger's person-to-merchant
-- path. A tap over what its window has left is not posted (offline_exposure_limit), and a tap the
-- ledger refuses (insufficient_funds) spends nothing. Answers each tap's result: created, exists,
-- offline_exposure_limit, or the ledger rule that failed. The caller's transaction stays usable.
CREATE FUNCTION offline_post_taps(
  p_mode text, p_merchant_wallet_id text, p_currency text, p_transfer_ids text[], p_payer_wallet_ids text[],
  p_amounts bigint[], p_fingerprints text[], p_metadata jsonb[], p_windows integer[], p_budgets bigint[]
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
      v_result := ledger_post_person_to_merchant(p_transfer_ids[i], p_mode, 'offline_tap', p_payer_wallet_ids[i], p_merchant_wallet_id,
        p_currency, p_amounts[i], p_fingerprints[i], p_metadata[i]);
      IF v_result IN ('created', 'exists') THEN
        v_budgets[p_windows[i]] := v_budgets[p_windows[i]] - p_amounts[i];
      END IF;
    END IF;
    v_results := v_results || v_result;
  END LOOP;
  RETURN v_results;
END
$$;

-- One voucher pays once: the unique index need not hold the accepted taps, which have no voucher
-- (NULLs never conflict); every settled tap was writing an entry into it.
DROP INDEX offline_payments_voucher_once;
CREATE UNIQUE INDEX offline_payments_voucher_once ON offline_payments (voucher_id) WHERE status = 'accepted' AND voucher_id IS NOT NULL;
