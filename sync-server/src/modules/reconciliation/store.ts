import type { Queryable } from '../../db/database.ts';
import type { Mismatch, Totals } from './compare.ts';

export type ReconciliationStatus = 'clean' | 'mismatched' | 'failed';
export type ReconciliationMethod = 'list' | 'by_key';

export interface ReconciliationRow {
  id: string;
  provider: string;
  /** YYYY-MM-DD (read as text: a date column would come back as a local-time Date). */
  day: string;
  status: ReconciliationStatus;
  method: ReconciliationMethod;
  matched: number;
  mismatched: number;
  our_totals: Totals;
  provider_totals: Totals;
  clearing_net: Totals;
  /** The ledger: what the day's payouts left on the provider's rail clearing accounts (migration 044). */
  ledger_clearing_net: Totals;
  /** The ledger: the provider's rail clearing balances (live) when the day was reconciled, settlements recorded by then included. */
  clearing_balance: Totals;
  /** Our collections of the day through the provider that we show completed (amount + fee), per currency (migration 052). */
  collection_totals: Totals;
  /** The provider's completed collections of the day, per currency (its amounts where its record has them, else ours). */
  collection_provider_totals: Totals;
  /** Our live bills of the day through the provider that we show completed (amount: what the biller is paid), per currency (migration 057). */
  bill_totals: Totals;
  /** The provider's bills of the day that it confirms paid, per currency (its amounts where its record has them, else ours). */
  bill_provider_totals: Totals;
  /**
   * Bank transfers into wallets' virtual accounts this day's runs credited because the provider's
   * list showed them and no webhook had (migration 054): summed over the day's runs, each transfer
   * counted once (it is credited once).
   */
  bank_transfers_recovered: number;
  error: string | null;
  runs: number;
  created_at: Date;
}

export type NewReconciliation = Omit<ReconciliationRow, 'runs'>;

const COLUMNS = `id, provider, day::text AS day, status, method, matched, mismatched, our_totals, provider_totals, clearing_net, ledger_clearing_net, clearing_balance,
  collection_totals, collection_provider_totals, bill_totals, bill_provider_totals, bank_transfers_recovered, error, runs, created_at`;

/**
 * Writes a day's reconciliation and its mismatches (in the caller's transaction): a day
 * reconciled before keeps its id and is replaced, its runs counted. The upsert takes the day's
 * row lock first, so two runs of one day at once are applied one after the other.
 */
export async function saveReconciliation(tx: Queryable, record: NewReconciliation, mismatches: readonly Mismatch[]): Promise<ReconciliationRow> {
  const [row] = await tx.query<ReconciliationRow>(
    `INSERT INTO rail_reconciliations (id, provider, day, status, method, matched, mismatched, our_totals, provider_totals, clearing_net, ledger_clearing_net, clearing_balance, error, runs, created_at,
       collection_totals, collection_provider_totals, bank_transfers_recovered, bill_totals, bill_provider_totals)
     VALUES ($1, $2, $3::date, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::jsonb, $12::jsonb, $13, 1, $14, $15::jsonb, $16::jsonb, $17, $18::jsonb, $19::jsonb)
     ON CONFLICT (provider, day) DO UPDATE SET status = EXCLUDED.status, method = EXCLUDED.method, matched = EXCLUDED.matched,
       mismatched = EXCLUDED.mismatched, our_totals = EXCLUDED.our_totals, provider_totals = EXCLUDED.provider_totals,
       clearing_net = EXCLUDED.clearing_net, ledger_clearing_net = EXCLUDED.ledger_clearing_net, clearing_balance = EXCLUDED.clearing_balance,
       collection_totals = EXCLUDED.collection_totals, collection_provider_totals = EXCLUDED.collection_provider_totals,
       bill_totals = EXCLUDED.bill_totals, bill_provider_totals = EXCLUDED.bill_provider_totals,
       bank_transfers_recovered = rail_reconciliations.bank_transfers_recovered + EXCLUDED.bank_transfers_recovered,
       error = EXCLUDED.error, runs = rail_reconciliations.runs + 1, created_at = EXCLUDED.created_at
     RETURNING ${COLUMNS}`,
    [
      record.id, record.provider, record.day, record.status, record.method, record.matched, record.mismatched,
      JSON.stringify(record.our_totals), JSON.stringify(record.provider_totals), JSON.stringify(record.clearing_net),
      JSON.stringify(record.ledger_clearing_net), JSON.stringify(record.clearing_balance), record.error, record.created_at,
      JSON.stringify(record.collection_totals), JSON.stringify(record.collection_provider_totals), record.bank_transfers_recovered,
      JSON.stringify(record.bill_totals), JSON.stringify(record.bill_provider_totals),
    ],
  );
  if (!row) throw new Error(`reconciliation of ${record.provider} on ${record.day} was not written`);
  await tx.query('DELETE FROM rail_reconciliation_mismatches WHERE reconciliation_id = $1', [row.id]);
  if (mismatches.length > 0) {
    // Keys left out are NULL; a JSON null would be stored as the jsonb value null.
    const items = mismatches.map((mismatch, seq) => ({
      seq,
      kind: mismatch.kind,
      direction: mismatch.direction,
      ...(mismatch.paymentId !== null ? { payment_id: mismatch.paymentId } : {}),
      ...(mismatch.providerReference !== null ? { provider_reference: mismatch.providerReference } : {}),
      ...(mismatch.ours ? { ours: mismatch.ours } : {}),
      ...(mismatch.theirs ? { theirs: mismatch.theirs } : {}),
    }));
    await tx.query(
      `INSERT INTO rail_reconciliation_mismatches (reconciliation_id, seq, kind, direction, payment_id, provider_reference, ours, theirs)
       SELECT $1, m.seq, m.kind, m.direction, m.payment_id, m.provider_reference, m.ours, m.theirs
       FROM jsonb_to_recordset($2::jsonb) AS m (seq integer, kind text, direction text, payment_id text, provider_reference text, ours jsonb, theirs jsonb)`,
      [row.id, JSON.stringify(items)],
    );
  }
  return row;
}

export async function findReconciliation(db: Queryable, id: string): Promise<ReconciliationRow | undefined> {
  const [row] = await db.query<ReconciliationRow>(`SELECT ${COLUMNS} FROM rail_reconciliations WHERE id = $1`, [id]);
  return row;
}

interface MismatchRow {
  kind: Mismatch['kind'];
  direction: Mismatch['direction'];
  payment_id: string | null;
  provider_reference: string | null;
  ours: Mismatch['ours'];
  theirs: Mismatch['theirs'];
}

export async function listMismatches(db: Queryable, reconciliationId: string): Promise<Mismatch[]> {
  const rows = await db.query<MismatchRow>(
    'SELECT kind, direction, payment_id, provider_reference, ours, theirs FROM rail_reconciliation_mismatches WHERE reconciliation_id = $1 ORDER BY seq',
    [reconciliationId],
  );
  return rows.map((row) => ({ kind: row.kind, direction: row.direction, paymentId: row.payment_id, providerReference: row.provider_reference, ours: row.ours ?? null, theirs: row.theirs ?? null }));
}

/** Newest day first, then by provider. */
export async function listReconciliations(
  db: Queryable,
  filter: { provider?: string | undefined; day?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: ReconciliationRow[]; total: number }> {
  const params: string[] = [];
  const where: string[] = [];
  if (filter.provider !== undefined) {
    params.push(filter.provider);
    where.push(`provider = $${params.length}`);
  }
  if (filter.day !== undefined) {
    params.push(filter.day);
    where.push(`day = $${params.length}::date`);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const rows = await db.query<ReconciliationRow>(
    `SELECT ${COLUMNS} FROM rail_reconciliations ${clause} ORDER BY day DESC, provider LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM rail_reconciliations ${clause}`, params);
  return { rows, total: count?.total ?? 0 };
}

/** The providers' reconciliations of one day (what the daily job finds done). */
export async function reconciliationsOfDay(db: Queryable, day: string): Promise<Pick<ReconciliationRow, 'provider' | 'status' | 'created_at'>[]> {
  return db.query('SELECT provider, status, created_at FROM rail_reconciliations WHERE day = $1::date', [day]);
}

/** A provider's settlement to Tapline as an operator recorded it (migration 052); amount in minor units. */
export interface SettlementRow {
  id: string;
  provider: string;
  amount: number;
  currency: string;
  reference: string;
  /** YYYY-MM-DD, read as text. */
  settled_on: string;
  transfer_id: string;
  created_at: Date;
}

const SETTLEMENT_COLUMNS = 'id, provider, amount::int8 AS amount, currency, reference, settled_on::text AS settled_on, transfer_id, created_at';

function settlementOf(row: SettlementRow | undefined): SettlementRow | undefined {
  return row && { ...row, amount: Number(row.amount) };
}

/** Inserts a settlement (in the caller's transaction); undefined when the provider's reference is recorded already. */
export async function insertSettlement(tx: Queryable, row: SettlementRow): Promise<SettlementRow | undefined> {
  const [inserted] = await tx.query<SettlementRow>(
    `INSERT INTO rail_settlements (id, provider, amount, currency, reference, settled_on, transfer_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::date, $7, $8) ON CONFLICT (provider, reference) DO NOTHING RETURNING ${SETTLEMENT_COLUMNS}`,
    [row.id, row.provider, row.amount, row.currency, row.reference, row.settled_on, row.transfer_id, row.created_at],
  );
  return settlementOf(inserted);
}

export async function findSettlement(db: Queryable, provider: string, reference: string): Promise<SettlementRow | undefined> {
  const [row] = await db.query<SettlementRow>(`SELECT ${SETTLEMENT_COLUMNS} FROM rail_settlements WHERE provider = $1 AND reference = $2`, [provider, reference]);
  return settlementOf(row);
}

/** Newest settlement day first. */
export async function listSettlements(db: Queryable, filter: { provider?: string | undefined }, limit: number, offset: number): Promise<{ rows: SettlementRow[]; total: number }> {
  const params: string[] = filter.provider !== undefined ? [filter.provider] : [];
  const clause = filter.provider !== undefined ? 'WHERE provider = $1' : '';
  const rows = await db.query<SettlementRow>(
    `SELECT ${SETTLEMENT_COLUMNS} FROM rail_settlements ${clause} ORDER BY settled_on DESC, created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM rail_settlements ${clause}`, params);
  return { rows: rows.map((row) => settlementOf(row)!), total: Number(count?.total ?? 0) };
}

