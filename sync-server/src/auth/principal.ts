import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import type { Database } from '../db/database.ts';
import { type Mode, constantTimeEqual, merchantKeyMode, publishableKeyMode, sha256Hex } from './secrets.ts';
import { rememberedLookup } from './credential-cache.ts';

/** Who is calling, as established from the request's credential. Every non-admin principal has a mode. */
/** A dashboard session behind a merchant principal (modules/merchant-users): who signed in and their role. */
export interface MerchantSessionInfo {
  userId: string;
  role: 'owner' | 'manager' | 'viewer';
  /** SHA-256 of the session token (sign-out revokes it). */
  tokenHash: string;
  /** The token the dashboard must echo in x-csrf-token on every state-changing call. */
  csrfToken: string;
}

export type Principal =
  /** keyId is the API key's id, or `user:<id>` for a dashboard session (then `session` is set). */
  | { kind: 'merchant'; merchantId: string; handle: string; mode: Mode; keyId: string; rateLimitMultiplier: number; session?: MerchantSessionInfo }
  | { kind: 'terminal'; terminalId: string; merchantId: string; handle: string; mode: Mode; rateLimitMultiplier: number }
  | { kind: 'wallet'; walletId: string; handle: string; mode: Mode; sessionHash: string }
  | { kind: 'agent'; agentId: string; walletId: string; handle: string; mode: Mode }
  | { kind: 'admin' }
  /**
   * A publishable key from a merchant's web page (the /sdk/service.js drop-in). It is public, so
   * it is admitted only where a route lists 'publishable' in config.auth (the checkout sessions);
   * hooks.ts refuses it everywhere else, public routes included.
   */
  | { kind: 'publishable'; keyId: string; merchantId: string; handle: string; mode: Mode; rateLimitMultiplier: number; allowedOrigins: readonly string[] | null };

export type PrincipalKind = Principal['kind'];

/** What the request presented: nothing, a credential that works, or one that does not (and why). */
export type Credential =
  | { state: 'none' }
  | { state: 'valid'; principal: Principal }
  | { state: 'invalid'; kind: PrincipalKind | 'unknown'; code: ErrorCodeWith<401>; message: string };

export interface AdminTokenCheck {
  (token: string): boolean;
}

const TOKEN = /^[0-9a-f]{64}$/;

/** Accepts `wallet.<token>` and, for clients that kept our prefix on the token, `wallet.wallet.<token>`. */
function stripPrefix(value: string, prefix: string): string {
  let rest = value.slice(prefix.length);
  if (rest.startsWith(prefix)) rest = rest.slice(prefix.length);
  return rest;
}

function invalid(kind: PrincipalKind | 'unknown', code: ErrorCodeWith<401>, message: string): Credential {
  return { state: 'invalid', kind, code, message };
}

/**
 * Resolves the credential of a request without enforcing anything: the rate limiter needs to
 * know who is calling before the route decides whether that caller may call it.
 */
export async function resolveCredential(
  db: Database,
  isAdminToken: AdminTokenCheck,
  headers: Record<string, string | string[] | undefined>,
  now: Date,
): Promise<Credential> {
  const apiKeyHeader = headers['x-merchant-api-key'];
  const authorization = headers.authorization;
  let presented: string | undefined;
  if (typeof apiKeyHeader === 'string' && apiKeyHeader.trim() !== '') presented = apiKeyHeader.trim();
  else if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
    if (!match?.[1]) return invalid('unknown', 'invalid_authorization_header', 'Authorization must be "Bearer <credential>"');
    presented = match[1];
  }
  if (presented === undefined) return { state: 'none' };

  if (presented.startsWith('mk_')) return resolveMerchantKey(db, presented, now);
  if (presented.startsWith('pk_')) return resolvePublishableKey(db, presented, now);
  if (presented.startsWith('wallet.')) return resolveWalletToken(db, stripPrefix(presented, 'wallet.'), now);
  if (presented.startsWith('agent.')) return resolveAgentToken(db, stripPrefix(presented, 'agent.'), now);
  if (presented.startsWith('term.')) return resolveTerminalToken(db, stripPrefix(presented, 'term.'), now);
  if (presented.startsWith('admin.')) {
    return isAdminToken(presented.slice('admin.'.length))
      ? { state: 'valid', principal: { kind: 'admin' } }
      : invalid('admin', 'invalid_admin_token', 'The admin token is not valid');
  }
  return invalid('unknown', 'invalid_credential', 'Unrecognised credential: send a merchant key (mk_test_/mk_live_), a publishable key (pk_test_/pk_live_) or a wallet., agent., term. or admin. token');
}

async function resolveMerchantKey(db: Database, key: string, now: Date): Promise<Credential> {
  const mode = merchantKeyMode(key);
  if (!mode) return invalid('merchant', 'invalid_api_key', 'Malformed API key: expected mk_test_ or mk_live_ followed by 64 lower-case hex characters');
  const keyHash = sha256Hex(key);
  const row = await rememberedLookup(db, `key:${keyHash}`, now, async () => {
    const rows = await db.query<{ id: string; merchant_id: string; mode: Mode; expires_at: Date | null; handle: string; rate_limit_multiplier: number }>(
      `SELECT k.id, k.merchant_id, k.mode, k.expires_at, m.handle, m.rate_limit_multiplier
       FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1`,
      [keyHash],
      { prepareAs: 'auth_merchant_key' },
    );
    return rows[0];
  });
  if (!row || row.mode !== mode) return invalid('merchant', 'invalid_api_key', 'Unknown API key');
  if (row.expires_at && row.expires_at.getTime() <= now.getTime()) return invalid('merchant', 'api_key_expired', 'This API key was rotated and its grace period has ended');
  return {
    state: 'valid',
    principal: { kind: 'merchant', merchantId: row.merchant_id, handle: row.handle, mode: row.mode, keyId: row.id, rateLimitMultiplier: row.rate_limit_multiplier },
  };
}

async function resolvePublishableKey(db: Database, key: string, now: Date): Promise<Credential> {
  const mode = publishableKeyMode(key);
  if (!mode) return invalid('publishable', 'invalid_publishable_key', 'Malformed publishable key: expected pk_test_ or pk_live_ followed by 32 lower-case hex characters');
  const keyHash = sha256Hex(key);
  const row = await rememberedLookup(db, `publishable:${keyHash}`, now, async () => {
    const rows = await db.query<{ id: string; merchant_id: string; mode: Mode; revoked: boolean; allowed_origins: string[] | null; handle: string; rate_limit_multiplier: number }>(
      `SELECT k.id, k.merchant_id, k.mode, k.revoked_at IS NOT NULL AS revoked, k.allowed_origins, m.handle, m.rate_limit_multiplier
       FROM publishable_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.key_hash = $1`,
      [keyHash],
      { prepareAs: 'auth_publishable_key' },
    );
    return rows[0];
  });
  if (!row || row.mode !== mode) return invalid('publishable', 'invalid_publishable_key', 'Unknown publishable key');
  if (row.revoked) return invalid('publishable', 'publishable_key_revoked', 'This publishable key has been revoked by its merchant');
  return {
    state: 'valid',
    principal: {
      kind: 'publishable',
      keyId: row.id,
      merchantId: row.merchant_id,
      handle: row.handle,
      mode: row.mode,
      rateLimitMultiplier: row.rate_limit_multiplier,
      allowedOrigins: row.allowed_origins,
    },
  };
}

async function resolveWalletToken(db: Database, token: string, now: Date): Promise<Credential> {
  if (!TOKEN.test(token)) return invalid('wallet', 'invalid_wallet_token', 'Malformed wallet token');
  const tokenHash = sha256Hex(token);
  const rows = await db.query<{ wallet_id: string; handle: string; mode: Mode; expired: boolean; revoked: boolean }>(
    `SELECT s.wallet_id, w.handle, s.mode, s.expires_at <= $2 AS expired, s.revoked_at IS NOT NULL AS revoked
     FROM wallet_sessions s JOIN wallets w ON w.id = s.wallet_id WHERE s.token_hash = $1`,
    [tokenHash, now],
    { prepareAs: 'auth_wallet_token' },
  );
  const row = rows[0];
  if (!row || row.revoked) return invalid('wallet', 'invalid_wallet_token', 'Unknown or signed-out wallet session');
  if (row.expired) return invalid('wallet', 'wallet_session_expired', 'The wallet session has expired: sign in again');
  return { state: 'valid', principal: { kind: 'wallet', walletId: row.wallet_id, handle: row.handle, mode: row.mode, sessionHash: tokenHash } };
}

async function resolveAgentToken(db: Database, token: string, now: Date): Promise<Credential> {
  if (!TOKEN.test(token)) return invalid('agent', 'invalid_agent_token', 'Malformed agent token');
  const rows = await db.query<{ agent_id: string; wallet_id: string; handle: string; mode: Mode; expired: boolean; disabled: boolean }>(
    `SELECT s.agent_id, a.wallet_id, w.handle, s.mode, s.expires_at <= $2 AS expired, a.disabled_at IS NOT NULL AS disabled
     FROM agent_sessions s JOIN agents a ON a.id = s.agent_id JOIN wallets w ON w.id = a.wallet_id WHERE s.token_hash = $1`,
    [sha256Hex(token), now],
    { prepareAs: 'auth_agent_token' },
  );
  const row = rows[0];
  if (!row || row.disabled) return invalid('agent', 'invalid_agent_token', 'Unknown agent session');
  if (row.expired) return invalid('agent', 'agent_session_expired', 'The agent session has expired: sign in again');
  return { state: 'valid', principal: { kind: 'agent', agentId: row.agent_id, walletId: row.wallet_id, handle: row.handle, mode: row.mode } };
}

async function resolveTerminalToken(db: Database, token: string, now: Date): Promise<Credential> {
  if (!TOKEN.test(token)) return invalid('terminal', 'invalid_terminal_token', 'Malformed terminal token');
  const tokenHash = sha256Hex(token);
  const row = await rememberedLookup(db, `terminal:${tokenHash}`, now, async () => {
    const rows = await db.query<{ id: string; merchant_id: string; handle: string; mode: Mode; revoked: boolean; rate_limit_multiplier: number }>(
      `SELECT t.id, t.merchant_id, m.handle, t.mode, t.revoked_at IS NOT NULL AS revoked, m.rate_limit_multiplier
       FROM terminals t JOIN merchants m ON m.id = t.merchant_id WHERE t.token_hash = $1`,
      [tokenHash],
      { prepareAs: 'auth_terminal_token' },
    );
    return rows[0];
  });
  if (!row) return invalid('terminal', 'invalid_terminal_token', 'Unknown terminal token');
  if (row.revoked) return invalid('terminal', 'terminal_revoked', 'This terminal has been revoked by its merchant');
  return {
    state: 'valid',
    principal: { kind: 'terminal', terminalId: row.id, merchantId: row.merchant_id, handle: row.handle, mode: row.mode, rateLimitMultiplier: row.rate_limit_multiplier },
  };
}

/** Builds the admin token check from the configured token or the stored hash of a generated one. */
export function adminTokenChecker(tokenHash: string): AdminTokenCheck {
  return (token) => constantTimeEqual(sha256Hex(token), tokenHash);
}

/** Whose Idempotency-Keys a principal's are: a merchant's (with its terminals) per mode, a wallet's, an agent's. */
export function idempotencyScope(principal: Principal | undefined): string {
  if (!principal) return 'public';
  switch (principal.kind) {
    case 'merchant':
    case 'terminal':
      return `merchant:${principal.merchantId}:${principal.mode}`;
    case 'wallet':
      return `wallet:${principal.walletId}`;
    case 'agent':
      return `agent:${principal.agentId}`;
    case 'admin':
      return 'admin';
    case 'publishable':
      return `publishable:${principal.keyId}`;
  }
}
