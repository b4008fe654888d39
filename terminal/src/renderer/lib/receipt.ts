import type { EndOfDayReport, GiftCardSaleReceipt, MerchantHeader, OfflinePaymentReceipt, PosPaymentReceipt, ReceiptSettings, RefundReceipt, ShiftReport, TillSaleReceipt } from '@tapline/hardware/browser';
import { minorFromMajor as toMinor } from '@tapline/shared/money';
import { DEFAULT_LANGUAGE, languageOf, translator } from '@tapline/shared/i18n';
import type { Cart } from '@tapline/shared/cart';
import type { OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import type { DayReport, PosContext, RefundRecord, SaleRecord, Tally } from './api.ts';
import { type GiftCardSale, printedExpiry } from './gift-card-sales.ts';
import { type PosSaleDoc, saleCart } from './pos-sales.ts';
import type { ShiftFigures } from './shifts.ts';
import type { TerminalConfig } from './terminal-config.ts';

export interface ReceiptRequest {
  merchant: MerchantHeader;
  settings: ReceiptSettings;
  receipt: PosPaymentReceipt | OfflinePaymentReceipt | TillSaleReceipt | GiftCardSaleReceipt | RefundReceipt | EndOfDayReport | ShiftReport;
  /** One job per sale: a second request for the same sale does not print twice. */
  jobId: string;
}

/**
 * Who prints and how. `language` is the kiosk's (the terminal's, or the cashier's choice on
 * screen): the receipt's words, money format and code page; without one, the host's
 * PRINTER_LANGUAGE.
 */
function header(context: PosContext, config: TerminalConfig, language: string | undefined): Pick<ReceiptRequest, 'merchant' | 'settings'> {
  return {
    merchant: { name: context.merchant.name, handle: context.merchant.handle },
    settings: { ...config.receipt, ...(language === undefined ? {} : { language }), ...(context.terminal ? { terminalName: context.terminal.name } : {}) },
  };
}

/** An itemised receipt's lines, when the sale came from the cart. */
function cartField(cart: Cart | null): { cart?: Cart } {
  return cart === null ? {} : { cart };
}

/** The receipt of a sale the customer paid (by tap or on the QR code's page). Job `pos-<sessionId>`: printed once. */
export function posPaymentReceipt(sale: PosSaleDoc, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'pos-payment',
      sessionId: sale.sessionId ?? sale.id,
      method: sale.tagId === undefined ? 'qr' : 'nfc_tap',
      amountMinor: sale.amountMinor,
      currency: sale.currency,
      description: sale.description,
      payerHandle: sale.payerHandle ?? '',
      walletRef: sale.walletRef ?? '',
      ...(sale.tagId === undefined ? {} : { tagId: sale.tagId }),
      completedAt: sale.completedAt ?? sale.endedAt ?? sale.capturedAt,
      ...cartField(saleCart(sale)),
    },
    jobId: `pos-${sale.sessionId ?? sale.id}`,
  };
}

/**
 * A receipt printed again from the sales history: marked as a copy, under a job id of its own
 * (the original's would be taken for the same job and not print).
 */
export function reprinted(request: ReceiptRequest, now: Date): ReceiptRequest {
  const { receipt } = request;
  if (receipt.kind === 'gift-card-sale') throw new Error('a gift card cannot be printed again: its code is not kept');
  if (receipt.kind !== 'pos-payment' && receipt.kind !== 'offline-payment' && receipt.kind !== 'till-sale') throw new Error(`a ${receipt.kind} receipt is not reprinted from the sales history`);
  return { ...request, receipt: { ...receipt, reprint: true }, jobId: `${request.jobId}-copy-${now.getTime()}` };
}

/**
 * The receipt of a payment taken offline, printed when it is taken: the layout marks it
 * "OFFLINE - PENDING SYNC" (it is final only once the server settles it). Job `offline-<id>`.
 */
export function offlinePaymentReceipt(doc: OfflinePaymentDoc, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'offline-payment',
      paymentId: doc.id,
      method: doc.kind === 'qr' ? 'offline_qr' : 'offline_tap',
      amountMinor: doc.amountMinor,
      currency: doc.currency,
      ...(doc.description === '' ? {} : { description: doc.description }),
      ...(doc.payerHandle === undefined ? {} : { payerHandle: doc.payerHandle }),
      ...(doc.tagId === undefined ? {} : { tagId: doc.tagId }),
      takenAt: doc.capturedAt,
      ...cartField(saleCart(doc as OfflinePaymentDoc & Pick<PosSaleDoc, 'items' | 'discountMinor'>)),
    },
    jobId: `offline-${doc.id}`,
  };
}

/**
 * The receipt of a sale paid at the till (a cash sale): its lines or amount, the total, the cash
 * tender with what the customer handed over and the change. Final at once (the cash is in the
 * drawer), so never marked offline. It does not kick the drawer: the Cash screen opens it for the
 * sale before printing (lib/cash-drawer.ts). Job `till-<id>`: printed once.
 */
export function tillSaleReceipt(doc: TillSaleDoc, context: PosContext, config: TerminalConfig, language?: string, cashierName?: string): ReceiptRequest {
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'till-sale',
      saleId: doc.id,
      amountMinor: doc.amountMinor,
      currency: doc.currency,
      ...(doc.description === undefined || doc.description === '' ? {} : { description: doc.description }),
      ...cartField(doc.items === undefined ? null : { lines: doc.items, discount: doc.discountMinor ?? 0 }),
      tenders: doc.tenders.map((tender) => ({
        method: tender.kind,
        amountMinor: tender.amountMinor,
        ...(tender.tenderedMinor === undefined ? {} : { tenderedMinor: tender.tenderedMinor }),
        ...(tender.changeMinor === undefined ? {} : { changeMinor: tender.changeMinor }),
      })),
      ...(doc.tipMinor === undefined || doc.tipMinor === 0 ? {} : { tipMinor: doc.tipMinor }),
      ...(cashierName === undefined ? {} : { cashier: cashierName }),
      soldAt: doc.capturedAt,
    },
    jobId: `till-${doc.id}`,
  };
}

/** Printed under the card while its sale waits for the server (the code does not work before), in the receipt's language. */
export function giftCardActivationNote(language: string | undefined): string {
  return translator(languageOf(language) ?? DEFAULT_LANGUAGE).t('receipt.activatesOnline');
}

/**
 * The gift card the customer takes home: the code as QR and text (hardware's gift-card layout),
 * paid in cash at the till. Printed when the sale is stored, online or not, so it says when it
 * activates and prints the earliest expiry the card can get. Job `giftcard-<saleId>`.
 */
export function giftCardSaleReceipt(sale: GiftCardSale, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  const { doc, code } = sale;
  const base = header(context, config, language);
  const footer = doc.status === 'queued' ? [giftCardActivationNote(base.settings.language), base.settings.footer].filter(Boolean).join(' ') : base.settings.footer;
  return {
    merchant: base.merchant,
    settings: { ...base.settings, ...(footer === undefined ? {} : { footer }) },
    receipt: {
      kind: 'gift-card-sale',
      receiptNumber: doc.id.slice(0, 12),
      code,
      amountMinor: doc.amountMinor,
      currency: doc.currency,
      expiresAt: doc.expiresAt ?? printedExpiry(doc.capturedAt),
      ...(doc.message === undefined ? {} : { message: doc.message }),
      payment: { method: 'cash', amountMinor: doc.amountMinor },
      soldAt: doc.capturedAt,
    },
    jobId: `giftcard-${doc.id}`,
  };
}

/** A refund tender's kind as the receipt names it. */
function tenderMethod(kind: string): 'cash' | 'wallet' | 'mobile_money' | 'gift_card' {
  return kind === 'cash' ? 'cash' : kind === 'mobile_money' ? 'mobile_money' : kind === 'gift_card' ? 'gift_card' : 'wallet';
}

/** The refund receipt: the lines given back with what each returned, the total, to whom. Job `refund-<id>`. */
export function refundReceipt(refund: RefundRecord, sale: SaleRecord, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  const unitPrice = new Map((sale.items ?? []).map((item) => [item.line, toMinor(item.unitPrice, sale.currency)]));
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'refund',
      // rf_ and 12 hex: unique enough to find it, short enough for a barcode on 58 mm paper.
      refundNumber: refund.id.slice(0, 15),
      originalReceiptNumber: sale.saleId.slice(0, 12),
      items: refund.lines.map((line) => ({ name: line.name, quantity: line.quantity, unitPriceMinor: unitPrice.get(line.line) ?? 0, amountMinor: toMinor(line.amount, refund.currency) })),
      amountMinor: toMinor(refund.amount, refund.currency),
      currency: refund.currency,
      method: refund.tenders?.length === 1 ? tenderMethod(refund.tenders[0]!.kind) : 'wallet',
      // Where each part went (the kiosk opens the drawer for the cash part itself, once).
      tenders: (refund.tenders ?? [{ kind: 'wallet', amount: refund.amount }]).map((tender) => ({ method: tenderMethod(tender.kind), amountMinor: toMinor(tender.amount, refund.currency) })),
      ...(refund.reason === null ? {} : { reason: refund.reason }),
      refundedAt: refund.createdAt,
    },
    jobId: `refund-${refund.id}`,
  };
}

/** Money in by method as the report prints it; gift cards sold are listed apart (not money in the wallet). */
const REPORT_METHODS = [
  ['walletTap', 'nfc_tap'],
  ['qrOnline', 'qr'],
  ['offlineVoucher', 'offline_qr'],
  ['offlineTap', 'offline_tap'],
  ['cash', 'cash'],
] as const;

/**
 * The X (running) or Z (closing) report on the receipt printer, from the server's report, with
 * what this till still has waiting to sync. Job `zreport-<id>` (printed once) or `xreport-<time>`.
 */
export function dayReportReceipt(report: DayReport, sync: { queued: number; online: boolean; lastSyncAt: string | null }, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  const minor = (amount: number) => toMinor(amount, report.currency);
  const tally = (entry: Tally) => ({ count: entry.count, amountMinor: minor(entry.amount) });
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'end-of-day',
      businessDate: report.openedAt.slice(0, 10),
      currency: report.currency,
      openedAt: report.openedAt,
      closedAt: report.closedAt,
      totals: [
        ...REPORT_METHODS.map(([name, method]) => ({ method, ...tally(report.methods[name] ?? { count: 0, amount: 0 }) })),
        // Mobile money at the till, on the days it was taken.
        ...(report.methods.mobileMoney !== undefined && report.methods.mobileMoney.count > 0 ? [{ method: 'mobile_money' as const, ...tally(report.methods.mobileMoney) }] : []),
        ...(report.methods.giftCardTender !== undefined && report.methods.giftCardTender.count > 0 ? [{ method: 'gift_card' as const, ...tally(report.methods.giftCardTender) }] : []),
      ],
      refunds: tally(report.refunds),
      // Earlier days' refunds whose payout to the phone failed since (the net grows by them).
      ...(report.refundFailures !== undefined && report.refundFailures.count > 0 ? { refundFailures: tally(report.refundFailures) } : {}),
      offline: { ...tally(report.offline), pendingSync: sync.queued },
      sync: { state: !sync.online ? 'offline' : sync.queued > 0 ? 'pending' : 'in_sync', pendingDocuments: sync.queued, ...(sync.lastSyncAt === null ? {} : { lastSyncedAt: sync.lastSyncAt }) },
      report: report.kind === 'Z' && report.number !== null ? { type: 'Z', number: report.number } : { type: 'X' },
      online: tally(report.online),
      declinedOffline: tally(report.declinedOffline),
      giftCardsSold: tally(report.giftCardsSold),
      taxes: report.taxes.map((tax) => ({ rate: Math.round(tax.rate * 100), taxableMinor: minor(tax.taxable), taxMinor: minor(tax.tax) })),
      oversold: report.oversold.map((product) => ({ name: product.name, stock: product.stock })),
    },
    jobId: report.kind === 'Z' && report.id !== null ? `zreport-${report.id}` : `xreport-${Date.parse(report.closedAt)}`,
  };
}

/** A closed shift as the till printed it: its figures, the till's expected cash and the blind count. */
export interface ClosedShift {
  shiftId: string;
  currency: string;
  cashier: string;
  /** Who counted, when another cashier closed the shift (a handover). */
  countedBy?: string;
  openedAt: string;
  closedAt: string;
  figures: ShiftFigures;
  expectedMinor: number;
  countedMinor: number;
}

/** The shift report printed at the close (hardware's shift-report layout). Job `shift-<shiftId>`: printed once. */
export function shiftReportReceipt(shift: ClosedShift, context: PosContext, config: TerminalConfig, language?: string): ReceiptRequest {
  const { figures } = shift;
  return {
    ...header(context, config, language),
    receipt: {
      kind: 'shift-report',
      shiftId: shift.shiftId,
      currency: shift.currency,
      cashier: shift.cashier,
      ...(shift.countedBy === undefined ? {} : { countedBy: shift.countedBy }),
      openedAt: shift.openedAt,
      closedAt: shift.closedAt,
      floatMinor: figures.floatMinor,
      cashSalesMinor: figures.cashSalesMinor,
      cashRefundsMinor: figures.cashRefundsMinor,
      paidInMinor: figures.paidInMinor,
      paidOutMinor: figures.paidOutMinor,
      noSales: figures.noSales,
      expectedMinor: shift.expectedMinor,
      countedMinor: shift.countedMinor,
    },
    jobId: `shift-${shift.shiftId}`,
  };
}
