-- Verification tiers of customer wallets (issue 26 item 4, docs/wallet-tiers.md). A person's wallet
-- has a tier whose limits (a maximum balance, and what may come in and go out in any 24 hours) are
-- defined in shared/src/wallet-tiers.ts and the configuration, not here: `tier` NULL means the
-- configured default tier (WALLET_TIER_DEFAULT), so every existing wallet has it until an
-- administrator sets another (PUT /api/admin/wallets/{handle}/tier).
ALTER TABLE wallets ADD COLUMN tier smallint CHECK (tier BETWEEN 1 AND 3);
ALTER TABLE wallets ADD COLUMN tier_changed_at timestamptz;

-- The movements the tiers count, one row per movement (its id: the top-up's, the withdrawal's, the
-- agent's operation's or the payment's transfer id, so a retry counts once), written in the
-- movement's transaction under the wallet row's lock. `counted` is the amount in the wallet's own
-- currency (the movement's converted at the FX mid rate when it is in another one). A top-up is
-- `held` from its request until the provider answers (its `held_until`: the collection's expiry),
-- then `counted`, or `released` when it fails; a withdrawal that fails or is reversed is `released`.
-- `beyond_limit`: credited although the limits were reached meanwhile (a top-up the holder paid is
-- never refused once paid). Times are the app's clock.
CREATE TABLE wallet_tier_movements (
  id text PRIMARY KEY,
  wallet_id text NOT NULL REFERENCES wallets (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  direction text NOT NULL CHECK (direction IN ('in', 'out')),
  kind text NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  counted bigint NOT NULL CHECK (counted >= 0),
  state text NOT NULL CHECK (state IN ('held', 'counted', 'released')),
  held_until timestamptz,
  beyond_limit boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX wallet_tier_movements_wallet ON wallet_tier_movements (wallet_id, created_at);
