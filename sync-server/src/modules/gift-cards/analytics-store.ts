import type { Queryable } from '../../db/database.ts';
import { type CardFilter, cardWhere } from './store.ts';

/** One currency's figures over the cards a filter selects (see analytics.ts for what each means). */
export interface CurrencyFiguresRow {
  currency: string;
  issued_count: number;
  issued_value: number;
  redeemed_count: number;
  partial_count: number;
  active_count: number;
  outstanding_value: number;
  total_drawn: number;
  redeemed_any: number;
  seconds_to_first: number;
}

export async function currencyFigures(db: Queryable, filter: CardFilter): Promise<CurrencyFiguresRow[]> {
  const where = cardWhere(filter);
  return db.query<CurrencyFiguresRow>(
    `SELECT c.currency,
       count(*)::int8 AS issued_count,
       coalesce(sum(c.amount), 0)::int8 AS issued_value,
       count(*) FILTER (WHERE c.status = 'used')::int8 AS redeemed_count,
       count(*) FILTER (WHERE c.first_redeemed_at IS NOT NULL AND c.amount_remaining > 0)::int8 AS partial_count,
       count(*) FILTER (WHERE c.status = 'active')::int8 AS active_count,
       coalesce(sum(c.amount_remaining) FILTER (WHERE c.status IN ('active', 'scheduled')), 0)::int8 AS outstanding_value,
       coalesce(sum(c.amount - c.amount_remaining), 0)::int8 AS total_drawn,
       count(c.first_redeemed_at)::int8 AS redeemed_any,
       coalesce(sum(extract(epoch FROM (c.first_redeemed_at - c.created_at))), 0)::float8 AS seconds_to_first
     FROM gift_cards c WHERE ${where.sql} GROUP BY c.currency ORDER BY c.currency`,
    where.params,
  );
}

export async function cardCountsByStatus(db: Queryable, filter: CardFilter): Promise<{ status: string; count: number }[]> {
  const where = cardWhere(filter);
  return db.query<{ status: string; count: number }>(`SELECT c.status, count(*)::int8 AS count FROM gift_cards c WHERE ${where.sql} GROUP BY c.status`, where.params);
}

export async function cardCountsByIssuerType(db: Queryable, filter: CardFilter): Promise<{ issuer_type: string; count: number }[]> {
  const where = cardWhere(filter);
  return db.query<{ issuer_type: string; count: number }>(`SELECT c.issuer_type, count(*)::int8 AS count FROM gift_cards c WHERE ${where.sql} GROUP BY c.issuer_type`, where.params);
}

/** Per currency: cards issued, their value, what active and scheduled cards still owe, what was drawn and what went back. */
export async function cardTotalsByCurrency(
  db: Queryable,
  filter: CardFilter,
): Promise<{ currency: string; issued_count: number; issued_value: number; outstanding: number; drawn: number; returned: number }[]> {
  const where = cardWhere(filter);
  return db.query<{ currency: string; issued_count: number; issued_value: number; outstanding: number; drawn: number; returned: number }>(
    `SELECT c.currency, count(*)::int8 AS issued_count, sum(c.amount)::int8 AS issued_value,
       coalesce(sum(c.amount_remaining) FILTER (WHERE c.status IN ('active', 'scheduled')), 0)::int8 AS outstanding,
       sum(c.amount - c.amount_remaining)::int8 AS drawn, sum(c.returned_amount)::int8 AS returned
     FROM gift_cards c WHERE ${where.sql} GROUP BY c.currency ORDER BY c.currency`,
    where.params,
  );
}

/** How many redemptions the selected cards had. */
export async function redemptionCount(db: Queryable, filter: CardFilter): Promise<number> {
  const where = cardWhere(filter);
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM gift_card_redemptions r JOIN gift_cards c ON c.id = r.card_id WHERE ${where.sql}`, where.params);
  return row?.count ?? 0;
}

export async function cardCount(db: Queryable, filter: CardFilter): Promise<number> {
  const where = cardWhere(filter);
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int8 AS count FROM gift_cards c WHERE ${where.sql}`, where.params);
  return row?.count ?? 0;
}
