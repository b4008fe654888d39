-- Gift cards (spec: "Gift card", its state table, the gift-card endpoints; CONTRACT.md, Gift cards):
-- cards and their redemptions, B2B programs, cashback reward rules, subscription plans that a
-- card can gift, and the counter that makes guessing codes at the public verify useless.
--
-- Every time column is written from the application's clock (context.now()), never from the
-- database's now(): expiry, scheduled delivery, PIN lock-outs and the 24-hour issue limit all
-- follow one injectable clock.

-- A plan a merchant sells by the month. The subscriptions module does not exist yet: a gift card
-- can carry a plan, and redeeming it records an activation (below) instead of crediting a wallet.
CREATE TABLE subscription_plans (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  -- Integer minor units of `currency` per month.
  price bigint NOT NULL CHECK (price > 0),
  currency text NOT NULL,
  billing_interval text NOT NULL DEFAULT 'month' CHECK (billing_interval IN ('month')),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX subscription_plans_merchant ON subscription_plans (merchant_id, mode, created_at);

-- A B2B program: a named group of cards a merchant issues to employees (or any list of handles).
CREATE TABLE gift_card_programs (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX gift_card_programs_merchant ON gift_card_programs (merchant_id, mode, created_at);

-- A cashback rule: a spend of at least min_spend in `currency` earns percent of it (capped at
-- max_reward) as a gift card locked to the customer.
CREATE TABLE gift_card_reward_rules (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  -- Integer minor units of `currency`.
  min_spend bigint NOT NULL CHECK (min_spend >= 0),
  -- Exact decimal string, 0 < percent <= 100, at most 2 decimals.
  percent text NOT NULL,
  max_reward bigint CHECK (max_reward IS NULL OR max_reward > 0),
  currency text NOT NULL,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX gift_card_reward_rules_merchant ON gift_card_reward_rules (merchant_id, mode, status, currency);

CREATE TABLE gift_cards (
  id text PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- The code (gc_ + 64 hex, 256 random bits) is returned once and stored only as its SHA-256.
  code_hash text NOT NULL UNIQUE CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  -- The first 10 characters of the code (gc_ + 7 hex): enough to recognise a card, useless to redeem it.
  code_prefix text NOT NULL,
  -- Who issued the card and whose wallet paid for it: a merchant (issuer_id = merchant id), a
  -- wallet holder (issuer_id = wallet id) or an agent (issuer_id = agent id).
  issuer_type text NOT NULL CHECK (issuer_type IN ('merchant', 'wallet', 'agent')),
  issuer_id text NOT NULL,
  -- No foreign keys to wallets on purpose (here and in gift_card_redemptions): each check would
  -- take a KEY SHARE lock on a busy merchant's wallet row at every card issued or redeemed (the
  -- reason ledger_postings and pos_sessions have none). The service writes only ids it just read.
  issuer_wallet_id text NOT NULL,
  issuer_handle text NOT NULL,
  -- How it was issued: single issue (the one the 24-hour limit counts), bulk, import, program, reward.
  source text NOT NULL CHECK (source IN ('single', 'bulk', 'import', 'program', 'reward')),
  batch_id text,
  program_id text REFERENCES gift_card_programs (id),
  external_ref text,
  reward_rule_id text REFERENCES gift_card_reward_rules (id),
  -- Integer minor units of `currency`: the value issued and what is left of it.
  amount bigint NOT NULL CHECK (amount > 0),
  amount_remaining bigint NOT NULL CHECK (amount_remaining >= 0 AND amount_remaining <= amount),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('scheduled', 'active', 'used', 'expired', 'cancelled', 'refunded')),
  message text CHECK (message IS NULL OR char_length(message) <= 160),
  -- scrypt, like wallet PINs; checked outside transactions.
  pin_hash text,
  failed_pin_attempts integer NOT NULL DEFAULT 0,
  pin_locked_until timestamptz,
  locked_to_handle text,
  design_theme text NOT NULL DEFAULT 'default' CHECK (design_theme IN ('default', 'birthday', 'business', 'celebration')),
  brand jsonb,
  multi_merchant boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  -- Scheduled delivery: the row is the job. At deliver_at the card is redeemed in full into the
  -- recipient's wallet by whichever worker claims it first (FOR UPDATE SKIP LOCKED).
  deliver_to_handle text,
  deliver_to_wallet_id text,
  deliver_at timestamptz,
  delivered_at timestamptz,
  delivery_attempts integer NOT NULL DEFAULT 0,
  delivery_next_attempt_at timestamptz,
  delivery_error text,
  -- Subscription gift: redeeming activates the plan for giftMonths instead of crediting a wallet.
  subscription_plan_id text REFERENCES subscription_plans (id),
  gift_months integer CHECK (gift_months IS NULL OR gift_months BETWEEN 1 AND 24),
  -- The ledger transfer that funded the card (shared by every card of a batch).
  issue_transfer_id text NOT NULL,
  -- When the card left the active states (used, expired, cancelled, refunded), why, and the
  -- transfer that returned its remaining balance to the issuer (expired, cancelled, refunded).
  ended_at timestamptz,
  end_reason text,
  end_transfer_id text,
  returned_amount bigint NOT NULL DEFAULT 0 CHECK (returned_amount >= 0),
  first_redeemed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((deliver_at IS NULL) = (deliver_to_handle IS NULL)),
  CHECK ((subscription_plan_id IS NULL) = (gift_months IS NULL))
);
CREATE INDEX gift_cards_issuer ON gift_cards (issuer_wallet_id, created_at);
CREATE INDEX gift_cards_issuer_type ON gift_cards (issuer_type, issuer_id, created_at);
CREATE INDEX gift_cards_created ON gift_cards (created_at, id);
CREATE INDEX gift_cards_batch ON gift_cards (batch_id) WHERE batch_id IS NOT NULL;
CREATE INDEX gift_cards_program ON gift_cards (program_id) WHERE program_id IS NOT NULL;
-- A program never issues the same externalRef twice: a retried row is skipped, even concurrently.
CREATE UNIQUE INDEX gift_cards_program_external_ref ON gift_cards (program_id, external_ref)
  WHERE program_id IS NOT NULL AND external_ref IS NOT NULL;
-- The expiry job and the expiry applied on reads look only at active cards past their time.
CREATE INDEX gift_cards_expiring ON gift_cards (expires_at) WHERE status = 'active';
-- The delivery job looks only at scheduled cards.
CREATE INDEX gift_cards_due ON gift_cards (deliver_at) WHERE status = 'scheduled';

-- One row per redemption (spec: amount_drawn, credited_amount, credited currency, fx_rate,
-- redeemer, timestamp). Immutable.
CREATE TABLE gift_card_redemptions (
  id text PRIMARY KEY,
  card_id text NOT NULL REFERENCES gift_cards (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- Minor units of the card's currency.
  amount_drawn bigint NOT NULL CHECK (amount_drawn > 0),
  -- Minor units of credited_currency (0 for a subscription activation: no wallet is credited).
  credited_amount bigint NOT NULL CHECK (credited_amount >= 0),
  credited_currency text NOT NULL,
  -- Exact decimal string: credited = floor(drawn x fx_rate) in minor units; '1' without conversion.
  fx_rate text NOT NULL,
  fx_as_of text,
  redeemer_wallet_id text NOT NULL,
  redeemer_handle text NOT NULL,
  -- The credential that redeemed: merchant, terminal, wallet, agent, or delivery (the scheduler).
  redeemer_kind text NOT NULL CHECK (redeemer_kind IN ('merchant', 'terminal', 'wallet', 'agent', 'delivery')),
  terminal_id text,
  transfer_id text NOT NULL,
  subscription_activation_id text,
  created_at timestamptz NOT NULL
);
CREATE INDEX gift_card_redemptions_card ON gift_card_redemptions (card_id, created_at);

CREATE FUNCTION gift_card_redemptions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'gift card redemptions are immutable';
END
$$;
CREATE TRIGGER gift_card_redemptions_no_change BEFORE UPDATE OR DELETE ON gift_card_redemptions
  FOR EACH ROW EXECUTE FUNCTION gift_card_redemptions_immutable();

-- A subscription plan activated by redeeming a subscription gift card.
CREATE TABLE subscription_activations (
  id text PRIMARY KEY,
  plan_id text NOT NULL REFERENCES subscription_plans (id),
  card_id text NOT NULL UNIQUE REFERENCES gift_cards (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  wallet_id text NOT NULL REFERENCES wallets (id),
  handle text NOT NULL,
  months integer NOT NULL CHECK (months > 0),
  -- An activation of a plan the holder already has running extends it from its end.
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX subscription_activations_wallet ON subscription_activations (plan_id, wallet_id, ends_at);

-- Verify answers for unknown codes, per client IP and fixed window: after too many, the IP is
-- refused at the public verify until the window ends (on top of the spec's per-minute limits).
CREATE TABLE gift_card_verify_misses (
  ip text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);
