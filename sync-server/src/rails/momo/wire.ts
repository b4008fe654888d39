// MoMo's bodies: what a transfer / request-to-pay POST carries and what a status GET (or the
// callback, which MTN describes as the same representation) answers.
//
// The vendored documents give the operations, the headers and the statuses (PENDING, SUCCESSFUL,
// FAILED: api-description.md, "POST") but no body example. The field names used here are the
// Open API's: amount (a string), currency, externalId, payee / payer { partyIdType: "MSISDN",
// partyId }, payerMessage, payeeNote, and in answers status, reason and financialTransactionId.
import { formatMinor } from '@tapline/shared/money';

/**
 * An amount in minor units as the string MoMo takes in major units: "1500" for UGX 1500 (no
 * decimals in ISO 4217), "10.5" for GHS 10.50. Whole amounts carry no fraction. The documents
 * are silent on decimals; ISO 4217 exponents are the only reading of "ISO international standards
 * for ... currency" (introduction.md).
 */
export function amountText(minor: number, currency: string): string {
  const text = formatMinor(minor, currency);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * payerMessage / payeeNote: the documents give no limit. Kept to one printable line of at most
 * 160 characters, this adapter's choice (an SMS-sized text is what ends up in the wallets'
 * transaction histories).
 */
export const MESSAGE_LENGTH_MAX = 160;

/** The text with every control character (C0, DEL) made a space. */
export function printable(text: string): string {
  return Array.from(text, (char) => {
    const code = char.codePointAt(0)!;
    return code < 0x20 || code === 0x7f ? ' ' : char;
  }).join('');
}

export function messageText(text: string): string {
  return Array.from(printable(text).replace(/\s+/g, ' ').trim()).slice(0, MESSAGE_LENGTH_MAX).join('').trim();
}

/** E.164 to MoMo's MSISDN partyId: the digits without the +. */
export function msisdnOf(phone: string): string {
  return phone.replace(/^\+/, '');
}

export interface Party {
  partyIdType: 'MSISDN';
  partyId: string;
}

export interface TransferBody {
  amount: string;
  currency: string;
  externalId: string;
  payee: Party;
  payerMessage: string;
  payeeNote: string;
}

export interface RequestToPayBody {
  amount: string;
  currency: string;
  externalId: string;
  payer: Party;
  payerMessage: string;
  payeeNote: string;
}

/** A transfer or request-to-pay as a status GET (or a callback) shows it. */
export interface MomoResource {
  status: string;
  /** The failure reason's code, e.g. PAYEE_NOT_FOUND (a string or { code, message } on the wire). */
  reasonCode: string | undefined;
  financialTransactionId: string | undefined;
  externalId: string | undefined;
  amount: string | undefined;
  currency: string | undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Reads a status answer. `reason` is read both as a bare code ("PAYEE_NOT_FOUND") and as an
 * object { code, message }: the documents show neither, and both shapes are seen in the wild.
 * Undefined when the body has no status.
 */
export function parseResource(body: unknown): MomoResource | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  const status = text(record.status)?.toUpperCase();
  if (!status) return undefined;
  const reason = record.reason;
  let reasonCode: string | undefined;
  if (typeof reason === 'string') reasonCode = reason;
  else if (reason && typeof reason === 'object' && 'code' in reason) reasonCode = text(reason.code);
  return {
    status,
    reasonCode: reasonCode?.trim().toUpperCase() || undefined,
    financialTransactionId: text(record.financialTransactionId),
    externalId: text(record.externalId),
    amount: text(record.amount),
    currency: text(record.currency),
  };
}

/**
 * The statuses of a resource (api-description.md: created PENDING, then SUCCESSFUL or FAILED).
 * testing.md's test numbers answer "Rejected", "Timeout" and "Ongoing": read as FAILED, FAILED
 * and PENDING should the platform report them as statuses. REVERSED is not in the documents at
 * all: it is how the local fake (test/fakes/momo) shows a transfer reversed after it succeeded,
 * and it is read as a reversal should MTN ever report one that way.
 */
export type Phase = 'pending' | 'successful' | 'failed' | 'reversed';

export function phaseOf(status: string): Phase | undefined {
  switch (status) {
    case 'PENDING':
    case 'ONGOING':
    case 'CREATED':
      return 'pending';
    case 'SUCCESSFUL':
      return 'successful';
    case 'FAILED':
    case 'REJECTED':
    case 'TIMEOUT':
      return 'failed';
    case 'REVERSED':
      return 'reversed';
    default:
      return undefined;
  }
}
