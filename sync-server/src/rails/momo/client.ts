// HTTP to MTN MoMo: the OAuth 2.0 token of each product, and the authenticated requests.
//
// api-description.md, "Oauth 2.0": a client-credentials token (RFC 6749) requested with the API
// user and API key as Basic credentials, used as an RFC 6750 Bearer token "until it expires"; "a
// new token can be requested for before the previous one has expired". Each product
// (Collections, Disbursements) has its own token endpoint, `POST /<product>/token/`, and its own
// subscription key in `Ocp-Apim-Subscription-Key` ("part of the header of all request sent to the
// API Manager"). The token answer's fields are RFC 6749's (`access_token`, `expires_in` seconds);
// the documents show no example of it.
//
// Every request carries AbortSignal.timeout(deps.timeoutMs): a request that times out, fails on
// the network, or answers something the caller does not expect throws (an unknown outcome).
// Errors name the method, path and HTTP status, never a key, a token or a password.
import type { RailAdapterDeps } from '../types.ts';
import type { MomoConfig } from './config.ts';
import { printable } from './wire.ts';

export type Product = 'collection' | 'disbursement';

export interface MomoResponse {
  status: number;
  /** The JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
}

export class MomoError extends Error {
  constructor(message: string, readonly status?: number, readonly code?: string) {
    super(message);
    this.name = 'MomoError';
  }
}

/** The `code` of a MoMo error body ({ code, message }), if any. */
export function errorCode(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'code' in body && typeof body.code === 'string') return body.code;
  return undefined;
}

/** The `message` of a MoMo error body, short and printable, if any. */
export function errorMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') {
    return printable(body.message).trim().slice(0, 200) || undefined;
  }
  return undefined;
}

interface CachedToken {
  value: string;
  /** Epoch ms after which the token is not used any more (shortly before it expires). */
  renewAt: number;
}

/** How long before its expiry a token is replaced: a tenth of its life, at most a minute. */
function renewMargin(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 10);
}

export class MomoClient {
  private readonly tokens = new Map<Product, CachedToken>();
  private readonly pending = new Map<Product, Promise<CachedToken>>();

  constructor(
    private readonly config: MomoConfig,
    private readonly deps: RailAdapterDeps,
  ) {}

  subscriptionKey(product: Product): string {
    const key = product === 'collection' ? this.config.collectionSubscriptionKey : this.config.disbursementSubscriptionKey;
    if (!key) throw new MomoError(`MTN MoMo ${product === 'collection' ? 'Collections' : 'Disbursements'} is not configured (no subscription key)`);
    return key;
  }

  /**
   * An authenticated request to a product's API. A 401 drops the cached token and the request is
   * sent once more with a fresh one (a 401 is "Authentication failed", so nothing was created);
   * a second 401 is answered to the caller like any other status.
   */
  async request(product: Product, method: 'GET' | 'POST', path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<MomoResponse> {
    let token = await this.token(product);
    let response = await this.send(product, method, path, token.value, options);
    if (response.status === 401) {
      this.forget(product, token);
      token = await this.token(product);
      response = await this.send(product, method, path, token.value, options);
    }
    return response;
  }

  private async send(product: Product, method: string, path: string, token: string, options: { headers?: Record<string, string>; body?: unknown }): Promise<MomoResponse> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      'Ocp-Apim-Subscription-Key': this.subscriptionKey(product),
      'X-Target-Environment': this.config.targetEnvironment,
      ...options.headers,
    };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    return this.fetch(method, path, headers, body);
  }

  private async fetch(method: string, path: string, headers: Record<string, string>, body?: string): Promise<MomoResponse> {
    let response: Response;
    let text: string;
    try {
      response = await this.deps.fetch(`${this.config.baseUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new MomoError(timedOut ? `MTN MoMo did not answer ${method} ${path} within ${this.deps.timeoutMs} ms` : `MTN MoMo could not be reached for ${method} ${path}`);
    }
    if (text.trim() === '') return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: text };
    }
  }

  private forget(product: Product, token: CachedToken): void {
    if (this.tokens.get(product) === token) this.tokens.delete(product);
  }

  /** The cached token of a product, or a new one (concurrent callers share one token request). */
  private async token(product: Product): Promise<CachedToken> {
    const cached = this.tokens.get(product);
    if (cached && this.deps.now().getTime() < cached.renewAt) return cached;
    const inFlight = this.pending.get(product);
    if (inFlight) return inFlight;
    const request = this.requestToken(product).finally(() => this.pending.delete(product));
    this.pending.set(product, request);
    return request;
  }

  private async requestToken(product: Product): Promise<CachedToken> {
    const path = `/${product}/token/`;
    const basic = Buffer.from(`${this.config.apiUser}:${this.config.apiKey}`, 'utf8').toString('base64');
    const response = await this.fetch('POST', path, { Authorization: `Basic ${basic}`, 'Ocp-Apim-Subscription-Key': this.subscriptionKey(product) });
    if (response.status !== 200) {
      throw new MomoError(`MTN MoMo refused the ${product} token request (HTTP ${response.status}): check MOMO_API_USER, MOMO_API_KEY and the subscription key`, response.status, errorCode(response.body));
    }
    const body = response.body;
    const accessToken = body && typeof body === 'object' && 'access_token' in body ? body.access_token : undefined;
    const expiresIn = body && typeof body === 'object' && 'expires_in' in body ? Number(body.expires_in) : NaN;
    if (typeof accessToken !== 'string' || accessToken === '') throw new MomoError(`MTN MoMo's ${product} token answer has no access_token`);
    // RFC 6749 makes expires_in optional; without one the token is used for a minute at most.
    const lifetimeMs = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : 60_000;
    const token = { value: accessToken, renewAt: this.deps.now().getTime() + lifetimeMs - renewMargin(lifetimeMs) };
    this.tokens.set(product, token);
    return token;
  }
}
