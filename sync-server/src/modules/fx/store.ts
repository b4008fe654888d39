import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export interface QuoteRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  from_currency: string;
  to_currency: string;
  amount: number;
  mid_rate: string;
  rate: string;
  spread_pct: string;
  fee: number;
  receive: number;
  rail: string | null;
  as_of: string;
  expires_at: Date;
  created_at: Date;
}

const COLUMNS = 'id, merchant_id, mode, from_currency, to_currency, amount, mid_rate, rate, spread_pct, fee, receive, rail, as_of, expires_at, created_at';

export async function insertQuote(db: Queryable, quote: QuoteRow): Promise<QuoteRow> {
  const [row] = await db.query<QuoteRow>(
    `INSERT INTO fx_quotes (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING ${COLUMNS}`,
    [
      quote.id, quote.merchant_id, quote.mode, quote.from_currency, quote.to_currency, quote.amount, quote.mid_rate, quote.rate,
      quote.spread_pct, quote.fee, quote.receive, quote.rail, quote.as_of, quote.expires_at, quote.created_at,
    ],
  );
  return row!;
}

export async function findQuote(db: Queryable, id: string): Promise<QuoteRow | undefined> {
  const [row] = await db.query<QuoteRow>(`SELECT ${COLUMNS} FROM fx_quotes WHERE id = $1`, [id]);
  return row;
}

/** Forgets at most `limit` quotes that expired before `before` (the payment scheduler's sweep). */
export async function deleteExpiredQuotes(db: Queryable, before: Date, limit: number): Promise<void> {
  await db.query('DELETE FROM fx_quotes WHERE id IN (SELECT id FROM fx_quotes WHERE expires_at < $1 LIMIT $2)', [before, limit]);
}

/** The last good table of a rate source, kept so a restart without the source starts from it. */
export async function saveRateTable(db: Queryable, source: string, asOf: string, fetchedAt: Date, usdRates: Record<string, number>): Promise<void> {
  await db.query(
    `INSERT INTO fx_rate_tables (source, as_of, fetched_at, usd_rates) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (source) DO UPDATE SET as_of = EXCLUDED.as_of, fetched_at = EXCLUDED.fetched_at, usd_rates = EXCLUDED.usd_rates`,
    [source, asOf, fetchedAt, JSON.stringify(usdRates)],
  );
}

export async function findRateTable(db: Queryable, source: string): Promise<{ as_of: string; fetched_at: Date; usd_rates: Record<string, number> } | undefined> {
  const [row] = await db.query<{ as_of: string; fetched_at: Date; usd_rates: Record<string, number> }>('SELECT as_of, fetched_at, usd_rates FROM fx_rate_tables WHERE source = $1', [source]);
  return row;
}
