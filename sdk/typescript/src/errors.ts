/**
 * Every failure the client reports is a TaplineError. An answer of the API carries the server's
 * `{error, code, details}`: `code` is the stable snake_case name of the rule that failed
 * (`insufficient_funds`, `session_not_pending`), the thing to branch on; `message` is for people.
 */
export class TaplineError extends Error {
  /** The API's error code, or `connection_error` / `timeout` when no answer came. */
  readonly code: string;
  /** The HTTP status, absent when no answer came. */
  readonly status: number | undefined;
  readonly details: unknown[] | undefined;
  /** The answer's headers (Retry-After, X-RateLimit-*), when there was an answer. */
  readonly headers: Headers | undefined;

  constructor(message: string, options: { code: string; status?: number; details?: unknown[]; headers?: Headers; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The API answered 4xx or 5xx. */
export class ApiError extends TaplineError {
  declare readonly status: number;
}
/** 400, 413, 415: the request is invalid (`validation_failed`, `invalid_json`, `idempotency_key_required`...). */
export class InvalidRequestError extends ApiError {}
/** 401: the credential is missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends ApiError {}
/** 403: the credential is valid but not allowed (`credential_not_allowed`, `wrong_pin`, `pin_required`...). */
export class PermissionError extends ApiError {}
/** 404: unknown, another merchant's, or of the other mode. */
export class NotFoundError extends ApiError {}
/** 409: the state does not allow it (`session_not_pending`), or the same Idempotency-Key is still running. */
export class ConflictError extends ApiError {}
/** 410: expired (`session_expired`, `quote_expired`). */
export class GoneError extends ApiError {}
/** 422: a business rule refused it (`insufficient_funds`, `rail_unavailable`, `idempotency_key_reused`). */
export class UnprocessableError extends ApiError {}
/** 429: too many requests; `retryAfterSeconds` says when to try again. */
export class RateLimitError extends ApiError {
  get retryAfterSeconds(): number | undefined {
    return retryAfterSeconds(this.headers);
  }
}
/** 5xx: the server failed; a retry with the same Idempotency-Key is safe. */
export class ServerError extends ApiError {}
/** No answer: the connection failed or timed out. The request may or may not have run. */
export class ConnectionError extends TaplineError {}

const CLASS_BY_STATUS: Record<number, new (message: string, options: ConstructorParameters<typeof TaplineError>[1]) => ApiError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: UnprocessableError,
  429: RateLimitError,
};

/** The error of an answer: its class from the status, its code and message from the body. */
export function errorFromAnswer(status: number, headers: Headers, body: unknown): ApiError {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as { error?: unknown; code?: unknown; details?: unknown };
  const code = typeof fields.code === 'string' ? fields.code : status >= 500 ? 'server_error' : 'http_error';
  const message = typeof fields.error === 'string' ? fields.error : `HTTP ${status}`;
  const ErrorClass = CLASS_BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new ErrorClass(message, { code, status, headers, ...(Array.isArray(fields.details) ? { details: fields.details } : {}) });
}

/** Retry-After in seconds, from either form the header may take (seconds or an HTTP date). */
export function retryAfterSeconds(headers: Headers | undefined, now = Date.now()): number | undefined {
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
