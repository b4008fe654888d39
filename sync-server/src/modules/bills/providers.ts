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

/** What a provider is asked about one of our live bills by its key (the daily reconciliation); amount in minor units. */
export interface BillQuestion {
  billId: string;
  amount: number;
  currency: string;
}

/** The provider's own record of a bill, as its status query by key reads it; `paid` (minor units) where it says completed and carries the amount. */
export interface BillRecord {
  status: 'pending' | 'completed' | 'failed';
  providerReference?: string | undefined;
  paid?: { amount: number; currency: string } | undefined;
}

/**
 * A bill-payment aggregator. Live bills go through one; with none configured for a biller a
 * live bill payment is a 422 biller_unavailable (test mode answers with sandbox results).
 */
export interface BillerProvider {
  readonly name: string;
  supports(biller: Biller): boolean;
  pay(request: BillRequest): Promise<BillResult>;
  /**
   * The provider's record of one of our bills by its key, for the daily reconciliation: undefined
   * when it holds none under that key. Throws when it cannot tell now. A provider without it
   * cannot reconcile bills (a day with live bills through it fails).
   */
  billRecord?(question: BillQuestion): Promise<BillRecord | undefined>;
}
