// HTTP to Flutterwave v3: `Authorization: Bearer <secret key>`, JSON both ways, one timeout per
// request. Every answer is the envelope the documents show, `{ status: "success" | "error",
// message, data, meta? }` (Node-v3 documentation/*.md; developer.flutterwave.com "Errors":
// validation errors are 400, authorization errors 401, server errors 5xx and "Handling Error
// Timeouts": a 503 after about 28 s, which does not mean the request failed).
import type { RailAdapterDeps } from '../types.ts';
import type { FlutterwaveConfig } from './config.ts';

export interface Envelope {
  status?: unknown;
  message?: unknown;
  data?: unknown;
  meta?: unknown;
}

export interface FlutterwaveAnswer {
  httpStatus: number;
  body: Envelope;
}

export type ClientDeps = Pick<RailAdapterDeps, 'fetch' | 'timeoutMs'>;

/** Why a call gave no usable answer. `unreachable` and `server` leave the outcome of a write unknown. */
export type FailureKind = 'unreachable' | 'server' | 'auth' | 'rate_limited' | 'refused' | 'malformed' | 'not_found';

/** A Flutterwave call that did not succeed; its message never carries a secret. */
export class FlutterwaveError extends Error {
  readonly kind: FailureKind;
  readonly httpStatus: number | undefined;
  /** Flutterwave's own `message`, trimmed, when it sent one. */
  readonly providerMessage: string | undefined;

  constructor(kind: FailureKind, message: string, httpStatus?: number, providerMessage?: string) {
    super(message);
    this.name = 'FlutterwaveError';
    this.kind = kind;
    this.httpStatus = httpStatus;
    this.providerMessage = providerMessage;
  }
}

export interface FlutterwaveClient {
  request(method: 'GET' | 'POST', path: string, options?: { query?: Record<string, string | number | undefined>; body?: unknown }): Promise<FlutterwaveAnswer>;
  /** The body's message as readable text (secrets removed, at most 200 characters), or undefined. */
  messageOf(body: Envelope): string | undefined;
}

export function createClient(config: FlutterwaveConfig, deps: ClientDeps): FlutterwaveClient {
  const scrub = (text: string): string => {
    let clean = text;
    for (const secret of [config.secretKey, config.secretHash]) if (secret) clean = clean.split(secret).join('[redacted]');
    return clean.replace(/\s+/g, ' ').trim().slice(0, 200);
  };

  const messageOf = (body: Envelope): string | undefined => (typeof body.message === 'string' && body.message.trim() ? scrub(body.message) : undefined);

  async function request(method: 'GET' | 'POST', path: string, options: { query?: Record<string, string | number | undefined>; body?: unknown } = {}): Promise<FlutterwaveAnswer> {
    const url = new URL(`${config.baseUrl}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const what = `${method} ${path}`;
    let response: Response;
    try {
      response = await deps.fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${config.secretKey}`,
          Accept: 'application/json',
          ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: AbortSignal.timeout(deps.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new FlutterwaveError('unreachable', `Flutterwave did not answer ${what} (${timedOut ? `no answer within ${deps.timeoutMs} ms` : 'network error'})`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new FlutterwaveError('unreachable', `Flutterwave's answer to ${what} was cut off (HTTP ${response.status})`, response.status);
    }
    let body: Envelope = {};
    try {
      const parsed: unknown = text ? JSON.parse(text) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Envelope;
      else if (response.ok) throw new Error('not an object');
    } catch {
      if (response.ok) throw new FlutterwaveError('malformed', `Flutterwave answered ${what} with HTTP ${response.status} but no JSON object`, response.status);
    }
    return { httpStatus: response.status, body };
  }

  return { request, messageOf };
}

/** The `data` of a 2xx `status: "success"` answer; otherwise the FlutterwaveError that describes it. */
export function successData(client: FlutterwaveClient, answer: FlutterwaveAnswer, what: string): unknown {
  const { httpStatus, body } = answer;
  if (httpStatus >= 200 && httpStatus < 300 && body.status === 'success') return body.data;
  throw errorOf(client, answer, what);
}

/** Classifies an unsuccessful answer. */
export function errorOf(client: FlutterwaveClient, answer: FlutterwaveAnswer, what: string): FlutterwaveError {
  const { httpStatus, body } = answer;
  const said = client.messageOf(body);
  const detail = `${what}: HTTP ${httpStatus}${said ? `, "${said}"` : ''}`;
  if (httpStatus >= 200 && httpStatus < 300) return new FlutterwaveError('malformed', `Flutterwave did not report success for ${detail}`, httpStatus, said);
  if (httpStatus === 401 || httpStatus === 403) return new FlutterwaveError('auth', `Flutterwave refused our credentials for ${detail}`, httpStatus, said);
  if (httpStatus === 404) return new FlutterwaveError('not_found', `Flutterwave found nothing for ${detail}`, httpStatus, said);
  if (httpStatus === 429) return new FlutterwaveError('rate_limited', `Flutterwave is rate limiting ${detail}`, httpStatus, said);
  if (httpStatus >= 500) return new FlutterwaveError('server', `Flutterwave failed on ${detail}`, httpStatus, said);
  return new FlutterwaveError('refused', `Flutterwave refused ${detail}`, httpStatus, said);
}

/** A definitive answer about the request itself (a 4xx other than authorization, 404 and rate limiting). */
export function isRefusal(answer: FlutterwaveAnswer): boolean {
  const { httpStatus } = answer;
  return httpStatus >= 400 && httpStatus < 500 && ![401, 403, 404, 408, 429].includes(httpStatus);
}
