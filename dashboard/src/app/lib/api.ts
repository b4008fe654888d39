/** Calls the same /api as integrators, with the session cookie, its CSRF token and the mode switch. */
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

export async function api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
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
  return parsed as T;
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

export interface Page<T> {
  data: T[];
  total: number;
  limit: number;
  offset: number;
}
