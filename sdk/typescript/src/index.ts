export { Tapline, type CallOptions, type RawAnswer, type RequestOptions, type TaplineOptions } from './client.ts';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  GoneError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  TaplineError,
  UnprocessableError,
  retryAfterSeconds,
} from './errors.ts';
export { FINAL_PAYMENT_STATUSES } from './payments.ts';
export { FINAL_POS_STATUSES, type ChargeOptions } from './pos.ts';
export { type WaitOptions } from './polling.ts';
export { DEFAULT_RETRY_POLICY, type RetryEvent, type RetryPolicy } from './retry.ts';
export { SIGNATURE_HEADER, WebhookSignatureError, isValidWebhookSignature, signWebhookPayload, verifyWebhook, type VerifyOptions } from './webhooks.ts';
export type * from './types.ts';
