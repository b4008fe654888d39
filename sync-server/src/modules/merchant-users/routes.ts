import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  AcceptLinkBody,
  AcceptLinkResponse,
  DashboardSession,
  ErrorBody,
  InviteUserBody,
  InviteUserResponse,
  ListOf,
  ListQuery,
  MerchantUserRecord,
  OwnerSetupBody,
  OwnerSetupResponse,
  SignInBody,
  TotpCodeBody,
  TotpEnrolment,
  TotpStatus,
  UpdateUserBody,
} from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import type { MerchantSessionInfo } from '../../auth/principal.ts';
import { clearSessionCookie, csrfTokenFor, setSessionCookie } from '../../auth/dashboard-session.ts';
import { sha256Hex } from '../../auth/secrets.ts';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors.ts';
import { qrPng } from '../../http/qr-image.ts';
import { findMerchant } from '../merchants/index.ts';
import { acceptLink, checkTotp, inviteUser, newTotpSecret, requestedMode, sessionAnswer, signIn } from './service.ts';
import { type UserRow, countActiveOwners, disableTotp, enableTotp, findUser, listUsers, removeUser, revokeSession, revokeUserSessions, setPendingTotp, setRole } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
/** The signed-in person's own session and second factor: every role, a session only. */
const self = { auth: ['merchant'], roles: ['owner', 'manager', 'viewer'] } as const;
/** The team: the owner (or the merchant's API key, which is the owner's). */
const ownerOnly = { auth: ['merchant'], roles: ['owner'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

function userRecord(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: row.password_hash ? ('active' as const) : ('invited' as const),
    totpEnabled: row.totp_secret_sealed !== null,
    createdAt: row.created_at.toISOString(),
  };
}

function sessionOf(request: FastifyRequest): MerchantSessionInfo {
  const session = principalAs(request, 'merchant').session;
  if (!session) throw forbidden('session_required', 'Only a dashboard session (signed in with e-mail and password) can call this');
  return session;
}

const SESSION_DESCRIPTION = `The dashboard signs in with e-mail and password (and the TOTP code when the user enabled one) and gets
a cookie tapline_session (HttpOnly, SameSite=Strict, Secure over HTTPS). While it is valid, the cookie authorises the
calls of every /api route that accepts a merchant API key, as that merchant, in the mode of the x-tapline-mode header
(test unless it says live). Every call that changes something must send the session's csrfToken in x-csrf-token, and
one from another site (Origin, Sec-Fetch-Site) is refused (403 csrf_failed). Roles: owner (everything), manager
(everything but API keys, publishable keys, the webhook secret and the team), viewer (reading only); others get 403
role_forbidden. A session ends after 30 minutes without a call or 12 hours after sign-in (401 dashboard_session_expired), at
sign-out, or when its user is removed. Five failed sign-ins in a row lock the account for 15 minutes (429
sign_in_locked with Retry-After). A wrong address or password answers 401 invalid_credentials; with TOTP on, 401
totp_required until a code is sent, 401 invalid_totp_code for a wrong or reused one.`;

/** Dashboard users: set-up links, sign-in, sessions, TOTP, the team (README.md). */
export async function merchantUserRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, secrets } = context;

  app.post('/api/admin/merchants/:id/owner', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      summary: 'Give a merchant an owner account: a one-time set-up link (7 days) where the owner chooses a password',
      description: 'Unknown merchant 404 merchant_not_found; an address that already signs in to a merchant 409 email_taken. Asking again for the same owner replaces the link.',
      params: IdParams,
      body: OwnerSetupBody,
      response: { 201: OwnerSetupResponse, ...errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const { id } = request.params;
    const { email } = request.body;
    if (!(await findMerchant(db, id))) throw notFound('merchant_not_found', `No merchant ${id}`);
    const invited = await inviteUser(context, id, email, 'owner', 'setup');
    return reply.status(201).send({ userId: invited.user.id, email: invited.user.email, role: invited.user.role, setupUrl: invited.url, setupExpiresAt: invited.expiresAt.toISOString() });
  });

  app.post('/api/dashboard/links/accept', {
    config: { ignoresSession: true },
    schema: {
      tags: ['dashboard'],
      summary: 'Follow a set-up or invitation link: choose the password (the link is then used up)',
      description: 'Unknown link 404 link_not_found; used 410 link_used; past its 7 days 410 link_expired.',
      body: AcceptLinkBody,
      response: { 200: AcceptLinkResponse, ...errors, 410: ErrorBody },
    },
  }, async (request) => {
    const { token, password } = request.body;
    const user = await acceptLink(context, token, password);
    return { email: user.email, role: user.role };
  });

  app.post('/api/dashboard/sessions', {
    config: { ignoresSession: true },
    schema: {
      tags: ['dashboard'],
      summary: 'Sign in to the dashboard: sets the session cookie',
      description: SESSION_DESCRIPTION,
      body: SignInBody,
      response: { 201: DashboardSession, ...errors },
    },
  }, async (request, reply) => {
    const session = await signIn(context, request.body);
    setSessionCookie(request, reply, session.token, session.maxAgeSeconds);
    return reply.status(201).send(await sessionAnswer(context, sha256Hex(session.token), csrfTokenFor(session.token), requestedMode(request)));
  });

  app.get('/api/dashboard/session', {
    config: self,
    schema: { tags: ['dashboard'], summary: 'The current dashboard session: user, merchant, mode and CSRF token', response: { 200: DashboardSession, ...errors } },
  }, async (request) => {
    const session = sessionOf(request);
    return sessionAnswer(context, session.tokenHash, session.csrfToken, principalAs(request, 'merchant').mode);
  });

  app.delete('/api/dashboard/session', {
    config: self,
    schema: { tags: ['dashboard'], summary: 'Sign out: the session stops working and the cookie is cleared', response: { 204: Type.Null(), ...errors } },
  }, async (request, reply) => {
    const session = sessionOf(request);
    await revokeSession(db, session.tokenHash, context.now());
    clearSessionCookie(request, reply);
    return reply.status(204).send(null);
  });

  app.post('/api/dashboard/sessions/revoke-all', {
    config: self,
    schema: { tags: ['dashboard'], summary: 'Sign out everywhere: every session of the signed-in user stops working', response: { 200: Type.Object({ revoked: Type.Integer() }), ...errors } },
  }, async (request, reply) => {
    const session = sessionOf(request);
    const revoked = await revokeUserSessions(db, session.userId, context.now());
    clearSessionCookie(request, reply);
    return { revoked };
  });

  app.post('/api/dashboard/totp', {
    config: self,
    schema: {
      tags: ['dashboard'],
      summary: 'Start enrolling a TOTP second factor: a secret to scan, enabled once a code is confirmed',
      response: { 200: TotpEnrolment, ...errors, 409: ErrorBody },
    },
  }, async (request) => {
    const session = sessionOf(request);
    const user = await findUser(db, session.userId);
    if (!user) throw notFound('user_not_found', 'This user no longer exists');
    if (user.totp_secret_sealed) throw conflict('totp_already_enabled', 'A second factor is already enabled: disable it first');
    const { secret, uri } = newTotpSecret(user.email);
    await setPendingTotp(db, user.id, secrets.seal(secret));
    return { secret, otpauthUri: uri, qrPng: await qrPng(uri) };
  });

  app.post('/api/dashboard/totp/confirm', {
    config: self,
    schema: { tags: ['dashboard'], summary: 'Confirm the enrolment with a code from the app: sign-in asks for a code from now on', body: TotpCodeBody, response: { 200: TotpStatus, ...errors, 409: ErrorBody } },
  }, async (request) => {
    const session = sessionOf(request);
    const { code } = request.body;
    const user = await findUser(db, session.userId);
    if (!user?.totp_pending_sealed) throw conflict('totp_not_started', 'Start the enrolment first (POST /api/dashboard/totp)');
    const step = checkTotp(context, user.totp_pending_sealed, user.email, code);
    if (step === undefined) throw badRequest('invalid_totp_code', 'Wrong authenticator code');
    await enableTotp(db, user.id, step);
    return { totpEnabled: true };
  });

  app.post('/api/dashboard/totp/disable', {
    config: self,
    schema: { tags: ['dashboard'], summary: 'Turn the second factor off (a current code proves the app is at hand)', body: TotpCodeBody, response: { 200: TotpStatus, ...errors, 409: ErrorBody } },
  }, async (request) => {
    const session = sessionOf(request);
    const { code } = request.body;
    const user = await findUser(db, session.userId);
    if (!user?.totp_secret_sealed) throw conflict('totp_not_enabled', 'No second factor is enabled');
    if (checkTotp(context, user.totp_secret_sealed, user.email, code) === undefined) throw badRequest('invalid_totp_code', 'Wrong authenticator code');
    await disableTotp(db, user.id);
    return { totpEnabled: false };
  });

  app.get('/api/merchant/users', {
    config: ownerOnly,
    schema: { tags: ['dashboard'], summary: 'The team: people who sign in to the dashboard', querystring: ListQuery, response: { 200: ListOf(MerchantUserRecord), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listUsers(db, principal.merchantId, limit, offset);
    return { data: page.rows.map(userRecord), total: page.total, limit, offset };
  });

  app.post('/api/merchant/users', {
    config: ownerOnly,
    schema: {
      tags: ['dashboard'],
      summary: 'Invite a person with a role: a one-time link (7 days) where they choose a password',
      description: 'The owner only (403 role_forbidden). An address already in this team or signing in to another merchant: 409 email_taken.',
      body: InviteUserBody,
      response: { 201: InviteUserResponse, ...errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const { email, role } = request.body;
    const invited = await inviteUser(context, principal.merchantId, email, role, 'invite');
    return reply.status(201).send({ ...userRecord(invited.user), inviteUrl: invited.url, inviteExpiresAt: invited.expiresAt.toISOString() });
  });

  async function teamMember(request: FastifyRequest, id: string): Promise<UserRow> {
    const principal = principalAs(request, 'merchant');
    const user = await findUser(db, id, principal.merchantId);
    if (!user) throw notFound('user_not_found', `No team member ${id}`);
    return user;
  }

  async function assertNotLastOwner(user: UserRow): Promise<void> {
    if (user.role === 'owner' && (await countActiveOwners(db, user.merchant_id)) <= 1) {
      throw conflict('last_owner', 'A merchant keeps at least one owner: make someone else owner first');
    }
  }

  app.patch('/api/merchant/users/:id', {
    config: ownerOnly,
    schema: { tags: ['dashboard'], summary: 'Change a team member\'s role', description: 'Unknown member 404 user_not_found; demoting the last owner 409 last_owner.', params: IdParams, body: UpdateUserBody, response: { 200: MerchantUserRecord, ...errors, 409: ErrorBody } },
  }, async (request) => {
    const user = await teamMember(request, request.params.id);
    const { role } = request.body;
    if (role !== 'owner') await assertNotLastOwner(user);
    const updated = await setRole(db, user.id, role);
    return userRecord(updated!);
  });

  app.delete('/api/merchant/users/:id', {
    config: ownerOnly,
    schema: { tags: ['dashboard'], summary: 'Remove a team member: their sessions and links stop working at once', description: 'Unknown member 404 user_not_found; the last owner 409 last_owner.', params: IdParams, response: { 204: Type.Null(), ...errors, 409: ErrorBody } },
  }, async (request, reply) => {
    const user = await teamMember(request, request.params.id);
    await assertNotLastOwner(user);
    await db.transaction((tx) => removeUser(tx, user.id, context.now()));
    return reply.status(204).send(null);
  });
}
