// HTTP to Daraja: the OAuth access token (cached, refreshed once when Daraja calls it invalid)
// and JSON POSTs with a per-request timeout. Knows nothing of payouts or collections.
// Page: vendor/daraja/Authorization.md.
import type { RailAdapterDeps } from '../types.ts';
import type { MpesaConfig } from './config.ts';

/** Daraja's error body: BusinessToCustomer.md "Sample Error Response". */
export interface DarajaError {
  requestId?: string;
  errorCode?: string;
  errorMessage?: string;
}

export interface DarajaAnswer {
  /** HTTP status. */
  status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: Record<string, unknown> | undefined;
}

/** A token is used until this long before Daraja says it expires (or a tenth of its life, if shorter). */
const TOKEN_MARGIN_MS = 60_000;

/**
 * Daraja's pages disagree on how an expired or wrong token is answered: MpesaExpressSimulate.md
 * and Reversal.md say `404.001.03 Invalid Access Token` (HTTP 404), TransactionStatus.md says
 * `400.003.01 Invalid Access Token`; an HTTP 401 is also taken as one.
 */
export function isInvalidToken(answer: DarajaAnswer): boolean {
  if (answer.status === 401) return true;
  const error = answer.body as DarajaError | undefined;
  return error?.errorCode === '404.001.03' || error?.errorCode === '400.003.01' || /invalid access token/i.test(String(error?.errorMessage ?? ''));
}

export class DarajaClient {
  private token: { value: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;
  private readonly secrets: string[];

  constructor(
    private readonly config: MpesaConfig,
    private readonly deps: RailAdapterDeps,
    securityCredential: string,
  ) {
    this.secrets = [config.consumerKey, config.consumerSecret, config.passkey ?? '', securityCredential, config.credential.kind === 'encrypt' ? config.credential.initiatorPassword : '']
      .filter((secret) => secret.length >= 4);
  }

  /** Text from Daraja (or an error) with every secret we hold blanked out, for reasons and logs. */
  redact(text: string): string {
    let out = text;
    for (const secret of [...this.secrets, this.token?.value ?? '']) {
      if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    }
    return out;
  }

  /** A describable failure for a thrown error: path and what went wrong, never a secret. */
  private failure(path: string, error: unknown): Error {
    const name = (error as Error)?.name;
    const what = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${this.deps.timeoutMs} ms` : this.redact(String((error as Error)?.message ?? error));
    return new Error(`M-Pesa ${path}: ${what} (outcome unknown)`);
  }

  private async fetchToken(): Promise<string> {
    const path = '/oauth/v1/generate?grant_type=client_credentials';
    const basic = Buffer.from(`${this.config.consumerKey}:${this.config.consumerSecret}`, 'utf8').toString('base64');
    let response: Response;
    let text: string;
    try {
      response = await this.deps.fetch(`${this.config.baseUrl}${path}`, {
        method: 'GET',
        headers: { authorization: `Basic ${basic}`, accept: 'application/json' },
        signal: AbortSignal.timeout(this.deps.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw this.failure('OAuth', error);
    }
    let body: { access_token?: unknown; expires_in?: unknown; errorCode?: unknown; errorMessage?: unknown } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = undefined;
    }
    const value = typeof body?.access_token === 'string' ? body.access_token : '';
    // expires_in: a number in the page's sample (3599); some gateways send it as a string.
    const expiresInSeconds = Number(body?.expires_in);
    if (!response.ok || !value) {
      const detail = body?.errorCode ? `${String(body.errorCode)} ${String(body.errorMessage ?? '')}`.trim() : `HTTP ${response.status}`;
      throw new Error(`M-Pesa OAuth refused the consumer key and secret: ${this.redact(detail)}`);
    }
    const lifeMs = Number.isFinite(expiresInSeconds) && expiresInSeconds > 0 ? expiresInSeconds * 1000 : 3_599_000;
    const now = this.deps.now().getTime();
    this.token = { value, renewAt: now + lifeMs - Math.min(TOKEN_MARGIN_MS, lifeMs / 10) };
    return value;
  }

  /** The cached token, or a new one (one request at a time: Authorization.md FAQ 3, a new token invalidates the previous). */
  async accessToken(): Promise<string> {
    if (this.token && this.deps.now().getTime() < this.token.renewAt) return this.token.value;
    if (!this.pending) {
      this.pending = this.fetchToken().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }

  private forget(token: string): void {
    if (this.token?.value === token) this.token = undefined;
  }

  /**
   * POSTs a JSON body with the bearer token. An answer calling the token invalid renews it once
   * and sends again (safe: the gateway refused the request before M-Pesa saw it). Throws when no
   * answer came (network error, timeout), when the token cannot be had or is refused again; every
   * other HTTP answer, 5xx included, is returned for the caller to judge.
   */
  async post(path: string, body: Record<string, unknown>): Promise<DarajaAnswer> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.accessToken();
      let answer: DarajaAnswer;
      try {
        const response = await this.deps.fetch(`${this.config.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.deps.timeoutMs),
        });
        const text = await response.text();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        answer = { status: response.status, body: parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined };
      } catch (error) {
        throw this.failure(path, error);
      }
      if (isInvalidToken(answer)) {
        this.forget(token);
        if (attempt === 0) continue;
        // Refused before M-Pesa saw it, twice: a set-up problem, never a verdict on a payment.
        throw new Error(`M-Pesa ${path}: the access token was refused again after renewal (${this.describe(answer)})`);
      }
      return answer;
    }
  }

  /** "errorCode errorMessage" of an error answer, redacted, for reasons and thrown errors. */
  describe(answer: DarajaAnswer): string {
    const error = answer.body as DarajaError | undefined;
    const text = error?.errorCode || error?.errorMessage ? `${error.errorCode ?? ''} ${error.errorMessage ?? ''}`.trim() : `HTTP ${answer.status}`;
    return this.redact(text);
  }
}
