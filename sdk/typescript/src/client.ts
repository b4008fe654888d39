import { ConnectionError, TaplineError, errorFromAnswer } from './errors.ts';
import { DEFAULT_RETRY_POLICY, type RetryEvent, type RetryPolicy, retryDelayMs, sleep } from './retry.ts';
import type { Answer, Body, HttpMethod, ListItem, ListPaths, PathParams, PathsWith, Query, paths } from './types.ts';
import { paymentsResource } from './payments.ts';
import { posResource } from './pos.ts';
import { type VerifyOptions, verifyWebhook } from './webhooks.ts';

export interface TaplineOptions {
  /** The server, e.g. https://api.example.com (no trailing /api). */
  baseUrl: string;
  /**
   * A merchant key (mk_test_/mk_live_, servers only) or a publishable key (pk_test_/pk_live_, for
   * web pages: only the checkout session routes accept it).
   */
  apiKey?: string;
  /** Which header carries a merchant key: x-merchant-api-key (default) or Authorization: Bearer. */
  keyHeader?: 'x-merchant-api-key' | 'authorization';
  /** A bearer token with its prefix: wallet.<token>, agent.<token>, term.<token> or admin.<token>. */
  token?: string;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Called before every retry, with the failure that caused it. */
  onRetry?: (event: RetryEvent) => void;
  /** The fetch to use; default globalThis.fetch (Node 20, browsers). */
  fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * The Idempotency-Key of a POST. Default: a new UUID per call, kept across its retries, so a
   * retry after a lost answer is answered the first result and never charges twice. Pass your
   * own (an order id) to make the call idempotent across processes too.
   */
  idempotencyKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Overrides the client's maxRetries for this call. */
  maxRetries?: number;
}

export type RequestOptions<P extends keyof paths, M extends HttpMethod> = CallOptions & {
  params?: PathParams<P, M>;
  query?: Query<P, M>;
  body?: Body<P, M>;
};

/** An answer with what the caller may want besides its body. */
export interface RawAnswer<Data> {
  data: Data;
  status: number;
  headers: Headers;
  /** The Idempotency-Key sent (POST), the same on every attempt. */
  idempotencyKey: string | undefined;
  /** 1 when the first attempt answered. */
  attempts: number;
}

/** Secret keys never run in a page: anyone could read them there. */
function runsInBrowser(): boolean {
  const scope = globalThis as { window?: unknown; document?: unknown; WorkerGlobalScope?: unknown };
  return (scope.window !== undefined && scope.document !== undefined) || scope.WorkerGlobalScope !== undefined;
}

function withPathParams(path: string, params: Record<string, unknown> | undefined): string {
  return path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`Path parameter ${name} of ${path} is missing`);
    return encodeURIComponent(String(value));
  });
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The Tapline API client. Every call is typed from the OpenAPI document; POSTs carry an
 * Idempotency-Key kept across retries; network failures, 409 idempotency_in_progress, 429 (after
 * Retry-After) and 5xx are retried with backoff; failures are TaplineErrors carrying the API's
 * `code`.
 */
export class Tapline {
  readonly options: Readonly<TaplineOptions>;
  readonly payments: ReturnType<typeof paymentsResource>;
  readonly pos: ReturnType<typeof posResource>;
  readonly webhooks = {
    /** Checks a webhook's signature on its raw body and answers the event (see verifyWebhook). */
    verify: <Event = Record<string, unknown>>(payload: string | Uint8Array, signature: string | null | undefined, secret: string, options?: VerifyOptions) =>
      verifyWebhook<Event>(payload, signature, secret, options),
  };
  private readonly retryPolicy: RetryPolicy;
  private readonly baseUrl: string;

  constructor(options: TaplineOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required, e.g. https://api.example.com');
    if (options.apiKey?.startsWith('mk_') && runsInBrowser()) {
      throw new TypeError('A secret merchant key (mk_) must never be used in a browser, where anyone can read it: use a publishable key (pk_) from a web page, and the mk_ key only on your server');
    }
    this.options = { ...options };
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.payments = paymentsResource(this);
    this.pos = posResource(this);
  }

  /** A client with other options (another credential, say a wallet session's token). */
  with(options: Partial<TaplineOptions>): Tapline {
    return new Tapline({ ...this.options, ...options });
  }

  /** One API call, typed by its path and method; answers the success body. */
  async request<M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, options: RequestOptions<P, M> = {}): Promise<Answer<P, M>> {
    return (await this.raw(method, path, options)).data;
  }

  /** Like request, with the status, headers (Idempotent-Replayed...), Idempotency-Key and attempts. */
  async raw<M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, options: RequestOptions<P, M> = {}): Promise<RawAnswer<Answer<P, M>>> {
    const url = `${this.baseUrl}${withPathParams(path, options.params as Record<string, unknown> | undefined)}${queryString(options.query as Record<string, unknown> | undefined)}`;
    const idempotencyKey = method === 'post' ? (options.idempotencyKey ?? globalThis.crypto.randomUUID()) : options.idempotencyKey;
    const headers: Record<string, string> = { accept: 'application/json', ...this.credentialHeaders(), ...options.headers };
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const maxRetries = options.maxRetries ?? this.retryPolicy.maxRetries;
    for (let attempt = 1; ; attempt += 1) {
      let failure: TaplineError;
      try {
        const response = await this.fetchOnce(url, { method: method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) }, options);
        const data = await bodyOf(response);
        if (response.ok) return { data: data as Answer<P, M>, status: response.status, headers: response.headers, idempotencyKey, attempts: attempt };
        failure = errorFromAnswer(response.status, response.headers, data);
      } catch (error) {
        if (options.signal?.aborted) throw error;
        failure = error instanceof TaplineError ? error : new ConnectionError(`No answer from ${method.toUpperCase()} ${path}: ${(error as Error).message}`, { code: 'connection_error', cause: error });
      }
      const delayMs = attempt > maxRetries ? undefined : retryDelayMs(this.retryPolicy, failure, attempt - 1);
      if (delayMs === undefined) throw failure;
      this.options.onRetry?.({ attempt, delayMs, error: failure });
      await sleep(delayMs, options.signal);
    }
  }

  /**
   * Every item of a list, page after page (`{data, total, limit, offset}`), fetched as the loop
   * asks for them. Lists are newest first: an item created while iterating may shift the pages
   * and show up twice, or push one later; iterate a filtered list (by status) where that matters.
   */
  async *paginate<P extends ListPaths>(
    path: P,
    options: Omit<RequestOptions<P, 'get'>, 'body' | 'idempotencyKey'> & { pageSize?: number } = {},
  ): AsyncGenerator<ListItem<P>, void, undefined> {
    const pageSize = options.pageSize ?? 100;
    let offset = Number((options.query as { offset?: number } | undefined)?.offset ?? 0);
    for (;;) {
      const query = { ...(options.query as object), limit: pageSize, offset } as unknown as Query<P, 'get'>;
      const page = (await this.request('get', path, { ...options, query } as RequestOptions<P, 'get'>)) as unknown as { data: ListItem<P>[]; total: number };
      for (const item of page.data) yield item;
      offset += page.data.length;
      if (page.data.length === 0 || offset >= page.total) return;
    }
  }

  private credentialHeaders(): Record<string, string> {
    const { apiKey, token, keyHeader } = this.options;
    if (token) return { authorization: `Bearer ${token}` };
    if (!apiKey) return {};
    if (apiKey.startsWith('mk_') && keyHeader !== 'authorization') return { 'x-merchant-api-key': apiKey };
    return { authorization: `Bearer ${apiKey}` };
  }

  private async fetchOnce(url: string, init: RequestInit, options: CallOptions): Promise<Response> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const fetchImpl = this.options.fetch ?? globalThis.fetch;
    try {
      return await fetchImpl(url, { ...init, signal });
    } catch (error) {
      if (timeout.aborted && !options.signal?.aborted) {
        throw new ConnectionError(`No answer within ${timeoutMs} ms`, { code: 'timeout', cause: error });
      }
      throw error;
    }
  }
}
