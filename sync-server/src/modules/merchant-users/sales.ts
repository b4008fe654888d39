import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { toMajor } from '@tapline/shared/money';
import { ErrorBody, SalesDailyQuery, SalesDailyResponse } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';

const DAY_MS = 86_400_000;

/**
 * Sales per UTC day for the dashboard's charts: POS sessions completed (by when they ended) and
 * offline payments accepted (by when the terminal took them), in the caller's mode.
 */
export async function salesRoutes(app: FastifyInstance, { db, now }: AppContext): Promise<void> {
  app.get('/api/merchant/sales/daily', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['merchant'],
      summary: 'Sales per UTC day and currency (POS sessions completed, offline payments accepted), oldest day first',
      querystring: SalesDailyQuery,
      response: { 200: SalesDailyResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { days = 30 } = request.query as Static<typeof SalesDailyQuery>;
    const today = Math.floor(now().getTime() / DAY_MS) * DAY_MS;
    const from = new Date(today - (days - 1) * DAY_MS);
    const until = new Date(today + DAY_MS);
    const rows = await db.query<{ day: string; currency: string; amount: string | number; count: string | number }>(
      `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, currency, sum(amount)::int8 AS amount, count(*)::int8 AS count FROM (
         SELECT ended_at AS at, currency, amount FROM pos_sessions
         WHERE merchant_id = $1 AND mode = $2 AND status = 'completed' AND ended_at >= $3 AND ended_at < $4
         UNION ALL
         SELECT captured_at, currency, amount FROM offline_payments
         WHERE merchant_id = $1 AND mode = $2 AND status = 'accepted' AND captured_at >= $3 AND captured_at < $4
       ) sales GROUP BY 1, 2 ORDER BY 2, 1`,
      [principal.merchantId, principal.mode, from, until],
    );
    const dates = Array.from({ length: days }, (_, index) => new Date(from.getTime() + index * DAY_MS).toISOString().slice(0, 10));
    const byCurrency = new Map<string, Map<string, { amount: number; count: number }>>();
    for (const row of rows) {
      const days = byCurrency.get(row.currency) ?? new Map();
      days.set(row.day, { amount: Number(row.amount), count: Number(row.count) });
      byCurrency.set(row.currency, days);
    }
    return {
      days,
      from: dates[0]!,
      currencies: [...byCurrency].map(([currency, perDay]) => {
        const daily = dates.map((date) => ({ date, amount: perDay.get(date)?.amount ?? 0, count: perDay.get(date)?.count ?? 0 }));
        return {
          currency,
          total: toMajor(daily.reduce((sum, day) => sum + day.amount, 0), currency),
          count: daily.reduce((sum, day) => sum + day.count, 0),
          daily: daily.map((day) => ({ date: day.date, amount: toMajor(day.amount, currency), count: day.count })),
        };
      }),
    };
  });
}
