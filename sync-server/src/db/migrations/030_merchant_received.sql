-- Money a merchant receives, every way it is paid, for the dashboard's payments view and webhooks
-- (GET /api/merchant/received, modules/merchant-users/received.ts).
--
-- A wallet holder paying a merchant's @handle (the /pay/<handle> page, POST /api/wallet/pay) left
-- only a ledger transfer: it gets a row here, written in the transfer's transaction, so the
-- merchant can list it and its wallet.payment.received event has a record behind it.
CREATE TABLE merchant_wallet_payments (
  -- The ledger transfer's id (wtx_... or the Idempotency-Key's derived id).
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  merchant_wallet_id text NOT NULL REFERENCES wallets (id),
  payer_wallet_id text NOT NULL REFERENCES wallets (id),
  payer_handle text NOT NULL,
  -- Integer minor units of currency.
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  note text,
  created_at timestamptz NOT NULL
);
CREATE INDEX merchant_wallet_payments_merchant ON merchant_wallet_payments (merchant_id, mode, created_at DESC);

-- pos_tap sends every POS session's event to the merchant's webhook URL too (not only to the
-- session's callbackUrl), so it takes a second delivery id: a new signature.
DROP FUNCTION IF EXISTS pos_tap(uuid, text, text, text, text, text, timestamptz, text, text, text, text, jsonb, text);
