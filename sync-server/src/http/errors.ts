import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LedgerError } from '../ledger/ledger.ts';
import { MoneyError } from '@tapline/shared/money';
import { isDatabaseUnavailable } from '../db/database.ts';
import type { ErrorCode, ErrorCodeWith } from '@tapline/shared/error-codes';

/** An error the API answers with: a status, a human message and a snake_case code. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: ErrorCode;
  readonly details: unknown[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(statusCode: number, code: ErrorCode, message: string, options: { details?: unknown[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

// Each helper takes only the codes registered with its status (@tapline/shared/error-codes).
export const badRequest = (code: ErrorCodeWith<400>, message: string, details?: unknown[]) => new ApiError(400, code, message, details ? { details } : {});
export const unauthorized = (code: ErrorCodeWith<401>, message: string) => new ApiError(401, code, message);
export const forbidden = (code: ErrorCodeWith<403>, message: string) => new ApiError(403, code, message);
export const notFound = (code: ErrorCodeWith<404>, message: string) => new ApiError(404, code, message);
export const conflict = (code: ErrorCodeWith<409>, message: string) => new ApiError(409, code, message);
export const gone = (code: ErrorCodeWith<410>, message: string) => new ApiError(410, code, message);
export const unprocessable = (code: ErrorCodeWith<422>, message: string) => new ApiError(422, code, message);

/** Seconds a client is asked to wait before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

interface ValidationIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function describeIssue(context: string, issue: ValidationIssue): { field: string; message: string } {
  const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const missing = issue.keyword === 'required' ? String(issue.params.missingProperty ?? '') : '';
  const field = [path, missing].filter(Boolean).join('.') || context;
  let message = issue.message ?? 'is invalid';
  if (issue.keyword === 'required') message = 'is required';
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) message = `must be one of ${issue.params.allowedValues.join(', ')}`;
  return { field, message };
}

/** Maps every failure to the CONTRACT.md error body; only unexpected faults become a 500. */
/** A Retry-After in whole seconds from `now` until `until` (a Date or epoch ms): rounded up, at least 1. */
export function retryAfterSeconds(until: Date | number, now: Date): number {
  const untilMs = typeof until === 'number' ? until : until.getTime();
  return Math.max(1, Math.ceil((untilMs - now.getTime()) / 1000));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.headers) reply.headers(error.headers);
      return reply.status(error.statusCode).send({ error: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) });
    }
    if (error instanceof MoneyError) return reply.status(400).send({ error: error.message, code: error.code });
    if (error instanceof LedgerError && error.code === 'insufficient_funds') {
      return reply.status(422).send({ error: 'Insufficient funds', code: 'insufficient_funds' });
    }
    const fastifyError = error as FastifyError;
    if (fastifyError.validation) {
      const context = fastifyError.validationContext ?? 'request';
      const details = (fastifyError.validation as ValidationIssue[]).map((issue) => describeIssue(context, issue));
      const first = details[0];
      return reply.status(400).send({
        error: first ? `Invalid ${context}: ${first.field} ${first.message}` : `Invalid ${context}`,
        code: 'validation_failed',
        details,
      });
    }
    switch (fastifyError.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return reply.status(400).send({ error: 'The request body is not valid JSON', code: 'invalid_json' });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.status(413).send({ error: 'The request body is too large', code: 'payload_too_large' });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.status(415).send({ error: 'Send the request body as application/json', code: 'unsupported_media_type' });
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.status(400).send({ error: 'Content-Length does not match the body', code: 'invalid_content_length' });
    }
    if (isDatabaseUnavailable(error)) {
      // Nothing is known to have failed but the connection: the client retries (with the same
      // Idempotency-Key where it sent one, which finds whatever did commit).
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
      return reply.status(503).send({ error: 'The database is unavailable; retry shortly', code: 'database_unavailable' });
    }
    const status = fastifyError.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (status === 429) return reply.status(429).send({ error: error.message || 'Too many requests', code: 'rate_limited' });
      return reply.status(status).send({ error: error.message, code: snakeCase(fastifyError.code ?? 'bad_request') });
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.status(500).send({ error: 'Internal server error', code: 'internal_error' });
  });
}

function snakeCase(code: string): string {
  return code.replace(/^FST_ERR_/, '').toLowerCase();
}
