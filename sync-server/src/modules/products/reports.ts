import { randomUUID } from 'node:crypto';
import { cartTotals } from '@tapline/shared/cart';
import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { findMerchant } from '../merchants/store.ts';
import { checkManagerPin } from './manager-pin.ts';
import { storedLines } from './sales.ts';
import { type ReportRow, findReport, findTerminal, insertReport, listReports, lockTerminalDay, openDay, oversoldProducts, terminalDay } from './sales-store.ts';

export interface TerminalActor {
  merchantId: string;
  mode: Mode;
  terminalId: string;
}

interface Tally {
  count: number;
  amount: number;
}

const METHODS = ['walletTap', 'qrOnline', 'offlineVoucher', 'offlineTap', 'giftCard'] as const;

/**
 * The figures of a terminal's day, from `openedAt` (excluded) to `closedAt` (included), in major
 * units of the merchant's currency (docs/catalogue.md, Reports). Only what settled counts: POS
 * sessions completed, offline payments accepted (declined ones are counted apart), gift cards sold
 * at the till, refunds made.
 */
export async function dayFigures(db: Queryable, terminal: { id: string; merchantId: string; mode: Mode }, currency: string, openedAt: Date, closedAt: Date) {
  const day = await terminalDay(db, terminal.id, openedAt, closedAt);
  const tally = (): Tally => ({ count: 0, amount: 0 });
  const methods = Object.fromEntries(METHODS.map((method) => [method, tally()])) as Record<(typeof METHODS)[number], Tally>;
  const online = tally();
  const offline = tally();
  const declinedOffline = tally();
  const giftCardsSold = tally();
  const refunds = tally();
  const add = (target: Tally, amount: number) => {
    target.count += 1;
    target.amount += Number(amount);
  };
  const taxes = new Map<number, { taxable: number; tax: number }>();
  const addTaxes = (items: unknown, discount: number | null) => {
    const lines = storedLines(items);
    if (!lines) return;
    for (const entry of cartTotals({ lines, discount: Number(discount ?? 0) }).taxes) {
      const sum = taxes.get(entry.rate) ?? { taxable: 0, tax: 0 };
      sum.taxable += entry.taxable;
      sum.tax += entry.tax;
      taxes.set(entry.rate, sum);
    }
  };
  for (const session of day.sessions) {
    add(session.tag_id ? methods.walletTap : methods.qrOnline, session.amount);
    add(online, session.amount);
    addTaxes(session.items, session.cart_discount);
  }
  for (const payment of day.payments) {
    if (payment.status !== 'accepted') {
      add(declinedOffline, payment.amount);
      continue;
    }
    add(payment.kind === 'tap' ? methods.offlineTap : methods.offlineVoucher, payment.amount);
    add(offline, payment.amount);
    addTaxes(payment.items, payment.cart_discount);
  }
  for (const card of day.giftCards) {
    add(methods.giftCard, card.amount);
    add(giftCardsSold, card.amount);
  }
  for (const refund of day.refunds) add(refunds, refund.amount);
  const gross = online.amount + offline.amount;
  const major = (minor: number) => toMajor(minor, currency);
  const tallyMajor = (t: Tally) => ({ count: t.count, amount: major(t.amount) });
  const oversold = await oversoldProducts(db, terminal.merchantId, terminal.mode);
  return {
    terminalId: terminal.id,
    openedAt: openedAt.toISOString(),
    closedAt: closedAt.toISOString(),
    currency,
    methods: Object.fromEntries(METHODS.map((method) => [method, tallyMajor(methods[method])])),
    online: tallyMajor(online),
    offline: tallyMajor(offline),
    declinedOffline: tallyMajor(declinedOffline),
    giftCardsSold: tallyMajor(giftCardsSold),
    refunds: tallyMajor(refunds),
    taxes: [...taxes].sort(([a], [b]) => a - b).map(([rate, sum]) => ({ rate: rate / 100, taxable: major(sum.taxable), tax: major(sum.tax) })),
    gross: major(gross),
    net: major(gross - refunds.amount),
    oversold: oversold.map((row) => ({ productId: row.id, name: row.name, stock: Number(row.stock) })),
  };
}

export function reportRecord(row: ReportRow) {
  const report = (typeof row.report === 'string' ? JSON.parse(row.report) : row.report) as Record<string, unknown>;
  return { ...report, id: row.id, kind: 'Z' as const, number: row.number };
}

/** docs/catalogue.md, Reports: X (the open day, nothing stored) and Z (closes it, numbered, immutable). */
export function reportsService(context: AppContext) {
  const { db } = context;

  async function currencyOf(merchantId: string): Promise<string> {
    const merchant = await findMerchant(db, merchantId);
    if (!merchant) throw notFound('merchant_not_found', 'Merchant not found');
    return merchant.currency;
  }

  const terminalOf = (actor: TerminalActor) => ({ id: actor.terminalId, merchantId: actor.merchantId, mode: actor.mode });

  return {
    async current(actor: TerminalActor) {
      const { openedAt, number } = await openDay(db, actor.terminalId);
      const figures = await dayFigures(db, terminalOf(actor), await currencyOf(actor.merchantId), openedAt, context.now());
      return { ...figures, id: null, kind: 'X' as const, number: null, nextNumber: number };
    },

    /** `derived`: from the Idempotency-Key: a retry answers the report its first run closed. */
    async close(actor: TerminalActor, managerPin: string | undefined, derived: string | undefined) {
      const id = `zr_${(derived ?? randomUUID()).replaceAll('-', '')}`;
      if (derived) {
        const existing = await findReport(db, actor.terminalId, id);
        if (existing) return reportRecord(existing);
      }
      await checkManagerPin(db, actor.terminalId, managerPin);
      const currency = await currencyOf(actor.merchantId);
      const row = await db.transaction(async (tx) => {
        const day = await lockTerminalDay(tx, actor.terminalId);
        if (!day) throw notFound('terminal_not_found', 'Terminal not found');
        const closedAt = context.now();
        const figures = await dayFigures(tx, terminalOf(actor), currency, day.openedAt, closedAt);
        return insertReport(tx, {
          id,
          terminal_id: actor.terminalId,
          merchant_id: actor.merchantId,
          mode: actor.mode,
          number: day.number,
          opened_at: day.openedAt,
          closed_at: closedAt,
          report: figures,
        });
      });
      return reportRecord(row);
    },

    async get(scope: { merchantId: string; mode: Mode }, terminalId: string, id: string) {
      if (!(await findTerminal(db, scope, terminalId))) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
      const row = await findReport(db, terminalId, id);
      if (!row) throw notFound('report_not_found', `No report ${id}`);
      return reportRecord(row);
    },

    async list(scope: { merchantId: string; mode: Mode }, terminalId: string, limit: number, offset: number) {
      if (!(await findTerminal(db, scope, terminalId))) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
      const page = await listReports(db, terminalId, limit, offset);
      return { data: page.rows.map(reportRecord), total: page.total, limit, offset };
    },
  };
}
