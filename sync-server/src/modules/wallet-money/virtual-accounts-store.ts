// Top-ups by bank transfer's SQL (virtual-accounts.ts, unmatched-transfers.ts; migrations 048, 053):
// wallets' virtual bank accounts (wallet_virtual_accounts), the transfers credited into them
// (wallet_bank_transfers) and those we could not match (unmatched_bank_transfers). Rows in, rows out.
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export interface VirtualAccountRow {
  id: string;
  wallet_id: string;
  mode: Mode;
  currency: string;
  provider: string;
  provider_customer: string | null;
  provider_account_id: string | null;
  account_number: string;
  account_name: string;
  bank_name: string;
  bank_slug: string | null;
  created_at: Date;
}

export interface BankTransferRow {
  id: string;
  /** Null for a transfer an operator assigned to the wallet: it was paid into no account of hers. */
  virtual_account_id: string | null;
  wallet_id: string;
  mode: Mode;
  provider: string;
  provider_reference: string;
  received: number;
  fee: number;
  amount: number;
  currency: string;
  sender_name: string | null;
  sender_bank: string | null;
  narration: string | null;
  beyond_limit: boolean;
  transfer_id: string;
  paid_at: Date | null;
  created_at: Date;
}

export async function findAccountOf(db: Queryable, walletId: string, currency: string, mode: string): Promise<VirtualAccountRow | undefined> {
  const [row] = await db.query<VirtualAccountRow>('SELECT * FROM wallet_virtual_accounts WHERE wallet_id = $1 AND currency = $2 AND mode = $3', [walletId, currency, mode]);
  return row;
}

export async function findAccountByNumber(db: Queryable, provider: string, accountNumber: string): Promise<VirtualAccountRow | undefined> {
  const [row] = await db.query<VirtualAccountRow>('SELECT * FROM wallet_virtual_accounts WHERE provider = $1 AND account_number = $2 ORDER BY mode LIMIT 1', [provider, accountNumber]);
  return row;
}

/** The account a provider names by its own reference of it (Flutterwave: the tx_ref it was made with, kept as provider_customer). */
export async function findAccountByReference(db: Queryable, provider: string, reference: string): Promise<VirtualAccountRow | undefined> {
  const [row] = await db.query<VirtualAccountRow>('SELECT * FROM wallet_virtual_accounts WHERE provider = $1 AND provider_customer = $2 ORDER BY mode LIMIT 1', [provider, reference]);
  return row;
}

export async function accountsOf(db: Queryable, walletId: string, mode: string): Promise<VirtualAccountRow[]> {
  return db.query<VirtualAccountRow>('SELECT * FROM wallet_virtual_accounts WHERE wallet_id = $1 AND mode = $2 ORDER BY created_at, id', [walletId, mode]);
}

/** Records the account; a second one for the same wallet, currency and mode (two requests at once) keeps the first. */
export async function insertAccount(db: Queryable, row: VirtualAccountRow): Promise<void> {
  await db.query(
    `INSERT INTO wallet_virtual_accounts (id, wallet_id, mode, currency, provider, provider_customer, provider_account_id, account_number, account_name, bank_name, bank_slug, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING`,
    [row.id, row.wallet_id, row.mode, row.currency, row.provider, row.provider_customer, row.provider_account_id, row.account_number, row.account_name, row.bank_name, row.bank_slug, row.created_at],
  );
}

const TRANSFER_COLUMNS = `id, virtual_account_id, wallet_id, mode, provider, provider_reference, received::int8 AS received, fee::int8 AS fee, amount::int8 AS amount,
  currency, sender_name, sender_bank, narration, beyond_limit, transfer_id, paid_at, created_at`;

function normalised(row: BankTransferRow): BankTransferRow {
  return { ...row, received: Number(row.received), fee: Number(row.fee), amount: Number(row.amount) };
}

export async function findBankTransfer(db: Queryable, provider: string, reference: string): Promise<BankTransferRow | undefined> {
  const [row] = await db.query<BankTransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM wallet_bank_transfers WHERE provider = $1 AND provider_reference = $2`, [provider, reference]);
  return row ? normalised(row) : undefined;
}

/** Which of a provider's references have a bank transfer recorded (credited) already. */
export async function knownBankTransfers(db: Queryable, provider: string, references: readonly string[]): Promise<Set<string>> {
  if (references.length === 0) return new Set();
  const rows = await db.query<{ provider_reference: string }>('SELECT provider_reference FROM wallet_bank_transfers WHERE provider = $1 AND provider_reference = ANY ($2::text[])', [provider, references]);
  return new Set(rows.map((row) => row.provider_reference));
}

export async function listBankTransfers(db: Queryable, walletId: string, mode: string, limit: number, offset: number): Promise<{ rows: BankTransferRow[]; total: number }> {
  const rows = await db.query<BankTransferRow>(`SELECT ${TRANSFER_COLUMNS} FROM wallet_bank_transfers WHERE wallet_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`, [walletId, mode, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM wallet_bank_transfers WHERE wallet_id = $1 AND mode = $2', [walletId, mode]);
  return { rows: rows.map(normalised), total: Number(count?.total ?? 0) };
}


/** Records a credited transfer (in the crediting transaction, after the lookup under the wallet row's lock found none). */
export async function insertBankTransfer(tx: Queryable, row: BankTransferRow): Promise<BankTransferRow> {
  const [inserted] = await tx.query<BankTransferRow>(
    `INSERT INTO wallet_bank_transfers (id, virtual_account_id, wallet_id, mode, provider, provider_reference, received, fee, amount, currency, sender_name, sender_bank, narration, beyond_limit, transfer_id, paid_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING ${TRANSFER_COLUMNS}`,
    [row.id, row.virtual_account_id, row.wallet_id, row.mode, row.provider, row.provider_reference, row.received, row.fee, row.amount, row.currency, row.sender_name, row.sender_bank, row.narration, row.beyond_limit, row.transfer_id, row.paid_at, row.created_at],
  );
  return normalised(inserted!);
}

// Unmatched transfers (migration 053) ----------------------------------------------------------

export type UnmatchedStatus = 'open' | 'assigned' | 'returned';

export interface UnmatchedTransferRow {
  id: string;
  mode: Mode;
  provider: string;
  provider_reference: string;
  account_number: string | null;
  account_reference: string | null;
  reason: 'unknown_account' | 'currency_not_accepted';
  amount: number;
  currency: string;
  sender_name: string | null;
  sender_bank: string | null;
  narration: string | null;
  paid_at: Date | null;
  received_at: Date;
  status: UnmatchedStatus;
  wallet_id: string | null;
  bank_transfer_id: string | null;
  return_reference: string | null;
  note: string | null;
  resolved_by: 'admin' | 'matched' | null;
  resolved_at: Date | null;
}

const UNMATCHED_COLUMNS = `id, mode, provider, provider_reference, account_number, account_reference, reason, amount::int8 AS amount, currency, sender_name,
  sender_bank, narration, paid_at, received_at, status, wallet_id, bank_transfer_id, return_reference, note, resolved_by, resolved_at`;

function unmatched(row: UnmatchedTransferRow): UnmatchedTransferRow {
  return { ...row, amount: Number(row.amount) };
}

/** Records a transfer we could not match; the same provider reference again (a duplicate webhook) changes nothing. True when this call recorded it. */
export async function insertUnmatchedTransfer(db: Queryable, row: Omit<UnmatchedTransferRow, 'status' | 'wallet_id' | 'bank_transfer_id' | 'return_reference' | 'note' | 'resolved_by' | 'resolved_at'>): Promise<boolean> {
  const inserted = await db.query<{ id: string }>(
    `INSERT INTO unmatched_bank_transfers (id, mode, provider, provider_reference, account_number, account_reference, reason, amount, currency, sender_name, sender_bank, narration, paid_at, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (provider, provider_reference) DO NOTHING RETURNING id`,
    [row.id, row.mode, row.provider, row.provider_reference, row.account_number, row.account_reference, row.reason, row.amount, row.currency, row.sender_name, row.sender_bank, row.narration, row.paid_at, row.received_at],
  );
  return inserted.length > 0;
}

export async function findUnmatchedTransfer(db: Queryable, id: string, lock = false): Promise<UnmatchedTransferRow | undefined> {
  const [row] = await db.query<UnmatchedTransferRow>(`SELECT ${UNMATCHED_COLUMNS} FROM unmatched_bank_transfers WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row ? unmatched(row) : undefined;
}

export async function findUnmatchedByReference(db: Queryable, provider: string, reference: string): Promise<UnmatchedTransferRow | undefined> {
  const [row] = await db.query<UnmatchedTransferRow>(`SELECT ${UNMATCHED_COLUMNS} FROM unmatched_bank_transfers WHERE provider = $1 AND provider_reference = $2`, [provider, reference]);
  return row ? unmatched(row) : undefined;
}

export async function listUnmatchedTransfers(db: Queryable, status: UnmatchedStatus | undefined, limit: number, offset: number): Promise<{ rows: UnmatchedTransferRow[]; total: number }> {
  const where = status ? 'WHERE status = $1' : '';
  const params = status ? [status] : [];
  const rows = await db.query<UnmatchedTransferRow>(
    `SELECT ${UNMATCHED_COLUMNS} FROM unmatched_bank_transfers ${where} ORDER BY received_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM unmatched_bank_transfers ${where}`, params);
  return { rows: rows.map(unmatched), total: Number(count?.total ?? 0) };
}

/** Marks an open transfer assigned (in the crediting transaction); false when it was no longer open. */
export async function markUnmatchedAssigned(tx: Queryable, fields: { provider: string; reference: string; walletId: string; bankTransferId: string; by: 'admin' | 'matched'; note: string | null; at: Date }): Promise<boolean> {
  const updated = await tx.query<{ id: string }>(
    `UPDATE unmatched_bank_transfers SET status = 'assigned', wallet_id = $3, bank_transfer_id = $4, resolved_by = $5, note = $6, resolved_at = $7
     WHERE provider = $1 AND provider_reference = $2 AND status = 'open' RETURNING id`,
    [fields.provider, fields.reference, fields.walletId, fields.bankTransferId, fields.by, fields.note, fields.at],
  );
  return updated.length > 0;
}

/** Marks an open transfer returned to its sender at the provider; false when it was no longer open. */
export async function markUnmatchedReturned(db: Queryable, fields: { id: string; returnReference: string; note: string | null; at: Date }): Promise<boolean> {
  const updated = await db.query<{ id: string }>(
    `UPDATE unmatched_bank_transfers SET status = 'returned', return_reference = $2, resolved_by = 'admin', note = $3, resolved_at = $4
     WHERE id = $1 AND status = 'open' RETURNING id`,
    [fields.id, fields.returnReference, fields.note, fields.at],
  );
  return updated.length > 0;
}
