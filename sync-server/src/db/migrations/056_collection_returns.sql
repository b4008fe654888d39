-- A till sale's collection given back to the phone that paid (POST /api/pos/collections/{id}/return):
-- the cashier cancelled a split sale after its mobile money part was taken, or the provider confirmed
-- a payment after the till had cancelled the collection. The return is a mobile_money payout from the
-- merchant's wallet (a row of payments, its id derived from the collection's), recorded with its debit
-- in the transaction that sets returned_at; a returned collection is never a till sale's tender.
-- return_cashier_id and return_shift_id say who gave it back, in which shift (as a refund's).
ALTER TABLE pos_collections
  ADD COLUMN returned_at timestamptz,
  ADD COLUMN return_payment_id text,
  ADD COLUMN return_cashier_id text,
  ADD COLUMN return_shift_id text;
