// What every rail adapter (Paystack, Flutterwave, Safaricom Daraja, MTN MoMo) offers the rest of
// the server: payouts (the payment scheduler's PayoutProvider, plus the lookup it asks before any
// resend), collections (a customer pays from their phone) and the provider's inbound callbacks.
// Each adapter lives in rails/<provider>/ and speaks its provider's wire format; nothing outside
// rails/ knows a provider's paths, headers or bodies.
import type { BillerProvider } from '../modules/bills/index.ts';
import type { PayoutProvider, PayoutRequest, PayoutUpdate } from '../modules/payments/index.ts';
import type { ProviderTransaction } from '../modules/reconciliation/index.ts';

export type { PayoutRequest, PayoutUpdate } from '../modules/payments/index.ts';
/** One transaction as the provider's own records show it, for the daily reconciliation (modules/reconciliation). */
export type { ProviderTransaction } from '../modules/reconciliation/index.ts';

/** The providers Tapline has adapters for; also their path segment under /api/rails/. */
export const RAIL_PROVIDERS = ['paystack', 'flutterwave', 'mpesa', 'momo'] as const;
export type RailProviderName = (typeof RAIL_PROVIDERS)[number];

/** A customer paying from their phone (M-Pesa Express, MoMo request-to-pay). Amounts in minor units. */
export interface CollectionRequest {
  /** Ours; the adapter derives the provider's idempotency key from it in a fixed way (keyOf). */
  collectionId: string;
  amount: number;
  currency: string;
  /** E.164, e.g. +254712345678. */
  phone: string;
  /** Shown to the customer on their phone where the provider allows (trimmed to its limits). */
  description: string;
}

export interface CollectionUpdate {
  status: 'pending' | 'completed' | 'failed';
  providerReference?: string;
  /** Required with failed: a sentence the merchant can read. */
  failureReason?: string;
  /**
   * What the provider says was paid (minor units, and its currency), where its record says so: a
   * completion for another amount or currency than the collection asked is never credited.
   */
  paid?: { amount: number; currency: string | undefined };
}

/** A callback as it arrived: the path after /api/rails/<provider>/, its headers (lower-case names) and raw body. */
export interface InboundCallback {
  path: string;
  method: string;
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Buffer;
}

/**
 * What a callback says, once the adapter has verified it (signature, shared hash, or the
 * unguessable per-request token in its path) and, for unsigned ones, confirmed it with the
 * provider's own status query. The route applies it exactly like a poll's answer: idempotent,
 * whatever order callbacks and polls arrive in.
 */
export type CallbackVerdict =
  /** Forged, unsigned, or a token we never issued: 401, counted, nothing changes. */
  | { kind: 'refused'; reason: string }
  /** Genuine but nothing for us to do (an event type we do not use): 200. */
  | { kind: 'ignored'; reason: string }
  | { kind: 'payout'; paymentId: string; update: PayoutUpdate }
  | { kind: 'collection'; collectionId: string; update: CollectionUpdate }
  /** Money that arrived by bank transfer in a wallet's virtual account, confirmed with the provider's own record. */
  | { kind: 'bank_transfer'; transfer: ArrivedBankTransfer };

/** Who a wallet's virtual account is made for (the provider's customer). */
export interface VirtualAccountRequest {
  /** Ours; the adapter derives the customer's (placeholder) identity from it in a fixed way. */
  walletId: string;
  currency: string;
  firstName: string;
  lastName: string;
  /** E.164, where the wallet has one. */
  phone?: string | undefined;
  /**
   * The holder's Bank Verification Number (11 digits), where the provider asks for one (Flutterwave's
   * permanent accounts: VirtualAccountProvider.needsBvn). Passed through to the provider, never stored.
   */
  bvn?: string | undefined;
}

/** A virtual bank account as the provider made it: where money is sent to reach the wallet. */
export interface VirtualAccountDetails {
  providerCustomer: string;
  providerAccountId: string;
  accountNumber: string;
  accountName: string;
  bankName: string;
  bankSlug?: string | undefined;
}

/** A bank transfer into a virtual account, as the provider's own record has it (minor units). */
export interface ArrivedBankTransfer {
  /** The provider's transaction reference: a transfer is credited once under it. */
  providerReference: string;
  /** The virtual account it was paid into, by its number (Paystack, the sandbox)... */
  accountNumber?: string | undefined;
  /**
   * ...or by the provider's reference of the account, where its record names the account that way
   * instead (Flutterwave: the tx_ref the account was made with, kept as its provider_customer).
   */
  accountReference?: string | undefined;
  amount: number;
  currency: string;
  paidAt?: string | undefined;
  senderName?: string | undefined;
  senderBank?: string | undefined;
  narration?: string | undefined;
}

/** Virtual bank accounts for wallets, where the provider offers them (Paystack dedicated virtual accounts, Flutterwave virtual account numbers). */
export interface VirtualAccountProvider {
  /** The currencies it makes accounts in. */
  readonly currencies: readonly string[];
  /** Whether opening an account needs the holder's BVN (VirtualAccountRequest.bvn): Flutterwave's permanent accounts do. */
  readonly needsBvn?: boolean;
  /** Makes (or finds, when made before) the wallet's account in a currency. Throws when the provider cannot answer now. */
  open(request: VirtualAccountRequest): Promise<VirtualAccountDetails>;
  /** Asks the provider to look again for transfers into the account on a UTC day (they arrive by webhook). */
  requery(account: { accountNumber: string; bankSlug?: string | undefined; providerCustomer?: string | undefined }, day: string): Promise<void>;
}

/** The answer the provider expects to a callback it delivered (Daraja wants a JSON body; others a bare 200). */
export interface CallbackReply {
  status: number;
  body?: unknown;
}

export interface RailAdapter extends PayoutProvider {
  readonly name: RailProviderName;
  /** The provider's idempotency key of our payment or collection id: fixed, documented, reversible by idOf. */
  keyOf(id: string): string;
  idOf(key: string): string | undefined;
  /**
   * What became of a payout at the provider, asked before any resend (a timeout, a 5xx, a crash
   * between sending and recording): undefined when the provider never heard of its key, so a
   * submit is safe; otherwise its state. Throws when the provider cannot tell now (try later).
   */
  lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  /** Collections, where the provider offers them. */
  collect?(request: CollectionRequest): Promise<CollectionUpdate>;
  collectionStatus?(request: CollectionRequest): Promise<CollectionUpdate>;
  /**
   * The provider's own record of a collection, for the daily reconciliation: its state as the
   * provider shows it, with what it says was paid where its record carries an amount (`paid`),
   * even when that differs from what was asked; undefined when the provider never heard of the
   * collection's key. `providerReference` is the one we stored (M-Pesa's CheckoutRequestID).
   * Throws when the provider cannot tell now.
   */
  collectionRecord?(request: CollectionRequest, providerReference: string | null): Promise<CollectionUpdate | undefined>;
  /**
   * Whether it collects from phones of this country (ISO code), where the adapter can tell; the
   * collections module skips one that says no (absent: it is asked, and answers in words).
   */
  collectsIn?(country: string): boolean;
  /** Verifies and reads a callback; never throws for bad input (answers refused). */
  callback(inbound: InboundCallback): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }>;
  /** Virtual bank accounts for wallet top-ups by bank transfer, where the provider offers them. */
  virtualAccounts?: VirtualAccountProvider;
  /** The provider's record of a UTC day's transactions (payouts and collections made through it). */
  transactionsOn?(day: string, ours: readonly ProviderTransaction[]): Promise<ProviderTransaction[]>;
  /**
   * The provider's list of a UTC day's money coming in, for the daily reconciliation (Paystack
   * GET /transaction, Flutterwave GET /v3/transactions): every page of it. Throws when it cannot
   * be read now.
   */
  incomingOn?(day: string): Promise<IncomingDay>;
  /**
   * The provider's own verified record of a bank transfer into a virtual account, by the
   * reference it is credited under (what the webhook path asks before crediting): undefined when
   * the provider has no successful bank transfer under it. Throws when it cannot tell now.
   */
  bankTransferRecord?(reference: string): Promise<ArrivedBankTransfer | undefined>;
}

/** A UTC day's money coming in as the provider's list shows it (RailAdapter.incomingOn). */
export interface IncomingDay {
  /**
   * Charges under a collection key of ours (the adapter's chargeIdOf decodes it; the collection
   * may be unknown to us), whatever their state, each read as the collection's status query reads it.
   */
  collections: (CollectionUpdate & { collectionId: string })[];
  /**
   * Successful bank transfers into virtual accounts (not collections): the reference each is
   * credited under (ArrivedBankTransfer.providerReference), to be confirmed by bankTransferRecord.
   */
  bankTransfers: string[];
}

/** What the server gives each adapter. */
export interface RailAdapterDeps {
  /** PUBLIC_BASE_URL without a trailing slash: callback addresses are built on it. */
  publicBaseUrl: string;
  /**
   * An unguessable token for a path segment of a per-request callback URL (Daraja's ResultURL,
   * MoMo's X-Callback-Url): HMAC of `purpose:id` under a server key, so nothing is stored and a
   * token for one payment never verifies another. Compare with `verifyCallbackToken`.
   */
  callbackToken(purpose: string, id: string): string;
  verifyCallbackToken(purpose: string, id: string, token: string): boolean;
  /** The fetch to use (tests may wrap it); defaults to globalThis.fetch. */
  fetch: typeof fetch;
  /** How long one request to the provider may take before it counts as an unknown outcome. */
  timeoutMs: number;
  now: () => Date;
  /** Warnings worth an operator's eye (never with a secret in them). */
  log: (message: string, detail?: Record<string, unknown>) => void;
}

export type { PayoutProvider };

/** What each rails/<provider>/index.ts exports as its default: the registry builds adapters from it. */
export interface RailAdapterModule<C = unknown> {
  readonly name: RailProviderName;
  /** The provider's environment variables this adapter reads, for the README and /api/health/ready. */
  readonly envVars: readonly string[];
  /** Reads its environment variables; undefined when a required one is missing (the provider is then not routed to). */
  configFromEnv(env: Readonly<Record<string, string | undefined>>): C | undefined;
  create(config: C, deps: RailAdapterDeps): RailAdapter;
  /** The provider's bill payments as a live BillerProvider, where it offers them (Flutterwave: NG airtime, power, TV). */
  createBiller?(config: C, deps: RailAdapterDeps): BillerProvider;
}
