import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { ApiError, forbidden, unauthorized } from '../http/errors.ts';
import { type AdminTokenCheck, type Credential, type Principal, type PrincipalKind, resolveCredential } from './principal.ts';
import { type SessionResolver, enforceSessionRules, sessionTokenOf } from './dashboard-session.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Principals allowed on the route; absent: public. Admin is allowed wherever listed. */
    auth?: readonly PrincipalKind[];
  }
  interface FastifyRequest {
    credential: Credential;
  }
}

const NONE: Credential = { state: 'none' };

/**
 * Resolves every /api request's credential in onRequest (before the rate limiter keys on it) and
 * enforces the route's `config.auth` in preValidation, so an unauthenticated call gets 401 before
 * its body is judged.
 */
export function registerAuth(
  app: FastifyInstance,
  db: Database,
  isAdminToken: AdminTokenCheck,
  now: () => Date,
  dashboard?: { resolveSession: SessionResolver; publicBaseUrl: string },
): void {
  app.decorateRequest('credential', null as never);
  app.addHook('onRequest', async (request) => {
    request.credential = NONE;
    if (!request.url.startsWith('/api/')) return;
    request.credential = await resolveCredential(db, isAdminToken, request.headers, now());
    // A dashboard session cookie stands for the merchant on the routes a merchant may call, when
    // no credential header is sent (a header always wins, and needs no CSRF token).
    if (request.credential.state === 'none' && dashboard) {
      const config = request.routeOptions.config;
      const token = config?.auth?.includes('merchant') && !config.ignoresSession ? sessionTokenOf(request) : undefined;
      if (token) request.credential = await dashboard.resolveSession(token, request);
    }
  });
  app.addHook('preValidation', async (request) => {
    const allowed = request.routeOptions.config.auth;
    const credential = request.credential;
    // A publishable key is public (it sits in web pages): it opens only the routes that list it,
    // never a public route's caller-dependent answer nor any other route.
    if (credential.state === 'valid' && credential.principal.kind === 'publishable' && !allowed?.includes('publishable')) {
      throw forbidden('credential_not_allowed', 'A publishable key only creates and reads checkout sessions; use the secret merchant key (mk_) from your server');
    }
    if (!allowed) return;
    if (credential.state === 'none') {
      throw unauthorized('authentication_required', `This endpoint needs a credential: ${describeKinds(allowed)}`);
    }
    if (credential.state === 'invalid') throw unauthorized(credential.code, credential.message);
    if (!allowed.includes(credential.principal.kind)) {
      throw forbidden('credential_not_allowed', `A ${credential.principal.kind} credential cannot call this endpoint; it needs ${describeKinds(allowed)}`);
    }
    if (credential.principal.kind === 'merchant' && credential.principal.session && dashboard) {
      enforceSessionRules(request, credential.principal.session, dashboard.publicBaseUrl);
    }
  });
}

const KIND_NAMES: Record<PrincipalKind, string> = {
  merchant: 'a merchant API key',
  terminal: 'a terminal token',
  wallet: 'a wallet session token',
  agent: 'an agent session token',
  admin: 'the admin token',
  publishable: 'a publishable key',
};

function describeKinds(kinds: readonly PrincipalKind[]): string {
  return kinds.map((kind) => KIND_NAMES[kind]).join(' or ');
}

/** The authenticated principal of a route whose config.auth admitted it. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.credential.state !== 'valid') throw new ApiError(401, 'authentication_required', 'Authentication required');
  return request.credential.principal;
}

export function principalAs<K extends PrincipalKind>(request: FastifyRequest, kind: K): Extract<Principal, { kind: K }> {
  const principal = principalOf(request);
  if (principal.kind !== kind) throw forbidden('credential_not_allowed', `This endpoint needs ${KIND_NAMES[kind]}`);
  return principal as Extract<Principal, { kind: K }>;
}
