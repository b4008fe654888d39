-- A collection's return payout that the provider fails (or reverses after success) gave the
-- merchant's wallet its debit back, but the collection kept returned_at, so the customer's money
-- could not be sent again through POST /api/pos/collections/{id}/return. Now the payment's outcome
-- clears returned_at and return_payment_id in the transaction that fails it (collections' outcome
-- listener), and the next return is a new payout: its id derives from the collection's and the
-- attempt's number (return_attempts counts the payouts sent, so attempt 1 keeps migration 056's id).
ALTER TABLE pos_collections ADD COLUMN return_attempts integer NOT NULL DEFAULT 0;

UPDATE pos_collections SET return_attempts = 1 WHERE return_payment_id IS NOT NULL;

-- Returns whose payout already failed or was reversed before this migration: returnable again.
UPDATE pos_collections AS c
   SET returned_at = NULL, return_payment_id = NULL, return_cashier_id = NULL, return_shift_id = NULL
  FROM payments AS p
 WHERE p.id = c.return_payment_id AND p.status IN ('failed', 'reversed');

-- The outcome listener finds a failed payout's collection by it.
CREATE UNIQUE INDEX pos_collections_return_payment ON pos_collections (return_payment_id) WHERE return_payment_id IS NOT NULL;
