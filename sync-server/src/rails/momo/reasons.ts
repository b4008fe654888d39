// MoMo's error and failure-reason codes as sentences a merchant can read.
//
// Codes from common-error-codes.md (its Description column is shifted by one row for the generic
// codes from NOT_ALLOWED_TARGET_ENVIRONMENT down; the meanings below follow the code names:
// NOT_ALLOWED_TARGET_ENVIRONMENT "Not allowed target environment", INVALID_CALLBACK_URL_HOST
// "Callback URL with different host name then configured for API User", INVALID_CURRENCY
// "Currency not supported on the requested account", INTERNAL_PROCESSING_ERROR "Internal
// error", SERVICE_UNAVAILABLE the default). APPROVAL_REJECTED and EXPIRED are not in the
// documents: they are the codes read for testing.md's "Rejected" and "Timeout" outcomes (the
// customer declined; nobody approved in time), as the local fake reports them.

export type Direction = 'payout' | 'collection';

/**
 * The codes that, answered to a POST (HTTP 500 in common-error-codes.md), refuse that one request
 * for good: nothing was created, another try of the same request gets the same answer.
 */
export const REFUSALS: ReadonlySet<string> = new Set([
  'PAYEE_NOT_FOUND',
  'PAYER_NOT_FOUND',
  'NOT_ENOUGH_FUNDS',
  'PAYER_LIMIT_REACHED',
  'PAYEE_NOT_ALLOWED_TO_RECEIVE',
  'INVALID_CURRENCY',
]);

/** The codes of a configuration mistake of ours: no payment should fail for them, an operator must fix the setup. */
export const MISCONFIGURATIONS: ReadonlySet<string> = new Set(['NOT_ALLOWED', 'NOT_ALLOWED_TARGET_ENVIRONMENT', 'INVALID_CALLBACK_URL_HOST']);

const PAYOUT: Readonly<Record<string, string>> = {
  PAYEE_NOT_FOUND: 'The receiver\'s number has no MTN MoMo account (PAYEE_NOT_FOUND)',
  NOT_ENOUGH_FUNDS: 'The MTN MoMo disbursement account has not enough funds for this transfer (NOT_ENOUGH_FUNDS)',
  PAYER_LIMIT_REACHED: 'The MTN MoMo disbursement account has reached its limit (PAYER_LIMIT_REACHED)',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'The receiver\'s MTN MoMo account cannot receive this amount, e.g. a transfer limit (PAYEE_NOT_ALLOWED_TO_RECEIVE)',
  INVALID_CURRENCY: 'MTN MoMo does not take this currency on the account (INVALID_CURRENCY)',
  INTERNAL_PROCESSING_ERROR: 'MTN MoMo could not process the transfer (INTERNAL_PROCESSING_ERROR)',
  APPROVAL_REJECTED: 'MTN MoMo rejected the transfer (APPROVAL_REJECTED)',
  EXPIRED: 'The transfer timed out at MTN MoMo (EXPIRED)',
};

const COLLECTION: Readonly<Record<string, string>> = {
  PAYER_NOT_FOUND: 'The customer\'s number has no MTN MoMo account (PAYER_NOT_FOUND)',
  APPROVAL_REJECTED: 'The customer declined the payment request on their phone (APPROVAL_REJECTED)',
  EXPIRED: 'The customer did not approve the payment request in time (EXPIRED)',
  NOT_ENOUGH_FUNDS: 'The customer\'s MTN MoMo account has not enough funds (NOT_ENOUGH_FUNDS)',
  PAYER_LIMIT_REACHED: 'The customer\'s MTN MoMo account has reached its limit (PAYER_LIMIT_REACHED)',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'The merchant\'s MTN MoMo account cannot receive this amount, e.g. a transfer limit (PAYEE_NOT_ALLOWED_TO_RECEIVE)',
  INVALID_CURRENCY: 'MTN MoMo does not take this currency on the account (INVALID_CURRENCY)',
  INTERNAL_PROCESSING_ERROR: 'MTN MoMo could not process the payment request (INTERNAL_PROCESSING_ERROR)',
};

/** A sentence for a failed transfer or request-to-pay, from its reason code (or the status word). */
export function failureReason(direction: Direction, code: string | undefined): string {
  const table = direction === 'payout' ? PAYOUT : COLLECTION;
  const what = direction === 'payout' ? 'transfer' : 'payment request';
  if (code === undefined) return `MTN MoMo reported the ${what} failed without a reason`;
  // A code is shown only when it looks like one: a reason is never echoed as free text.
  const safe = /^[A-Z0-9_]{1,64}$/.test(code) ? code : 'UNREADABLE_REASON';
  if (safe === 'REJECTED') return table.APPROVAL_REJECTED ?? `MTN MoMo rejected the ${what} (REJECTED)`;
  if (safe === 'TIMEOUT') return table.EXPIRED ?? `The ${what} timed out at MTN MoMo (TIMEOUT)`;
  return table[safe] ?? `MTN MoMo reported the ${what} failed (${safe})`;
}

export const REVERSED_REASON = 'MTN MoMo reversed the transfer after it had completed';
