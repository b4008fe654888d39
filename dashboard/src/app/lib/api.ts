/** Calls the same /api as integrators, with the session cookie, its CSRF token and the mode switch. */
import { type Answer, type Method, type PartsArgument, type Route, partsUrl } from '@tapline/shared/api';

export type Mode = 'test' | 'live';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let mode: Mode = 'test';
let onSignedOut: () => void = () => {};

export function useSession(csrf: string, chosenMode: Mode): void {
  csrfToken = csrf;
  mode = chosenMode;
}

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/**
 * One call, typed by its route (`@tapline/shared/api`): `api('GET', '/api/pos/sessions/{id}', { params: { id } })`
 * answers what the server's schema of that route says it answers; `query` and `body` are the route's own.
 */
export function api<M extends Method, P extends Route<M>>(method: M, path: P, ...[parts]: PartsArgument<M, P>): Promise<Answer<M, P>> {
  return send(method, partsUrl(path, parts), parts?.body, parts?.headers) as Promise<Answer<M, P>>;
}

/** A GET of a URL `routeUrl` built (a list's page, with its filters). */
export function apiGet<P extends Route<'GET'>>(_path: P, url: string): Promise<Answer<'GET', P>> {
  return send('GET', url, undefined, undefined) as Promise<Answer<'GET', P>>;
}

async function send(method: Method, path: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<unknown> {
  const headers: Record<string, string> = { ...extraHeaders, 'x-tapline-mode': mode };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch {
    throw new ApiFailure(0, 'network_error', 'network error');
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) {
    const failure = new ApiFailure(response.status, String(parsed.code ?? 'http_error'), String(parsed.error ?? response.statusText));
    if (response.status === 401 && (failure.code === 'invalid_session' || failure.code === 'dashboard_session_expired')) onSignedOut();
    throw failure;
  }
  return parsed;
}

/** A GET whose answer is text (a CSV file), with the cookie and the mode switch like api(). */
export async function apiText(path: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { 'x-tapline-mode': mode }, credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'network_error', 'network error');
  }
  const text = await response.text();
  if (!response.ok) {
    const parsed = (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>;
    throw new ApiFailure(response.status, String(parsed.code ?? 'http_error'), String(parsed.error ?? response.statusText));
  }
  return text;
}
