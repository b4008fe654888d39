-- Merchant users: the people who sign in to the dashboard (/dashboard) for a merchant. One
-- e-mail address belongs to one merchant. Passwords are hashed with scrypt (like wallet PINs),
-- TOTP secrets are sealed (AES-256-GCM, SECRETS_KEY) because the server must read them again.
CREATE TABLE merchant_users (
  id text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants (id),
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  role text NOT NULL CHECK (role IN ('owner', 'manager', 'viewer')),
  -- NULL until the user follows the set-up or invitation link and chooses a password.
  password_hash text,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  totp_secret_sealed text,
  -- A secret being enrolled: it becomes totp_secret_sealed once a code from it is confirmed.
  totp_pending_sealed text,
  -- The last TOTP time step accepted: a code is never accepted twice.
  totp_last_step bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz
);
CREATE INDEX merchant_users_merchant ON merchant_users (merchant_id);

-- One-time links: the owner's set-up link (admin provisioning) and staff invitations. Stored as
-- SHA-256 of the token; used once.
CREATE TABLE merchant_user_links (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES merchant_users (id),
  purpose text NOT NULL CHECK (purpose IN ('setup', 'invite', 'reset')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX merchant_user_links_user ON merchant_user_links (user_id);

-- Dashboard sessions (cookie tapline_session): SHA-256 of the token. A session ends when idle
-- past the idle timeout, at expires_at (absolute), or when revoked (sign-out, sign-out everywhere,
-- the user removed or its role changed).
CREATE TABLE merchant_user_sessions (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES merchant_users (id),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX merchant_user_sessions_user ON merchant_user_sessions (user_id);
