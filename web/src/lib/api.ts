/**
 * The one fetch wrapper of the pages and the drop-in: every HTTP answer resolves to its status
 * and its body (JSON parsed, other text as it is, nothing when empty), so callers branch on the
 * status; only a network failure rejects.
 */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  ok: boolean;
  data: T | null;
}

/** The body of an error answer: `{error, code, details?}` (docs/api-conventions.md). */
export interface ErrorBody {
  error?: unknown;
  code?: unknown;
}

export async function call<T = Record<string, unknown>>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers = { 'content-type': 'application/json', ...headers };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
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
export function errorOf(answer: Answer<unknown>): { code: string | null; words: string | null } {
  const data = (answer.data !== null && typeof answer.data === 'object' ? answer.data : {}) as ErrorBody;
  return { code: typeof data.code === 'string' ? data.code : null, words: typeof data.error === 'string' ? data.error : null };
}

/** A random Idempotency-Key; crypto.randomUUID needs a secure context, which a merchant's page may not be. */
export function idempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
