-- Gift cards sold at a kiosk terminal (shared/src/sync-protocol.ts, GiftCardSaleDoc). The
-- terminal makes the code, prints it and sends only its SHA-256 (a code's hash is not a secret:
-- 256 random bits cannot be guessed from it); the sale is settled when the
-- terminal syncs: the card is issued from the merchant's wallet with that hash, or the sale is
-- declined with its reason. The id is the terminal's: a replayed push never issues twice.

ALTER TABLE gift_cards DROP CONSTRAINT gift_cards_source_check;
ALTER TABLE gift_cards ADD CONSTRAINT gift_cards_source_check CHECK (source IN ('single', 'bulk', 'import', 'program', 'reward', 'terminal'));

CREATE TABLE terminal_gift_card_sales (
  id uuid PRIMARY KEY,
  terminal_id text NOT NULL REFERENCES terminals (id),
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- SHA-256 of the printed code (as gift_cards.code_hash): the terminal's document carries it too.
  code_hash text NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  code_prefix text NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  design_theme text,
  message text,
  captured_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('accepted', 'declined')),
  card_id text REFERENCES gift_cards (id),
  card_expires_at timestamptz,
  decline_code text,
  decline_reason text,
  settled_at timestamptz NOT NULL,
  server_seq bigint NOT NULL,
  CHECK ((status = 'accepted') = (card_id IS NOT NULL))
);
CREATE UNIQUE INDEX terminal_gift_card_sales_seq ON terminal_gift_card_sales (terminal_id, server_seq);
CREATE INDEX terminal_gift_card_sales_merchant ON terminal_gift_card_sales (merchant_id, mode, received_at DESC);
