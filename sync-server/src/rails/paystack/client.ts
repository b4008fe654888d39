// HTTP to Paystack: the base URL, `Authorization: Bearer <secret key>` on every request (openapi.yaml
// securitySchemes.bearerAuth), JSON bodies, and a per-request timeout. Every answer Paystack gives
// is an envelope `{ status: boolean, message: string, data?, meta? }` (openapi.yaml Response / Error).
//
// What this module decides for every caller: no answer (timeout, network error), a 5xx, a 429, a
// 401/403 (our key refused: nothing was done, and nothing will be until an operator fixes it) and
// an answer that is not Paystack's JSON envelope all THROW: the outcome is unknown or the request
// may be tried again later. Any other status is handed back for the caller to read. The secret
// key is never put in an error or a log line.
import type { RailAdapterDeps } from '../types.ts';
import type { PaystackConfig } from './config.ts';

export interface PaystackEnvelope {
  status: boolean;
  message: string;
  data?: unknown;
  meta?: unknown;
}

export interface PaystackAnswer {
  httpStatus: number;
  body: PaystackEnvelope;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface PaystackClient {
  get(path: string, query?: Query): Promise<PaystackAnswer>;
  post(path: string, body: Record<string, unknown>): Promise<PaystackAnswer>;
}

/** Paystack's answer, or its absence, left the outcome unknown: try again later (after a lookup). */
export class PaystackUnavailable extends Error {
  override name = 'PaystackUnavailable';
}

const MESSAGE_LENGTH_MAX = 200;

/** Paystack's own message, trimmed to a sentence's length (never echoes our request). */
export function paystackMessage(body: PaystackEnvelope): string {
  const message = typeof body.message === 'string' ? body.message.trim() : '';
  return message.length > MESSAGE_LENGTH_MAX ? `${message.slice(0, MESSAGE_LENGTH_MAX - 1)}…` : message;
}

/**
 * A 4xx that refuses the request for good (invalid account, unknown bank, low balance...), as
 * opposed to one that says nothing about it: 404 on a POST (a wrong base URL, not a refusal), 408
 * and 409 (try again). 401, 403 and 429 never reach callers (thrown above them).
 */
export function isRefusal(answer: PaystackAnswer): boolean {
  const { httpStatus, body } = answer;
  return httpStatus >= 400 && httpStatus < 500 && ![404, 408, 409].includes(httpStatus) && body.status === false;
}

function isEnvelope(value: unknown): value is PaystackEnvelope {
  return typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'boolean';
}

export function paystackClient(config: PaystackConfig, deps: Pick<RailAdapterDeps, 'fetch' | 'timeoutMs' | 'log'>): PaystackClient {
  async function call(method: 'GET' | 'POST', path: string, query: Query | undefined, body: Record<string, unknown> | undefined): Promise<PaystackAnswer> {
    const url = new URL(config.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const where = `Paystack ${method} ${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${config.secretKey}`, accept: 'application/json' };
    if (body) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await deps.fetch(url, {
        method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
        // Never follow a redirect: the Bearer key goes to Paystack's base URL and nowhere else.
        redirect: 'error',
        signal: AbortSignal.timeout(deps.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const reason = timedOut ? `no answer within ${deps.timeoutMs} ms` : `network error (${error instanceof Error ? error.name : 'unknown'})`;
      throw new PaystackUnavailable(`${where}: ${reason}`);
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const status = response.status;
    if (status >= 500) throw new PaystackUnavailable(`${where}: Paystack answered ${status}${isEnvelope(parsed) ? `: ${paystackMessage(parsed)}` : ''}`);
    if (status === 429) throw new PaystackUnavailable(`${where}: Paystack is rate limiting us (429)`);
    if (status === 401 || status === 403) {
      const message = isEnvelope(parsed) ? paystackMessage(parsed) : '';
      deps.log('paystack refused our secret key: check PAYSTACK_SECRET_KEY', { path, status, message });
      throw new PaystackUnavailable(`${where}: Paystack refused our secret key (${status}${message ? `: ${message}` : ''})`);
    }
    if (!isEnvelope(parsed)) throw new PaystackUnavailable(`${where}: answered ${status} without Paystack's JSON envelope`);
    return { httpStatus: status, body: parsed };
  }
  return {
    get: (path, query) => call('GET', path, query, undefined),
    post: (path, body) => call('POST', path, undefined, body),
  };
}
