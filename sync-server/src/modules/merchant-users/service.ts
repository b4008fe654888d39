import type { ErrorCodeWith } from '@tapline/shared/error-codes';
import { LINK_VALID_DAYS, SESSION_ABSOLUTE_HOURS, SESSION_IDLE_MINUTES, SIGN_IN_ATTEMPTS_MAX, SIGN_IN_LOCK_MINUTES } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import type { MerchantRole } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import type { Credential } from '../../auth/principal.ts';
import { type Mode, hashPin, randomHex, sha256Hex, verifyPin } from '../../auth/secrets.ts';
import { MODE_HEADER, csrfTokenFor } from '../../auth/dashboard-session.ts';
import { ApiError, badRequest, conflict, gone, notFound, retryAfterSeconds, unauthorized } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import {
  type SessionRow,
  type UserRow,
  claimTotpStep,
  clearAttempts,
  consumeLink,
  findSession,
  findUser,
  findUserByEmail,
  forgiveAttempt,
  insertSession,
  issueLink,
  lockUser,
  reserveAttempt,
  setPassword,
  touchSession,
  upsertInvitedUser,
} from './store.ts';

/** last_used_at is written at most this often (every call reads it). */
const TOUCH_EVERY_MS = 60_000;

const MINUTE = 60_000;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The dashboard's address of a one-time link: the token rides in the fragment, so no server log sees it. */
export function linkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/dashboard/#/setup/${token}`;
}

/** 409 email_taken unless `email` may join `merchantId`'s team (a new address, or one this team removed). */
export async function assertEmailFree(db: Database, emailInput: string, merchantId?: string): Promise<void> {
  const email = normaliseEmail(emailInput);
  const existing = await findUserByEmail(db, email);
  if (existing && (existing.merchant_id !== merchantId || !existing.removed_at)) {
    throw conflict('email_taken', existing.merchant_id === merchantId ? `${email} is already a member of this team` : `${email} already signs in to another merchant`);
  }
}

/** A user (new, or one removed and brought back) with a fresh one-time link. */
export async function inviteUser(context: AppContext, merchantId: string, emailInput: string, role: MerchantRole, purpose: 'setup' | 'invite') {
  const email = normaliseEmail(emailInput);
  const now = context.now();
  const expiresAt = new Date(now.getTime() + LINK_VALID_DAYS * 24 * 60 * MINUTE);
  await assertEmailFree(context.db, email, merchantId);
  return context.db.transaction(async (tx) => {
    const user = await upsertInvitedUser(tx, merchantId, email, role);
    if (!user) throw conflict('email_taken', `${email} already signs in to another merchant`);
    const token = await issueLink(tx, user.id, purpose, now, expiresAt);
    return { user, url: linkUrl(context.config.publicBaseUrl, token), expiresAt };
  });
}

/** Follows a set-up or invitation link: the password is set and the link is used up. */
export async function acceptLink(context: AppContext, token: string, password: string): Promise<UserRow> {
  // The KDF runs before the transaction: PGlite has one connection.
  const passwordHash = await hashPin(password);
  const now = context.now();
  const user = await context.db.transaction(async (tx) => {
    const link = await consumeLink(tx, token, now);
    if (link.outcome !== 'ok') {
      if (link.outcome === 'used') throw gone('link_used', 'This link has already been used: sign in, or ask for a new one');
      if (link.outcome === 'expired') throw gone('link_expired', 'This link has expired: ask for a new one');
      throw notFound('link_not_found', 'This link is not valid: ask for a new one');
    }
    const row = await findUser(tx, link.userId);
    if (!row) throw notFound('link_not_found', 'This link is not valid: ask for a new one');
    await setPassword(tx, row.id, passwordHash);
    return row;
  });
  return user;
}

function lockedError(lockedUntil: Date, now: Date): ApiError {
  const seconds = retryAfterSeconds(lockedUntil, now);
  return new ApiError(429, 'sign_in_locked', `Too many failed sign-ins: this account is locked until ${lockedUntil.toISOString()}`, {
    headers: { 'retry-after': String(seconds) },
  });
}

/** A password hash nobody has, checked against for unknown addresses so both answers take as long. */
let decoyHash: Promise<string> | undefined;

function totpFor(sealedSecret: string, email: string, context: AppContext): TOTP {
  return new TOTP({ issuer: 'Tapline', label: email, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(context.secrets.open(sealedSecret)) });
}

/** The time step of a valid code (one step of drift either way), or undefined. */
function totpStep(totp: TOTP, code: string, now: Date): number | undefined {
  const delta = totp.validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now.getTime() / 1000 / 30) + delta;
}

/**
 * Checks e-mail, password and (when enabled) the TOTP code with the lock-out rule, and opens a
 * session: its token (for the cookie) and when it ends.
 */
export async function signIn(context: AppContext, input: { email: string; password: string; totpCode?: string | undefined }) {
  const { db } = context;
  const now = context.now();
  const user = await findUserByEmail(db, normaliseEmail(input.email));
  if (!user || user.removed_at || !user.password_hash) {
    decoyHash ??= hashPin(randomHex(16));
    await verifyPin(input.password, await decoyHash);
    throw unauthorized('invalid_credentials', 'Wrong e-mail address or password');
  }
  const reservation = await reserveAttempt(db, user.id, now, SIGN_IN_ATTEMPTS_MAX, SIGN_IN_LOCK_MINUTES);
  if (reservation.outcome === 'locked') throw lockedError(reservation.lockedUntil, now);
  const fail = async (code: ErrorCodeWith<401>, message: string): Promise<never> => {
    if (reservation.attempt >= SIGN_IN_ATTEMPTS_MAX) await lockUser(db, user.id, now, SIGN_IN_LOCK_MINUTES);
    throw unauthorized(code, message);
  };
  if (!(await verifyPin(input.password, user.password_hash))) return fail('invalid_credentials', 'Wrong e-mail address or password');
  if (user.totp_secret_sealed) {
    if (input.totpCode === undefined) {
      await forgiveAttempt(db, user.id);
      throw unauthorized('totp_required', 'Enter the 6-digit code of your authenticator app');
    }
    const step = totpStep(totpFor(user.totp_secret_sealed, user.email, context), input.totpCode, now);
    if (step === undefined || !(await claimTotpStep(db, user.id, step))) return fail('invalid_totp_code', 'Wrong or already used authenticator code');
  }
  await clearAttempts(db, user.id);
  const token = randomHex(32);
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_HOURS * 60 * MINUTE);
  await insertSession(db, sha256Hex(token), user.id, now, expiresAt);
  return { token, maxAgeSeconds: SESSION_ABSOLUTE_HOURS * 3600 };
}

/** The mode a dashboard call works in: its x-tapline-mode header, test by default. */
export function requestedMode(request: FastifyRequest): Mode {
  const header = request.headers[MODE_HEADER];
  if (header === undefined || header === 'test') return 'test';
  if (header === 'live') return 'live';
  throw badRequest('invalid_mode', `${MODE_HEADER} must be test or live`);
}

function sessionState(row: SessionRow | undefined, now: Date): 'ok' | 'invalid' | 'expired' {
  if (!row || row.revoked_at || row.removed_at) return 'invalid';
  if (row.expires_at.getTime() <= now.getTime()) return 'expired';
  if (now.getTime() - row.last_used_at.getTime() >= SESSION_IDLE_MINUTES * MINUTE) return 'expired';
  return 'ok';
}

/** The credential of a dashboard session cookie: the merchant, in the mode the call asks for. */
export function sessionResolver(context: AppContext) {
  return async (token: string, request: FastifyRequest): Promise<Credential> => {
    const tokenHash = sha256Hex(token);
    const row = await findSession(context.db, tokenHash);
    const now = context.now();
    const state = sessionState(row, now);
    if (state === 'invalid' || !row) return { state: 'invalid', kind: 'merchant', code: 'invalid_session', message: 'Signed out: sign in again' };
    if (state === 'expired') return { state: 'invalid', kind: 'merchant', code: 'dashboard_session_expired', message: 'The session has expired: sign in again' };
    if (now.getTime() - row.last_used_at.getTime() >= TOUCH_EVERY_MS) await touchSession(context.db, tokenHash, now);
    return {
      state: 'valid',
      principal: {
        kind: 'merchant',
        merchantId: row.merchant_id,
        handle: row.handle,
        mode: requestedMode(request),
        keyId: `user:${row.user_id}`,
        rateLimitMultiplier: row.rate_limit_multiplier,
        session: { userId: row.user_id, role: row.role, tokenHash, csrfToken: csrfTokenFor(token) },
      },
    };
  };
}

/** What the dashboard learns about its own session. */
export async function sessionAnswer(context: AppContext, tokenHash: string, csrfToken: string, mode: Mode) {
  const row = await findSession(context.db, tokenHash);
  if (!row) throw unauthorized('invalid_session', 'Signed out: sign in again');
  const idleEnds = new Date(Math.min(row.expires_at.getTime(), Math.max(row.last_used_at.getTime(), context.now().getTime()) + SESSION_IDLE_MINUTES * MINUTE));
  return {
    user: { id: row.user_id, email: row.email, role: row.role, totpEnabled: row.totp_enabled },
    merchant: { id: row.merchant_id, name: row.merchant_name, handle: displayHandle(row.handle), currency: row.currency },
    mode,
    csrfToken,
    expiresAt: row.expires_at.toISOString(),
    idleExpiresAt: idleEnds.toISOString(),
  };
}

// ---- TOTP enrolment ----

export function newTotpSecret(email: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 });
  const totp = new TOTP({ issuer: 'Tapline', label: email, algorithm: 'SHA1', digits: 6, period: 30, secret });
  return { secret: secret.base32, uri: totp.toString() };
}

/** Checks a code against a sealed secret; the step it belongs to, or undefined. */
export function checkTotp(context: AppContext, sealedSecret: string, email: string, code: string): number | undefined {
  return totpStep(totpFor(sealedSecret, email, context), code, context.now());
}
