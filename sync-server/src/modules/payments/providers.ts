import type { Rail } from './rails.ts';
import type { Receiver } from './receiver.ts';

/** What a payout adapter is asked to pay (live mode, rails other than `wallet`). Amounts in minor units. */
export interface PayoutRequest {
  /** The payment id: adapters must treat it as their idempotency key (a submit may be repeated). */
  paymentId: string;
  rail: Rail;
  toCountry: string;
  destinationAmount: number;
  destinationCurrency: string;
  receiver: Receiver;
  receiverName: string | null;
  senderName: string | null;
  reference: string | null;
  note: string | null;
  /**
   * Who sends the money, for the providers that must tell (Flutterwave to Kenya: meta.sender,
   * sender_country, mobile_number): filled by the scheduler from the merchant's profile before a
   * submit (lookups and polls do not carry it). Absent when the payment has no such profile.
   */
  sender?: PayoutSender;
}

/** The sender of a payout as its merchant's profile has it. */
export interface PayoutSender {
  name: string;
  /** ISO 3166 alpha-2. */
  country: string;
  /** Digits with the country code, no '+': the merchant's own mobile money number, where it registered one. */
  mobileNumber?: string;
}

/** Where the adapter says the payout stands. */
export interface PayoutUpdate {
  status: 'processing' | 'completed' | 'failed' | 'reversed';
  providerReference?: string;
  /** Required with failed and reversed: a sentence the merchant can read. */
  failureReason?: string;
  estimatedArrival?: Date;
}

/**
 * A payout adapter (a mobile-money aggregator, a bank, a cash-pickup network). The scheduler
 * submits each live payment once it is debited and then polls until it is final; both calls
 * happen outside database transactions and are retried with backoff when they throw.
 */
export interface PayoutProvider {
  readonly name: string;
  supports(rail: Rail, toCountry: string): boolean;
  submit(request: PayoutRequest): Promise<PayoutUpdate>;
  poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate>;
  /**
   * What became of a payout submitted before whose answer was never recorded (a timeout, a 5xx,
   * a crash between sending and recording): undefined when the provider never heard of it. The
   * scheduler asks it before any second submit, so a payout is never sent twice. Adapters whose
   * submit is itself safe to repeat may leave it out.
   */
  lookup?(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  /**
   * How long a completed payout is still asked about (poll), for a provider that tells of a later
   * reversal only when asked (Safaricom: a reversal made on the M-PESA portal sends nothing).
   * The polls thin out as the payout ages (half its age, between RAIL_POLL_MS and 6 hours).
   */
  readonly watchAfterCompletionMs?: number;
  /**
   * Why this provider cannot pay this destination amount (minor units of its currency), asked
   * before anything is debited; undefined when it can. M-Pesa B2C pays whole shillings only, so an
   * FX payout that converts to KES with cents is refused up front (422 amount_not_payable) rather
   * than debited, sent and failed. Absent: every positive amount is payable.
   */
  refuseAmount?(destinationAmount: number, destinationCurrency: string): string | undefined;
  /**
   * Whether this payout must carry its sender (PayoutRequest.sender): the scheduler looks the
   * sender up only then, not for every submit. Absent: never.
   */
  needsSender?(request: PayoutRequest): boolean;
}

/** The 422 a payment gets when its provider cannot pay the destination amount (before any debit). */
export const AMOUNT_NOT_PAYABLE = 'amount_not_payable';

export function findPayoutProvider(providers: readonly PayoutProvider[], rail: Rail, toCountry: string): PayoutProvider | undefined {
  return providers.find((provider) => provider.supports(rail, toCountry));
}
