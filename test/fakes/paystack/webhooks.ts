// Webhooks as Paystack sends them: POST, JSON body `{ event, data }`, header
// `x-paystack-signature` = hex HMAC-SHA512 of the exact bytes sent, keyed with the secret key.
// Each body is built on Paystack's own sample of that event (vendor/paystack/events/*.json), so
// it has that sample's keys and nesting (the success sample is the 2025 one with createdAt, the
// failed and reversed ones older, with created_at), with this transfer's values in them.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type TransferEvent = 'transfer.success' | 'transfer.failed' | 'transfer.reversed';
/** Every event the fake sends: the transfer events and a mobile money charge's charge.success. */
export type PaystackEvent = TransferEvent | 'charge.success';

const SAMPLE_FILES: Readonly<Record<PaystackEvent, string>> = {
  'transfer.success': 'transfer-successful.json',
  'transfer.failed': 'transfer-failed.json',
  'transfer.reversed': 'transfer-reversed.json',
  'charge.success': 'charge-success-mobile-money.json',
};

export function sampleEvent(event: PaystackEvent): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../../vendor/paystack/events/${SAMPLE_FILES[event]}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** What a webhook needs to know of a transfer and its recipient. */
export interface WebhookTransfer {
  id: number;
  integration: number;
  amount: number;
  currency: string;
  reason: string;
  reference: string;
  status: string;
  transferCode: string;
  transferredAt: string | null;
  createdAt: string;
  updatedAt: string;
  gatewayResponse: string | null;
  session: { provider: string | null; id: string | null };
  recipient: {
    id: number;
    name: string;
    recipientCode: string;
    type: string;
    currency: string;
    createdAt: string;
    accountNumber: string;
    accountName: string | null;
    bankCode: string;
    bankName: string;
  };
}

/** Sets `key` on `target` only where the sample has it (so the shape stays the sample's). */
function put(target: Record<string, unknown>, values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) if (Object.hasOwn(target, key)) target[key] = value;
}

export function eventBody(event: TransferEvent, transfer: WebhookTransfer): Record<string, unknown> {
  const body = sampleEvent(event);
  const data = body.data as Record<string, unknown>;
  put(data, {
    amount: transfer.amount,
    currency: transfer.currency,
    domain: 'test',
    failures: null,
    id: transfer.id,
    reason: transfer.reason,
    reference: transfer.reference,
    source: 'balance',
    source_details: null,
    status: transfer.status,
    titan_code: null,
    transfer_code: transfer.transferCode,
    transferred_at: transfer.transferredAt,
    createdAt: transfer.createdAt,
    created_at: transfer.createdAt,
    updatedAt: transfer.updatedAt,
    updated_at: transfer.updatedAt,
    session: { ...transfer.session },
    fee_charged: 0,
    gateway_response: transfer.gatewayResponse,
  });
  const integration = data.integration as Record<string, unknown>;
  put(integration, { id: transfer.integration, is_live: false, business_name: 'Tapline fake integration' });
  const recipient = data.recipient as Record<string, unknown>;
  const r = transfer.recipient;
  put(recipient, {
    active: true,
    currency: r.currency,
    description: null,
    domain: 'test',
    email: null,
    id: r.id,
    integration: transfer.integration,
    metadata: null,
    name: r.name,
    recipient_code: r.recipientCode,
    type: r.type,
    is_deleted: false,
    createdAt: r.createdAt,
    created_at: r.createdAt,
    updatedAt: r.createdAt,
    updated_at: r.createdAt,
  });
  put(recipient.details as Record<string, unknown>, {
    authorization_code: null,
    account_number: r.accountNumber,
    account_name: r.accountName,
    bank_code: r.bankCode,
    bank_name: r.bankName,
  });
  return body;
}

export interface SentWebhook {
  event: PaystackEvent;
  reference: string;
  body: string;
  signature: string;
  /** The receiver's HTTP status; undefined when it could not be reached. */
  answered: number | undefined;
}

export function sign(secretKey: string, bytes: Buffer): string {
  return createHmac('sha512', secretKey).update(bytes).digest('hex');
}

/** POSTs the body (the exact bytes signed) to the callback URL; never throws. */
export async function deliver(callbackBase: string, secretKey: string, event: PaystackEvent, reference: string, body: Record<string, unknown>): Promise<SentWebhook> {
  const text = JSON.stringify(body);
  const bytes = Buffer.from(text, 'utf8');
  const signature = sign(secretKey, bytes);
  let answered: number | undefined;
  try {
    const response = await fetch(callbackBase, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
      body: bytes,
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    answered = response.status;
  } catch {
    answered = undefined;
  }
  return { event, reference, body: text, signature, answered };
}
