import { toMajor } from '@tapline/shared/money';
import { ErrorBody, ListOf, ReceivedListQuery, ReceivedPayment, type ReceivedPaymentRecord, SalesDailyQuery, SalesDailyResponse } from '@tapline/shared/schemas';
import type { TypedApp } from '../../http/typed-app.ts';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { displayHandle } from '../../http/validate.ts';
import { type ReceivedRow, dailySales, listReceived } from './store.ts';

const DAY_MS = 86_400_000;

/** A received payment as the API answers it. */
export function receivedRecord(row: ReceivedRow): ReceivedPaymentRecord {
  const amount = Number(row.amount);
  const fee = Number(row.fee);
  return {
    id: row.id,
    channel: row.channel as ReceivedPaymentRecord['channel'],
    method: row.method,
    amount: toMajor(amount, row.currency),
    fee: toMajor(fee, row.currency),
    net: toMajor(amount - fee, row.currency),
    currency: row.currency,
    payerHandle: row.payer_handle ? displayHandle(row.payer_handle) : null,
    reference: row.reference,
    terminalId: row.terminal_id,
    transferId: row.transfer_id,
    receivedAt: row.at.toISOString(),
  };
}

/**
 * What the merchant received, every channel (a kiosk sale, an offline payment, the checkout
 * drop-in, the /pay/<handle> page, a payment link), in the caller's mode: the list the
 * dashboard's Payments page shows and exports, and the same payments per UTC day for its
 * overview (offline payments by when the terminal took them, the others by when they were paid).
 */
export async function salesRoutes(app: TypedApp, { db, now }: AppContext): Promise<void> {
  app.get('/api/merchant/received', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['merchant'],
      summary: 'Every payment the merchant received, newest first: kiosk sales, offline payments, checkout, the /pay/<handle> page, payment links, subscriptions',
      description: 'channel narrows the list to one channel (pos, offline, checkout, pay_page, payment_link, subscription, mobile_money). Only money that arrived is listed: a completed POS session, an accepted offline payment, a paid checkout session, a wallet payment to the merchant\'s @handle, a completed payment link payment, a subscription period charged, a till\'s mobile-money collection completed (POST /api/pos/collections). amount is what the customer paid, net what reached the merchant\'s wallet after the fee.',
      querystring: ReceivedListQuery,
      response: { 200: ListOf(ReceivedPayment), 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { channel, limit = 20, offset = 0 } = request.query;
    const page = await listReceived(db, principal.merchantId, principal.mode, channel, limit, offset);
    return { data: page.rows.map(receivedRecord), total: page.total, limit, offset };
  });

  app.get('/api/merchant/sales/daily', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['merchant'],
      summary: 'Sales per UTC day and currency, oldest day first: every payment received (GET /api/merchant/received), what the customers paid',
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
