import type { Biller } from './catalogue.ts';

export interface BillRequest {
  /** The bill payment id: adapters treat it as their idempotency key. */
  billId: string;
  biller: Biller;
  accountRef: string;
  /** Minor units of the biller's currency. */
  amount: number;
  planCode: string | null;
}

export interface BillResult {
  status: 'completed' | 'failed';
  providerReference: string;
  /** Prepaid electricity: the token to key into the meter. */
  token?: string;
  units?: string;
  customerName?: string;
  failureReason?: string;
}

/**
 * A bill-payment aggregator. Live bills go through one; with none configured for a biller a
 * live bill payment is a 422 biller_unavailable (test mode answers with sandbox results).
 */
export interface BillerProvider {
  readonly name: string;
  supports(biller: Biller): boolean;
  pay(request: BillRequest): Promise<BillResult>;
}
