// Flutterwave's transfer object as GET /v3/transfers/{id}, GET /v3/transfers and the create
// answer show it (Node-v3 documentation/transfers.md): id, account_number, bank_code, full_name,
// created_at, currency, debit_currency, amount (major units), fee, status, reference, meta,
// narration, complete_message, requires_approval, is_approved, bank_name.
// Statuses: NEW and PENDING (queued, in flight), SUCCESSFUL, FAILED. The v3 documents say nothing
// of reversals; v4's transfer webhook marks one with reconciliation_status "REVERSED", and this
// adapter reads a v3 status "REVERSED" the same way (the fake uses it). Any other status is
// treated as still in flight.
import type { PayoutUpdate, ProviderTransaction } from '../types.ts';

export interface TransferRecord {
  id: string;
  reference: string;
  status: string;
  amount: number;
  currency: string;
  createdAt: string | undefined;
  completeMessage: string | undefined;
}

/** Reads one transfer object; undefined when it lacks an id, a reference or a status. */
export function readTransfer(value: unknown): TransferRecord | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const id = typeof record.id === 'number' || (typeof record.id === 'string' && record.id !== '') ? String(record.id) : undefined;
  const reference = typeof record.reference === 'string' ? record.reference : undefined;
  const status = typeof record.status === 'string' ? record.status.toUpperCase() : undefined;
  if (!id || !reference || !status) return undefined;
  return {
    id,
    reference,
    status,
    amount: typeof record.amount === 'number' ? record.amount : Number(record.amount),
    currency: typeof record.currency === 'string' ? record.currency.toUpperCase() : '',
    createdAt: typeof record.created_at === 'string' ? record.created_at : undefined,
    completeMessage: typeof record.complete_message === 'string' && record.complete_message.trim() ? record.complete_message.replace(/\s+/g, ' ').trim().slice(0, 200) : undefined,
  };
}

function reason(record: TransferRecord, fallback: string): string {
  const said = record.completeMessage?.replace(/^DISBURSE FAILED:\s*/i, '');
  return said ? `Flutterwave: ${said}` : fallback;
}

export function updateOf(record: TransferRecord): PayoutUpdate {
  switch (record.status) {
    case 'SUCCESSFUL':
      return { status: 'completed', providerReference: record.id };
    case 'FAILED':
      return { status: 'failed', providerReference: record.id, failureReason: reason(record, 'Flutterwave reported the transfer failed') };
    case 'REVERSED':
      return { status: 'reversed', providerReference: record.id, failureReason: reason(record, 'Flutterwave reversed the transfer after paying it') };
    default:
      return { status: 'processing', providerReference: record.id };
  }
}

export function transactionStatusOf(record: TransferRecord): ProviderTransaction['status'] {
  switch (record.status) {
    case 'SUCCESSFUL':
      return 'completed';
    case 'FAILED':
      return 'failed';
    case 'REVERSED':
      return 'reversed';
    default:
      return 'pending';
  }
}
