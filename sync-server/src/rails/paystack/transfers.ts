// A Paystack transfer object (POST /transfer, GET /transfer/verify/{reference}, GET /transfer,
// the transfer.* webhooks) read into what Tapline needs, and its status into a PayoutUpdate.
//
// Statuses (openapi.yaml GET /transfer `status` enum): pending, success, failed, otp, abandoned,
// reversed, blocked, rejected, received. The documents do not define each one; read as:
//   success                               -> completed (the money reached the receiver)
//   failed, abandoned, blocked, rejected  -> failed (nothing was paid; Paystack keeps the money)
//   reversed                              -> reversed (paid, then returned to our balance)
//   pending, received, otp, anything else -> processing. `otp` waits for a code sent to the
//   business's phone (POST /transfer/finalize_transfer), which an unattended server cannot give:
//   it is logged so an operator disables the Transfers OTP in the Paystack dashboard.
import type { PayoutUpdate } from '../types.ts';

export interface PaystackTransfer {
  status: string;
  reference: string;
  transferCode: string | undefined;
  amount: number | undefined;
  currency: string | undefined;
  /** ISO time; from createdAt (or created_at in older payloads). */
  createdAt: string | undefined;
  gatewayResponse: string | undefined;
}

export function readTransfer(value: unknown): PaystackTransfer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Record<string, unknown>;
  if (typeof data.status !== 'string' || typeof data.reference !== 'string') return undefined;
  const text = (field: unknown) => (typeof field === 'string' && field.trim() !== '' ? field.trim() : undefined);
  return {
    status: data.status,
    reference: data.reference,
    transferCode: text(data.transfer_code),
    amount: typeof data.amount === 'number' ? data.amount : undefined,
    currency: text(data.currency),
    createdAt: text(data.createdAt) ?? text(data.created_at),
    gatewayResponse: text(data.gateway_response),
  };
}

const FAILED = new Set(['failed', 'abandoned', 'blocked', 'rejected']);

export type TransferState = 'processing' | 'completed' | 'failed' | 'reversed';

export function stateOf(status: string): TransferState {
  if (status === 'success') return 'completed';
  if (status === 'reversed') return 'reversed';
  if (FAILED.has(status)) return 'failed';
  return 'processing';
}

export function updateOf(transfer: PaystackTransfer): PayoutUpdate {
  const state = stateOf(transfer.status);
  const reference = transfer.transferCode ? { providerReference: transfer.transferCode } : {};
  const detail = transfer.gatewayResponse ? ` (${transfer.gatewayResponse})` : '';
  if (state === 'failed') {
    return { status: 'failed', ...reference, failureReason: `Paystack could not pay the receiver (transfer ${transfer.status}${detail}). Nothing was paid.` };
  }
  if (state === 'reversed') {
    return { status: 'reversed', ...reference, failureReason: `Paystack reversed the transfer${detail}: the receiver's bank or operator returned the money.` };
  }
  return { status: state, ...reference };
}
