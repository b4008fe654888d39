import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../http/errors.ts';
import type { Credential, MerchantSessionInfo } from './principal.ts';
import { constantTimeEqual, sha256Hex } from './secrets.ts';

/**
 * The dashboard's cookie session rules, shared by the auth hooks and the merchant-users module:
 * the cookie, its CSRF token, and the checks every call made with a session passes (CSRF on
 * state-changing calls, role limits). API keys and tokens in headers are unaffected.
 */

export const SESSION_COOKIE = 'tapline_session';
export const CSRF_HEADER = 'x-csrf-token';
/** The dashboard's test/live switch: a session works in the mode this header names (test when absent). */
export const MODE_HEADER = 'x-tapline-mode';
const SESSION_TOKEN = /^[0-9a-f]{64}$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Which dashboard roles may call this route with a session. Absent: every role may read
     * (GET, HEAD), owner and manager may change things. API keys are the owner's and pass.
     */
    roles?: readonly MerchantSessionInfo['role'][];
    /** Sign-in and link acceptance: a session cookie the browser still holds is ignored here. */
    ignoresSession?: boolean;
  }
}

/** Resolves the session token of a cookie into a credential (modules/merchant-users). */
export type SessionResolver = (token: string, request: FastifyRequest) => Promise<Credential>;

/** The session token of the request's cookie header, when it carries a well-formed one. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return SESSION_TOKEN.test(value) ? value : undefined;
  }
  return undefined;
}

/** The CSRF token of a session: derived from its token, so nothing more is stored. */
export function csrfTokenFor(sessionToken: string): string {
  return sha256Hex(`csrf:${sessionToken}`);
}

/** Over HTTPS (directly, or behind a proxy when TRUST_PROXY=1 honours x-forwarded-proto). */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${isHttps(request) ? '; Secure' : ''}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${isHttps(request) ? '; Secure' : ''}`);
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The origins a state-changing call with a session may come from: the server's own. */
function sameOrigin(request: FastifyRequest, origin: string, publicBaseUrl: string): boolean {
  if (origin === `${request.protocol}://${request.host}`) return true;
  try {
    return new URL(publicBaseUrl).origin === origin;
  } catch {
    return false;
  }
}

/**
 * The rules of a call authorised by a dashboard session (after the route admitted a merchant):
 * a state-changing call must carry the session's CSRF token and, when the browser names an
 * origin, come from the server's own; the session's role must be one the route allows.
 */
export function enforceSessionRules(request: FastifyRequest, session: MerchantSessionInfo, publicBaseUrl: string): void {
  const safe = SAFE_METHODS.has(request.method);
  if (!safe) {
    const origin = request.headers.origin;
    if (typeof origin === 'string' && !sameOrigin(request, origin, publicBaseUrl)) {
      throw forbidden('csrf_failed', 'A call with a dashboard session must come from the dashboard itself (Origin refused)');
    }
    const fetchSite = request.headers['sec-fetch-site'];
    if (typeof fetchSite === 'string' && fetchSite !== 'same-origin' && fetchSite !== 'none') {
      throw forbidden('csrf_failed', 'A call with a dashboard session must come from the dashboard itself (cross-site request refused)');
    }
    const presented = request.headers[CSRF_HEADER];
    if (typeof presented !== 'string' || !constantTimeEqual(presented, session.csrfToken)) {
      throw forbidden('csrf_failed', `A call that changes something with a dashboard session needs the session's ${CSRF_HEADER} header`);
    }
  }
  const allowed = request.routeOptions.config.roles ?? (safe ? ['owner', 'manager', 'viewer'] : ['owner', 'manager']);
  if (!allowed.includes(session.role)) {
    throw forbidden('role_forbidden', `A ${session.role} cannot do this; it needs ${allowed.join(' or ')}`);
  }
}
