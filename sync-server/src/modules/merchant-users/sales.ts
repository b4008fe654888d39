import { toMajor } from '@tapline/shared/money';
import { ErrorBody, SalesDailyQuery, SalesDailyResponse } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { dailySales } from './store.ts';

const DAY_MS = 86_400_000;

/**
 * Sales per UTC day for the dashboard's charts: POS sessions completed (by when they ended) and
 * offline payments accepted (by when the terminal took them), in the caller's mode.
 */
export async function salesRoutes(app: TypedApp, { db, now }: AppContext): Promise<void> {
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
    const { days = 30 } = request.query;
    const today = Math.floor(now().getTime() / DAY_MS) * DAY_MS;
    const from = new Date(today - (days - 1) * DAY_MS);
    const until = new Date(today + DAY_MS);
    const rows = await dailySales(db, principal.merchantId, principal.mode, from, until);
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
