import type { Queryable } from '../db/database.ts';
import { type AccountRef, type Mode, accountOwnerId } from './accounts.ts';
import { recordLedgerTransfer } from '../metrics/registry.ts';

/** One leg of a transfer: a signed amount in integer minor units; positive credits the account. */
export interface TransferLeg {
  account: AccountRef;
  amount: number;
}

export interface TransferRequest {
  /** Caller-chosen unique id: a retry with the same id and legs answers `exists`. */
  id: string;
  mode: Mode;
  /** What the transfer is for, e.g. `wallet_credit`, `pos_payment`. */
  kind: string;
  legs: readonly TransferLeg[];
  metadata?: Record<string, unknown>;
}

export type TransferResult = { status: 'created' } | { status: 'exists' };

/** Rules a transfer can break, named as the rule (tigerbeetle style). */
export type LedgerErrorCode =
  | 'insufficient_funds'
  | 'exists_with_different_legs'
  | 'transfer_must_balance'
  | 'transfer_must_have_two_legs'
  | 'amount_must_not_be_zero'
  | 'amount_must_be_safe_integer'
  | 'account_not_ready';

export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  /** The ledger account that broke the rule, where one did (insufficient_funds). */
  readonly accountId: number | undefined;
  constructor(code: LedgerErrorCode, accountId?: number) {
    super(code === 'insufficient_funds' ? 'Insufficient funds' : `Ledger transfer refused: ${code}`);
    this.name = 'LedgerError';
    this.code = code;
    this.accountId = accountId;
  }
}

/** At most this many legs in one transfer: a bound on lock sets and statement size. */
export const TRANSFER_LEGS_MAX = 64;

/** The legs in a canonical order: a retried id must carry the same content. */
function fingerprint(request: TransferRequest): string {
  const legs = request.legs
    .map((leg) => `${leg.account.ownerType}/${accountOwnerId(leg.account)}/${leg.account.currency}:${leg.amount}`)
    .sort();
  return `${request.kind}|${legs.join(',')}`;
}

/**
 * Checks a transfer request in memory and renders the nine arguments of the SQL function
 * ledger_post_transfer (id, mode, kind, owner types, owner ids, currencies, amounts, fingerprint,
 * metadata), for callers that post a transfer inside a larger statement of their own.
 */
export function transferArguments(request: TransferRequest): [string, string, string, string[], string[], string[], number[], string, string] {
  if (request.legs.length < 2 || request.legs.length > TRANSFER_LEGS_MAX) throw new LedgerError('transfer_must_have_two_legs');
  for (const leg of request.legs) {
    if (!Number.isSafeInteger(leg.amount)) throw new LedgerError('amount_must_be_safe_integer');
    if (leg.amount === 0) throw new LedgerError('amount_must_not_be_zero');
  }
  return [
    request.id,
    request.mode,
    request.kind,
    request.legs.map((leg) => leg.account.ownerType),
    request.legs.map((leg) => accountOwnerId(leg.account)),
    request.legs.map((leg) => leg.account.currency),
    request.legs.map((leg) => leg.amount),
    fingerprint(request),
    JSON.stringify(request.metadata ?? {}),
  ];
}

/**
 * Posts a balanced transfer inside the caller's transaction (pass the transaction's Queryable).
 * A refused transfer throws LedgerError and changes nothing; the transaction stays usable.
 */
export async function transfer(tx: Queryable, request: TransferRequest): Promise<TransferResult> {
  const rows = await tx.query<{ result: string; account_id: number | null }>(
    'SELECT result, account_id FROM ledger_post_transfer($1, $2, $3, $4::text[], $5::text[], $6::text[], $7::bigint[], $8, $9::jsonb)',
    transferArguments(request),
    { prepareAs: 'ledger_post_transfer' },
  );
  const outcome = rows[0];
  if (!outcome) throw new Error('ledger_post_transfer returned no row');
  if (outcome.result === 'created') {
    recordLedgerTransfer(request.kind);
    return { status: 'created' };
  }
  if (outcome.result === 'exists') return { status: 'exists' };
  throw new LedgerError(outcome.result as LedgerErrorCode, outcome.account_id ?? undefined);
}

/** A person's wallet paying a merchant's wallet in one currency: the common two-leg transfer. */
export interface PersonToMerchantRequest {
  id: string;
  mode: Mode;
  kind: string;
  payerWalletId: string;
  merchantWalletId: string;
  currency: string;
  amount: number;
  metadata?: Record<string, unknown>;
}

/**
 * The checked fingerprint and metadata of a person-to-merchant transfer, as the general path would
 * record them: for callers that post such transfers in SQL of their own (offline_post_taps).
 */
export function personToMerchantArguments(request: PersonToMerchantRequest): { fingerprint: string; metadata: string } {
  const full: TransferRequest = {
    id: request.id,
    mode: request.mode,
    kind: request.kind,
    legs: [
      { account: { ownerType: 'wallet', walletId: request.payerWalletId, currency: request.currency }, amount: -request.amount },
      { account: { ownerType: 'wallet', walletId: request.merchantWalletId, currency: request.currency }, amount: request.amount },
    ],
    ...(request.metadata ? { metadata: request.metadata } : {}),
  };
  // The same checks and fingerprint as the general path.
  const [, , , , , , , fingerprint, metadata] = transferArguments(full);
  if (request.amount <= 0) throw new LedgerError('amount_must_not_be_zero');
  return { fingerprint, metadata };
}

/**
 * The common two-leg transfer, posted by ledger_post_person_to_merchant (migration 014): four
 * statements when the accounts allow it, the general function otherwise, with the same results and
 * the same rows as transfer(). For hot paths (offline taps); everything else calls transfer().
 */
export async function transferPersonToMerchant(tx: Queryable, request: PersonToMerchantRequest): Promise<TransferResult> {
  const { fingerprint, metadata } = personToMerchantArguments(request);
  const rows = await tx.query<{ result: string }>(
    'SELECT ledger_post_person_to_merchant($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) AS result',
    [request.id, request.mode, request.kind, request.payerWalletId, request.merchantWalletId, request.currency, request.amount, fingerprint, metadata],
    { prepareAs: 'ledger_post_person_to_merchant' },
  );
  const result = rows[0]?.result;
  if (result === 'created') recordLedgerTransfer(request.kind);
  if (result === 'created' || result === 'exists') return { status: result };
  throw new LedgerError((result ?? 'account_not_ready') as LedgerErrorCode);
}

export interface Balance {
  currency: string;
  /** Integer minor units. */
  available: number;
}

/** Balances of a wallet in one mode, one per currency it has ever held. */
export async function walletBalances(db: Queryable, walletId: string, mode: Mode): Promise<Balance[]> {
  return db.query<Balance>(
    `SELECT currency, sum(balance)::int8 AS available FROM ledger_accounts
     WHERE owner_type = 'wallet' AND owner_id = $1 AND mode = $2 GROUP BY currency ORDER BY currency`,
    [walletId, mode],
  );
}

/** The balance of one account in minor units (a merchant wallet's: its main row plus its inflow shards); 0 for an account never used. */
export async function accountBalance(db: Queryable, account: AccountRef, mode: Mode): Promise<number> {
  const rows = await db.query<{ balance: number }>(
    'SELECT sum(balance)::int8 AS balance FROM ledger_accounts WHERE owner_type = $1 AND owner_id = $2 AND currency = $3 AND mode = $4',
    [account.ownerType, accountOwnerId(account), account.currency, mode],
  );
  return rows[0]?.balance ?? 0;
}
