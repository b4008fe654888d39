import { randomUUID } from 'node:crypto';
import { cartTotals } from '@tapline/shared/cart';
import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { findMerchant } from '../merchants/index.ts';
import { checkManagerPin } from './manager-pin.ts';
import { storedLines, storedTenders, tenderTotal } from './sales.ts';
import { refundLineTaxes } from './refunds.ts';
import { type DayRows, type ReportRow, claimDayRows, staffNames, findReport, findTerminal, insertReport, listReports, lockTerminalDay, openDay, openDayRows, oversoldProducts } from './sales-store.ts';

export interface TerminalActor {
  merchantId: string;
  mode: Mode;
  terminalId: string;
}

interface Tally {
  count: number;
  amount: number;
}

/**
 * The figures of a terminal's day in major units of the merchant's currency (docs/catalogue.md,
 * Reports), from the rows the day holds: POS sessions completed, offline payments (declined ones
 * counted apart), gift cards sold at the till, refunds made. `openedAt` and `closedAt` only label it.
 */
export async function dayFigures(db: Queryable, terminal: { id: string; merchantId: string; mode: Mode }, currency: string, day: DayRows, openedAt: Date, closedAt: Date) {
  const tally = (): Tally => ({ count: 0, amount: 0 });
  const methods = { walletTap: tally(), qrOnline: tally(), offlineVoucher: tally(), offlineTap: tally(), giftCard: tally(), cash: tally(), mobileMoney: tally(), giftCardTender: tally() };
  const cash = { collected: 0, tendered: 0, change: 0, refunds: tally() };
  const tips = tally();
  const declinedTill = tally();
  const online = tally();
  const offline = tally();
  const declinedOffline = tally();
  const giftCardsSold = tally();
  const refunds = tally();
  const refundFailures = tally();
  const add = (target: Tally, amount: number) => {
    target.count += 1;
    target.amount += Number(amount);
  };
  const taxes = new Map<number, { taxable: number; tax: number }>();
  const addTax = (entry: { rate: number; taxable: number; tax: number }, sign: 1 | -1) => {
    const sum = taxes.get(entry.rate) ?? { taxable: 0, tax: 0 };
    sum.taxable += sign * entry.taxable;
    sum.tax += sign * entry.tax;
    taxes.set(entry.rate, sum);
  };
  const addTaxes = (items: unknown, discount: number | null) => {
    const lines = storedLines(items);
    if (!lines) return;
    for (const entry of cartTotals({ lines, discount: Number(discount ?? 0) }).taxes) addTax(entry, 1);
  };
  const cashiers = new Map<string, { sales: Tally; tips: Tally; shifts: number; variance: number }>();
  const cashierOf = (id: string) => {
    let entry = cashiers.get(id);
    if (!entry) cashiers.set(id, (entry = { sales: tally(), tips: tally(), shifts: 0, variance: 0 }));
    return entry;
  };
  for (const session of day.sessions) {
    add(session.tag_id ? methods.walletTap : methods.qrOnline, session.amount);
    // A wallet sale counts for the cashier who charged it; a split sale's tap counts with its till sale.
    if (session.cashier_id && !session.tender_of) add(cashierOf(session.cashier_id).sales, session.amount);
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
    // A split sale's offline tap counts for the cashier with its till sale.
    if (payment.cashier_id && !payment.tender_of) add(cashierOf(payment.cashier_id).sales, payment.amount);
    addTaxes(payment.items, payment.cart_discount);
  }
  for (const card of day.giftCards) {
    add(methods.giftCard, card.amount);
    add(giftCardsSold, card.amount);
  }
  for (const sale of day.tillSales) {
    if (sale.status !== 'accepted') {
      add(declinedTill, sale.amount);
      continue;
    }
    if (sale.cashier_id) {
      const cashier = cashierOf(sale.cashier_id);
      add(cashier.sales, sale.amount);
      if (Number(sale.tip) > 0) add(cashier.tips, sale.tip);
    }
    // A split sale's wallet tap is a POS session of its own, counted with the online sales (an
    // offline tap is an offline payment, counted with those, or declined); its mobile money and
    // gift card parts are counted apart; the rest of the sale was cash.
    const tenders = storedTenders(sale.tenders);
    const walletPart = tenderTotal(tenders, 'wallet') + tenderTotal(tenders, 'offline_tap');
    const mobilePart = Math.min(tenderTotal(tenders, 'mobile_money'), Math.max(Number(sale.amount) - walletPart, 0));
    if (mobilePart > 0) add(methods.mobileMoney, mobilePart);
    const giftPart = Math.min(tenderTotal(tenders, 'gift_card'), Math.max(Number(sale.amount) - walletPart - mobilePart, 0));
    if (giftPart > 0) add(methods.giftCardTender, giftPart);
    const cashPart = Math.max(Number(sale.amount) - walletPart - mobilePart - giftPart, 0);
    if (cashPart > 0 || (mobilePart === 0 && giftPart === 0)) add(methods.cash, cashPart);
    cash.collected += Number(sale.cash_amount);
    cash.tendered += Number(sale.cash_tendered);
    cash.change += Number(sale.cash_change);
    if (Number(sale.tip) > 0) add(tips, sale.tip);
    addTaxes(sale.items, sale.cart_discount);
  }
  // Taxes are net of refunds: a refunded line gives back its share of the line's tax.
  // A refund counts what reached the customer: a mobile money part whose payout failed is not
  // (the money is back in the merchant's wallet, and the sale refundable again).
  for (const refund of day.refunds) {
    const given = Number(refund.amount) - Number(refund.failed_amount ?? 0);
    if (given > 0) add(refunds, given);
    if (refund.sale_kind === 'till_sale') {
      const cashBack = refund.tenders === null ? Number(refund.amount) : tenderTotal(storedTenders(refund.tenders), 'cash');
      if (cashBack > 0) add(cash.refunds, cashBack);
    }
    for (const entry of refundLineTaxes(refund.lines, refund.sale_items, refund.sale_cart_discount)) addTax(entry, -1);
  }
  // Refunds an earlier Z report counted whose payout failed since: that report stays as it closed; this day adds the money back.
  for (const failure of day.refundFailures) add(refundFailures, failure.failed_amount);
  // Tips are apart from sales: the gross counts what was sold.
  const gross = online.amount + offline.amount + methods.cash.amount + methods.mobileMoney.amount + methods.giftCardTender.amount;
  const names = new Map<string, string | null>();
  const shifts = day.shifts.map((shift) => {
    const variance = Number(shift.counted) - Number(shift.expected);
    const cashier = cashierOf(shift.cashier_id);
    cashier.shifts += 1;
    cashier.variance += variance;
    names.set(shift.cashier_id, shift.cashier_name);
    return {
      id: shift.id,
      cashierId: shift.cashier_id,
      cashierName: shift.cashier_name,
      openedAt: shift.opened_at.toISOString(),
      closedAt: shift.closed_at.toISOString(),
      float: toMajor(Number(shift.float), currency),
      cashSales: toMajor(Number(shift.cash_sales), currency),
      cashRefunds: toMajor(Number(shift.cash_refunds), currency),
      paidIn: toMajor(Number(shift.paid_in), currency),
      paidOut: toMajor(Number(shift.paid_out), currency),
      noSales: Number(shift.no_sales),
      expected: toMajor(Number(shift.expected), currency),
      counted: toMajor(Number(shift.counted), currency),
      variance: toMajor(variance, currency),
    };
  });
  const unnamed = [...cashiers.keys()].filter((id) => !names.has(id));
  if (unnamed.length > 0) {
    for (const [id, name] of await staffNames(db, terminal.merchantId, unnamed)) names.set(id, name);
  }
  const major = (minor: number) => toMajor(minor, currency);
  const tallyMajor = (t: Tally) => ({ count: t.count, amount: major(t.amount) });
  const oversold = await oversoldProducts(db, terminal.merchantId, terminal.mode);
  return {
    terminalId: terminal.id,
    openedAt: openedAt.toISOString(),
    closedAt: closedAt.toISOString(),
    currency,
    methods: {
      walletTap: tallyMajor(methods.walletTap),
      qrOnline: tallyMajor(methods.qrOnline),
      offlineVoucher: tallyMajor(methods.offlineVoucher),
      offlineTap: tallyMajor(methods.offlineTap),
      giftCard: tallyMajor(methods.giftCard),
      cash: tallyMajor(methods.cash),
      mobileMoney: tallyMajor(methods.mobileMoney),
      giftCardTender: tallyMajor(methods.giftCardTender),
    },
    online: tallyMajor(online),
    offline: tallyMajor(offline),
    declinedOffline: tallyMajor(declinedOffline),
    cash: {
      sales: tallyMajor(methods.cash),
      collected: major(cash.collected),
      tendered: major(cash.tendered),
      change: major(cash.change),
      refunds: tallyMajor(cash.refunds),
      net: major(cash.collected - cash.refunds.amount),
    },
    tips: tallyMajor(tips),
    declinedTill: tallyMajor(declinedTill),
    shifts,
    cashiers: [...cashiers]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([cashierId, entry]) => ({ cashierId, name: names.get(cashierId) ?? null, sales: tallyMajor(entry.sales), tips: tallyMajor(entry.tips), shifts: entry.shifts, variance: major(entry.variance) })),
    giftCardsSold: tallyMajor(giftCardsSold),
    refunds: tallyMajor(refunds),
    refundFailures: tallyMajor(refundFailures),
    taxes: [...taxes].sort(([a], [b]) => a - b).map(([rate, sum]) => ({ rate: rate / 100, taxable: major(sum.taxable), tax: major(sum.tax) })),
    gross: major(gross),
    net: major(gross - refunds.amount + refundFailures.amount),
    oversold: oversold.map((row) => ({ productId: row.id, name: row.name, stock: Number(row.stock) })),
  };
}

/** What a Z report stores (jsonb): the figures dayFigures answered when it closed the day. */
type DayFigures = Awaited<ReturnType<typeof dayFigures>>;

/** What a Z report closed before the till took cash (or before refund failures were counted, migration 059) shows for it: none. */
const NO_TILL_FIGURES = {
  cash: { sales: { count: 0, amount: 0 }, collected: 0, tendered: 0, change: 0, refunds: { count: 0, amount: 0 }, net: 0 },
  tips: { count: 0, amount: 0 },
  declinedTill: { count: 0, amount: 0 },
  shifts: [],
  cashiers: [],
  refundFailures: { count: 0, amount: 0 },
};

export function reportRecord(row: ReportRow) {
  const report = (typeof row.report === 'string' ? JSON.parse(row.report) : row.report) as DayFigures;
  return {
    ...NO_TILL_FIGURES,
    ...report,
    methods: { ...report.methods, cash: report.methods.cash ?? NO_TILL_FIGURES.cash.sales },
    id: row.id,
    kind: 'Z' as const,
    number: row.number,
  };
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
      const figures = await dayFigures(db, terminalOf(actor), await currencyOf(actor.merchantId), await openDayRows(db, actor.terminalId), openedAt, context.now());
      return { ...figures, id: null, kind: 'X' as const, number: null, nextNumber: number };
    },

    /** `derived`: from the Idempotency-Key: a retry answers the report its first run closed. */
    async close(actor: TerminalActor, managerPin: string | undefined, derived: string | undefined) {
      const id = `zr_${(derived ?? randomUUID()).replaceAll('-', '')}`;
      if (derived) {
        const existing = await findReport(db, actor.terminalId, id);
        if (existing) return reportRecord(existing);
      }
      await checkManagerPin(db, actor.terminalId, managerPin, context.now());
      const currency = await currencyOf(actor.merchantId);
      const row = await db.transaction(async (tx) => {
        const day = await lockTerminalDay(tx, actor.terminalId);
        if (!day) throw notFound('terminal_not_found', 'Terminal not found');
        const closedAt = context.now();
        // The report's row is written after its claims (the reference is checked at commit).
        const claimed = await claimDayRows(tx, actor.terminalId, id);
        const figures = await dayFigures(tx, terminalOf(actor), currency, claimed, day.openedAt, closedAt);
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
