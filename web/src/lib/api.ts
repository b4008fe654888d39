/**
 * The one fetch wrapper of the pages and the drop-in: every HTTP answer resolves to its status
 * and its body (JSON parsed, other text as it is, nothing when empty), so callers branch on the
 * status; only a network failure rejects. A call names its route (`@tapline/shared/api`):
 * `call('POST', '/api/pos/sessions/{sessionId}/pay', { params: { sessionId }, body: {} })`, and
 * `data` has the type of the route's success answer (on a failure it holds the error body,
 * which `errorOf` reads).
 */
import { type Answer, type Method, type Parts, type PartsArgument, type Route, fillPath, partsUrl } from '@tapline/shared/api';

export interface Reply<T> {
  status: number;
  ok: boolean;
  data: T | null;
}

/** The body of an error answer: `{error, code, details?}` (docs/api-conventions.md). */
export interface ErrorBody {
  error?: unknown;
  code?: unknown;
}

/** One call to a route of this origin. */
export function call<M extends Method, P extends Route<M>>(method: M, path: P, ...[parts]: PartsArgument<M, P>): Promise<Reply<Answer<M, P>>> {
  return send(partsUrl(path, parts), method, parts ?? {});
}

/**
 * One call to a route of the server at `base` (the drop-in's, on a merchant's page): path segments
 * only, no query string, which keeps the drop-in within its size budget.
 */
export const callAt = <M extends Method, P extends Route<M>>(base: string, method: M, path: P, parts: Parts<M, P> & { query?: never }): Promise<Reply<Answer<M, P>>> =>
  send(base + fillPath(path, parts.params), method, parts);

async function send<T>(url: string, method: Method, { body, headers }: { body?: unknown; headers?: Record<string, string> | undefined }): Promise<Reply<T>> {
  const response = await fetch(url, body === undefined ? { method, headers } : { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  let data: unknown = null;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  return { status: response.status, ok: response.ok, data: data as T | null };
}

/** The error's code and the server's own words, when the answer has them. */
export function errorOf(answer: Reply<unknown>): { code: string | null; words: string | null } {
  const data = (answer.data !== null && typeof answer.data === 'object' ? answer.data : {}) as ErrorBody;
  return { code: typeof data.code === 'string' ? data.code : null, words: typeof data.error === 'string' ? data.error : null };
}

/** A random Idempotency-Key; crypto.randomUUID needs a secure context, which a merchant's page may not be. */
export function idempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
