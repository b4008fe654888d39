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
