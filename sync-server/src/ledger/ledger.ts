import type { Queryable } from '../db/database.ts';
import { type AccountRef, type Mode, accountOwnerId, railClearingOwnerId } from './accounts.ts';
import { type TransferKind, transferIds as stepIds } from './transfers.ts';
import { recordLedgerTransfer } from '../metrics/registry.ts';

export { TRANSFER_KINDS, type TransferKind, transferIds } from './transfers.ts';

/** One leg of a transfer: a signed amount in integer minor units; positive credits the account. */
export interface TransferLeg {
  account: AccountRef;
  amount: number;
}

export interface TransferRequest {
  /** Caller-chosen unique id: a retry with the same id and legs answers `exists`. */
  id: string;
  mode: Mode;
  /** What the transfer is for (TRANSFER_KINDS in transfers.ts), e.g. `wallet_credit`, `pos_payment`. */
  kind: TransferKind;
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

/** The eight arguments of the SQL function ledger_post_transfer, as transferArguments renders them. */
export type TransferArguments = [id: string, mode: string, kind: string, ownerTypes: string[], ownerIds: string[], currencies: string[], amounts: number[], metadata: string];

/**
 * Checks a transfer request in memory and renders the eight arguments of the SQL function
 * ledger_post_transfer (id, mode, kind, owner types, owner ids, currencies, amounts, metadata).
 * The fingerprint a retry is compared by is built in the database (ledger_fingerprint).
 */
export function transferArguments(request: TransferRequest): TransferArguments {
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
    JSON.stringify(request.metadata ?? {}),
  ];
}

/** The answer of ledger_post_transfer (or of a function that calls it) as a TransferResult, or the LedgerError it names. */
export function transferOutcome(kind: string, result: string | undefined, accountId?: number | null): TransferResult {
  if (result === 'created') {
    recordLedgerTransfer(kind);
    return { status: 'created' };
  }
  if (result === 'exists') return { status: 'exists' };
  throw new LedgerError((result ?? 'account_not_ready') as LedgerErrorCode, accountId ?? undefined);
}

/**
 * Posts a balanced transfer inside the caller's transaction (pass the transaction's Queryable).
 * A refused transfer throws LedgerError and changes nothing; the transaction stays usable.
 */
export async function transfer(tx: Queryable, request: TransferRequest): Promise<TransferResult> {
  const rows = await tx.query<{ result: string; account_id: number | null }>(
    'SELECT result, account_id FROM ledger_post_transfer($1, $2, $3, $4::text[], $5::text[], $6::text[], $7::bigint[], $8::jsonb)',
    transferArguments(request),
    { prepareAs: 'ledger_post_transfer' },
  );
  const outcome = rows[0];
  if (!outcome) throw new Error('ledger_post_transfer returned no row');
  return transferOutcome(request.kind, outcome.result, outcome.account_id);
}

/** A person's wallet paying a merchant's wallet in one currency: the common two-leg transfer. */
export interface PersonToMerchantRequest {
  id: string;
  mode: Mode;
  kind: TransferKind;
  payerWalletId: string;
  merchantWalletId: string;
  currency: string;
  amount: number;
  metadata?: Record<string, unknown>;
}

/**
 * The legs of a person-to-merchant payment in the order ledger_post_transfer's four-statement
 * path recognises (payer -amount, merchant +amount).
 */
export function personToMerchantTransfer(request: PersonToMerchantRequest): TransferRequest {
  if (!Number.isSafeInteger(request.amount) || request.amount <= 0) throw new LedgerError('amount_must_not_be_zero');
  return {
    id: request.id,
    mode: request.mode,
    kind: request.kind,
    legs: [
      { account: { ownerType: 'wallet', walletId: request.payerWalletId, currency: request.currency }, amount: -request.amount },
      { account: { ownerType: 'wallet', walletId: request.merchantWalletId, currency: request.currency }, amount: request.amount },
    ],
    ...(request.metadata ? { metadata: request.metadata } : {}),
  };
}

/** transfer() of a person-to-merchant payment: a thin, named caller of the one path. */
export function transferPersonToMerchant(tx: Queryable, request: PersonToMerchantRequest): Promise<TransferResult> {
  return transfer(tx, personToMerchantTransfer(request));
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

/** Minor units per currency. */
export type CurrencyAmounts = Record<string, number>;

/** A provider's rail clearing balances in one mode, per currency (accounts never used are left out). */
export async function railClearingBalances(db: Queryable, provider: string, mode: Mode): Promise<CurrencyAmounts> {
  const rows = await db.query<{ currency: string; balance: number }>(
    `SELECT currency, sum(balance)::int8 AS balance FROM ledger_accounts WHERE owner_type = 'system' AND owner_id = $1 AND mode = $2
     GROUP BY currency ORDER BY currency`,
    [railClearingOwnerId(provider), mode],
  );
  return Object.fromEntries(rows.map((row) => [row.currency, Number(row.balance)]));
}

/** The currencies in which the provider's rail clearing (live) has an account: what it ever cleared for Tapline. */
export async function providerClearingCurrencies(db: Queryable, provider: string): Promise<string[]> {
  const rows = await db.query<{ currency: string }>(
    "SELECT DISTINCT currency FROM ledger_accounts WHERE owner_type = 'system' AND owner_id = $1 AND mode = 'live' ORDER BY currency",
    [railClearingOwnerId(provider)],
  );
  return rows.map((row) => row.currency);
}

/**
 * What these payouts' debit, settlement and refund transfers (`<id>:debit|settle|refund`) left on
 * their provider's rail clearing accounts, per currency: zero once each of them is final (paid
 * out, or refunded), the amount still in flight otherwise. Currencies the payouts moved through
 * the provider's clearing are listed, at zero too.
 */
export async function railClearingNetOf(db: Queryable, provider: string, mode: Mode, paymentIds: readonly string[]): Promise<CurrencyAmounts> {
  if (paymentIds.length === 0) return {};
  const transfers = paymentIds.flatMap((id) => [stepIds.step(id, 'debit'), stepIds.step(id, 'settle'), stepIds.step(id, 'refund')]);
  const rows = await db.query<{ currency: string; net: number }>(
    `SELECT a.currency, sum(p.amount)::int8 AS net FROM ledger_postings p
     JOIN ledger_accounts a ON a.id = p.account_id
     WHERE p.transfer_id = ANY ($1::text[]) AND a.owner_type = 'system' AND a.owner_id = $2 AND a.mode = $3
     GROUP BY a.currency ORDER BY a.currency`,
    [transfers, railClearingOwnerId(provider), mode],
  );
  return Object.fromEntries(rows.map((row) => [row.currency, Number(row.net)]));
}

/**
 * payments_insert_with_debits: payments rows and their debits in ONE statement (group commit of
 * POST /api/pay; see modules/payments/batcher.ts). Each payment's transfer goes through
 * ledger_post_transfer; answers, per payment in order, 'created', 'exists', 'payment_exists' or the
 * ledger rule that refused it (with the account, for insufficient_funds).
 */
export function postPaymentsWithDebits(
  db: Queryable,
  payments: readonly Record<string, unknown>[],
  transfers: readonly TransferArguments[],
): Promise<{ payment_id: string; result: string; account_id: number | null }[]> {
  return db.query<{ payment_id: string; result: string; account_id: number | null }>(
    'SELECT payment_id, result, account_id FROM payments_insert_with_debits($1::jsonb, $2::jsonb)',
    [JSON.stringify(payments), JSON.stringify(transfers.map((args) => [...args.slice(0, 7), JSON.parse(args[7]) as unknown]))],
    { prepareAs: 'payments_insert_with_debits' },
  );
}

/** Whether the wallet has a ledger account in this currency and mode yet (accounts open on first use). */
export async function hasWalletAccount(db: Queryable, walletId: string, currency: string, mode: Mode): Promise<boolean> {
  const [row] = await db.query('SELECT 1 FROM ledger_accounts WHERE owner_type = $1 AND owner_id = $2 AND currency = $3 AND mode = $4', ['wallet', walletId, currency, mode]);
  return row !== undefined;
}

/**
 * Locks the main accounts (shard 0) of these wallets in one currency and mode, in the ledger's lock
 * order (lock_rank, id), inside the caller's transaction: a caller about to post several transfers
 * from these wallets (a push of offline taps) takes them all at once, before any merchant account,
 * so two such callers paying from the same wallets wait for each other instead of deadlocking.
 */
export async function lockWalletAccounts(tx: Queryable, walletIds: readonly string[], currency: string, mode: Mode): Promise<void> {
  await tx.query(
    `SELECT 1 FROM ledger_accounts WHERE owner_type = 'wallet' AND owner_id = ANY ($1::text[]) AND currency = $2 AND mode = $3 AND shard = 0
     ORDER BY lock_rank, id FOR NO KEY UPDATE`,
    [walletIds, currency, mode],
    { prepareAs: 'offline_lock_payers' },
  );
}

/**
 * A wallet's balances in these currencies and one mode, its account rows locked in the ledger's
 * lock order (lock_rank, id) inside the caller's transaction: a caller that checks the balances
 * before posting several transfers from the wallet (a gift-card bulk issue) holds them unchanged
 * until it posts. A merchant's wallet has several rows per currency (its inflow shards): each
 * balance is their sum.
 */
export async function lockWalletBalances(tx: Queryable, walletId: string, mode: Mode, currencies: readonly string[]): Promise<Map<string, number>> {
  const rows = await tx.query<{ currency: string; balance: number }>(
    `SELECT currency, balance FROM ledger_accounts
     WHERE owner_type = 'wallet' AND owner_id = $1 AND mode = $2 AND currency = ANY ($3::text[])
     ORDER BY lock_rank, id FOR NO KEY UPDATE`,
    [walletId, mode, currencies],
  );
  // A merchant's wallet has several rows per currency (its inflow shards): its balance is their sum.
  const balances = new Map<string, number>();
  for (const row of rows) balances.set(row.currency, (balances.get(row.currency) ?? 0) + row.balance);
  return balances;
}

/**
 * offline_post_taps: the offline taps of one push to one merchant's wallet, in the order given,
 * each a person-to-merchant transfer (kind offline_tap; those that take ledger_post_transfer's short
 * path written together by ledger_post_person_to_merchant_batch, the others through it) that spends
 * the terminal's offline budget of its capture day (`windows`: 1-based index into `budgets`) and
 * its tag's no-PIN day budget (db/functions/no_pin_budget.sql). Answers each tap's result:
 * created, exists, offline_exposure_limit, pin_required, or the ledger rule that failed.
 */
export async function postOfflineTaps(
  tx: Queryable,
  batch: {
    mode: Mode;
    merchantWalletId: string;
    currency: string;
    taps: readonly {
      id: string;
      payerWalletId: string;
      amount: number;
      metadata: Record<string, unknown>;
      /** The tag that paid, locked by the caller, and its no-PIN limit per UTC day (minor units). */
      tagId: string;
      noPinPerDay: number;
      /** The UTC day the terminal took the tap (YYYY-MM-DD). */
      capturedOn: string;
    }[];
    windows: readonly number[];
    budgets: readonly number[];
    /** The UTC day of the settlement (YYYY-MM-DD): a tap taken on an earlier day counts on both. */
    settledOn: string;
  },
): Promise<string[]> {
  for (const tap of batch.taps) if (!Number.isSafeInteger(tap.amount) || tap.amount <= 0) throw new LedgerError('amount_must_not_be_zero');
  const [row] = await tx.query<{ results: string[] }>(
    'SELECT offline_post_taps($1, $2, $3, $4::text[], $5::text[], $6::int8[], $7::jsonb[], $8::int4[], $9::int8[], $10::text[], $11::date[], $12::date, $13::int8[]) AS results',
    [
      batch.mode, batch.merchantWalletId, batch.currency, batch.taps.map((t) => t.id), batch.taps.map((t) => t.payerWalletId), batch.taps.map((t) => t.amount),
      batch.taps.map((t) => JSON.stringify(t.metadata)), [...batch.windows], [...batch.budgets],
      batch.taps.map((t) => t.tagId), batch.taps.map((t) => t.capturedOn), batch.settledOn, batch.taps.map((t) => t.noPinPerDay),
    ],
    { prepareAs: 'offline_post_taps' },
  );
  const results = row?.results ?? [];
  results.forEach((result) => result === 'created' && recordLedgerTransfer('offline_tap'));
  return results;
}
