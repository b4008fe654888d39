// What the adapter's parts share: configuration, dependencies, the Daraja client and the memory.
import type { CallbackVerdict, RailAdapterDeps } from '../types.ts';
import type { DarajaClient } from './client.ts';
import type { MpesaConfig } from './config.ts';
import type { BoundedMap, CollectionMemory, PayoutMemory, StatusWaiters } from './memory.ts';

export interface MpesaContext {
  config: MpesaConfig;
  deps: RailAdapterDeps;
  client: DarajaClient;
  securityCredential: string;
  payouts: BoundedMap<PayoutMemory>;
  collections: BoundedMap<CollectionMemory>;
  waiters: StatusWaiters;
}

/** Daraja's paths (the pages' sandbox URLs without the host). */
export const PATHS = {
  b2c: '/mpesa/b2c/v3/paymentrequest',
  transactionStatus: '/mpesa/transactionstatus/v1/query',
  reversal: '/mpesa/reversal/v1/request',
  stkPush: '/mpesa/stkpush/v1/processrequest',
  stkQuery: '/mpesa/stkpushquery/v1/query',
} as const;

/** A Daraja code as a string: ResponseCode and ResultCode arrive as "0" or 0. */
export function code(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function refused(reason: string): CallbackVerdict {
  return { kind: 'refused', reason };
}

export function ignored(reason: string): CallbackVerdict {
  return { kind: 'ignored', reason };
}
