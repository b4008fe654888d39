-- Money a till gives back to a gift card (issue 25: a gift card pays part of a till sale). A
-- redemption is immutable, so what goes back to its card is recorded beside it, one row per
-- return: the whole redemption when the cashier cancels the split sale before it is paid
-- ('tender_return'), or part of it when the till sale is refunded ('refund'). `to_card` is false
-- when the card had ended (expired, cancelled, refunded) and the till gave the amount in cash.
CREATE TABLE gift_card_returns (
  id text PRIMARY KEY,
  redemption_id text NOT NULL REFERENCES gift_card_redemptions (id),
  card_id text NOT NULL REFERENCES gift_cards (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- Minor units of the card's currency.
  amount bigint NOT NULL CHECK (amount > 0),
  reason text NOT NULL CHECK (reason IN ('tender_return', 'refund')),
  to_card boolean NOT NULL,
  refund_id text,
  terminal_id text,
  transfer_id text,
  created_at timestamptz NOT NULL
);
CREATE INDEX gift_card_returns_redemption ON gift_card_returns (redemption_id);
