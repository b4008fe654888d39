-- Issue 30: a customer's consent holds offline too.
--
-- One no-PIN budget per tag and UTC day, spent by online taps and offline settlements alike
-- (db/functions/no_pin_budget.sql). The latest day stays in no_pin_day / no_pin_spent, which
-- pos_tap's one UPDATE reads and writes; the days before it (the last 31, the longest an offline
-- payment may wait) move into no_pin_history {"YYYY-MM-DD": minor units} when a later day starts,
-- so an offline tap that reaches the server days after it was taken still meets its own day's total.
ALTER TABLE wearables ADD COLUMN no_pin_history jsonb NOT NULL DEFAULT '{}'::jsonb;

-- The merchants a tag pays without its holder's PIN (modules/wearables/README.md, "Who may charge
-- a tag without its PIN"): the merchant that registered it with the holder's consent
-- ('registered'), each merchant the holder has since paid by tapping it with her PIN ('pin'), and
-- those the holder added herself ('holder'). Any other merchant's tap needs the PIN online and is
-- declined pin_required offline.
CREATE TABLE wearable_merchants (
  tag_id text NOT NULL REFERENCES wearables (tag_id) ON DELETE CASCADE,
  merchant_id text NOT NULL REFERENCES merchants (id),
  source text NOT NULL CHECK (source IN ('registered', 'pin', 'holder')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tag_id, merchant_id)
);
CREATE INDEX wearable_merchants_merchant ON wearable_merchants (merchant_id);

-- Tags registered before this list existed: the registering merchant, when the holder agreed
-- (her PIN), the tag is a sandbox one (the spec's flow), or the wallet is the merchant's own.
INSERT INTO wearable_merchants (tag_id, merchant_id, source, created_at)
SELECT tag_id, merchant_id, 'registered', linked_at FROM wearables
WHERE merchant_id IS NOT NULL AND consent IN ('holder_pin', 'test_mode', 'own_wallet');

-- offline_post_taps now also spends each tap's no-PIN day budget (new arguments).
-- (IF EXISTS: on a new database the folder has not defined it yet when this runs.)
DROP FUNCTION IF EXISTS offline_post_taps(text, text, text, text[], text[], bigint[], jsonb[], integer[], bigint[]);

-- A terminal's offline total is now a budget per UTC day of capture, not per connection: the
-- contacts that bounded the old windows are not needed.
DROP TABLE terminal_contacts;
