-- Cash pickup on Tapline's own agent network (issue 24; docs/payouts.md "Cash pickup"): a live
-- payment on the cash_pickup rail is held in the rail clearing account of the provider `agents`
-- (rail_clearing:agents) until the recipient collects it at an agent of her country with a
-- one-time code, or until it expires (the money goes back to the sender). One row per payment,
-- written when the payment is submitted to the network. The code is stored only as a slow hash,
-- like a PIN; wrong codes count per pickup and lock it for a while after too many.
CREATE TABLE cash_pickups (
  id text PRIMARY KEY,
  payment_id text NOT NULL UNIQUE,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  -- What the agent pays out: the payment's destination amount and currency (minor units).
  amount bigint NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  -- The recipient's country and phone (E.164): only an agent of that country pays, to whoever
  -- gives both the phone and the code.
  country text NOT NULL,
  phone text NOT NULL,
  -- Null until the sender asks for a code; a new code replaces the last.
  code_hash text,
  code_issued_at timestamptz,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paid', 'expired')),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  -- Who paid it, and the platform's commission to it (minor units).
  agent_id text,
  commission bigint NOT NULL DEFAULT 0 CHECK (commission >= 0)
);
-- The agent's look-up: the recipient's active pickups by phone.
CREATE INDEX cash_pickups_active_phone ON cash_pickups (phone, mode) WHERE status = 'active';
CREATE INDEX cash_pickups_agent ON cash_pickups (agent_id, ended_at DESC) WHERE agent_id IS NOT NULL;
