/**
 * The operator's calls: the admin token, typed in the operator sign-in, is sent as
 * `authorization: Bearer admin.<token>` (no cookie: a merchant's dashboard session opens no admin
 * route). The token is kept in sessionStorage only (this tab, until it closes or the operator signs
 * out), never in localStorage, a cookie or the address.
 */
import { minorFromMajor, toMajor } from '@tapline/shared/money';
import { type Answer, type Method, type PartsArgument, type Route, partsUrl } from '@tapline/shared/api';
import { ApiFailure } from './api.ts';

const STORED = 'tapline.operator.token';
let onSignedOut: () => void = () => {};

export function operatorToken(): string | null {
  return sessionStorage.getItem(STORED);
}

export function forgetOperatorToken(): void {
  sessionStorage.removeItem(STORED);
}

export function whenOperatorSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

async function call(token: string, method: Method, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer admin.${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, credentials: 'omit', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch {
    throw new ApiFailure(0, 'network_error', 'network error');
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) throw new ApiFailure(response.status, String(parsed.code ?? 'http_error'), String(parsed.error ?? response.statusText));
  return parsed;
}

/** Checks a token with one admin read and keeps it for this tab; throws ApiFailure (invalid_admin_token) otherwise. */
export async function operatorSignIn(token: string): Promise<void> {
  await call(token, 'GET', '/api/admin/payments/attention?limit=1&offset=0');
  sessionStorage.setItem(STORED, token);
}

/** An admin call with the kept token, typed by its route like `api`; a refused token signs the operator out. */
export function operatorApi<M extends Method, P extends Route<M>>(method: M, path: P, ...[parts]: PartsArgument<M, P>): Promise<Answer<M, P>> {
  return withToken(method, partsUrl(path, parts), parts?.body) as Promise<Answer<M, P>>;
}

/** A GET of a URL `routeUrl` built, for PagedList (`operatorRead('/api/admin/...')`). */
export const operatorRead =
  <P extends Route<'GET'>>(_path: P) =>
  (url: string): Promise<Answer<'GET', P>> =>
    withToken('GET', url, undefined) as Promise<Answer<'GET', P>>;

async function withToken(method: Method, url: string, body: unknown): Promise<unknown> {
  const token = operatorToken();
  if (!token) {
    onSignedOut();
    throw new ApiFailure(401, 'authentication_required', 'signed out');
  }
  try {
    return await call(token, method, url, body);
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      forgetOperatorToken();
      onSignedOut();
    }
    throw error;
  }
}

/** Amounts per currency as the API answers them (major units), as "NGN 50.00, KES 20" in the page's language. */
export function sumText(money: (major: number, currency: string) => string, totals: Record<string, number>, nothing: string): string {
  const entries = Object.entries(totals);
  return entries.length === 0 ? nothing : entries.map(([currency, amount]) => money(amount, currency)).join(', ');
}

/** A payout's age, from when it was made to the server's time of the answer, in whole hours. */
export function ageHours(createdAt: string, asOf: string): number {
  return Math.max(0, Math.floor((Date.parse(asOf) - Date.parse(createdAt)) / 3_600_000));
}

/** Adds amounts given in major units per currency, in integer minor units (no float drift); answers major units. */
export function addAmounts(amounts: readonly (readonly [currency: string, major: number])[]): Record<string, number> {
  const minor = new Map<string, number>();
  for (const [currency, major] of amounts) minor.set(currency, (minor.get(currency) ?? 0) + minorFromMajor(major, currency));
  return Object.fromEntries([...minor].map(([currency, total]) => [currency, toMajor(total, currency)]));
}
