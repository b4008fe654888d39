/**
 * The eight Tapline receipts. Input amounts are integer minor units with an ISO 4217 currency;
 * output is a ReceiptDocument that fits 58 mm (32 columns) or 80 mm (48 columns) paper.
 * No Node APIs here, so the terminal UI can build receipts itself as well.
 */
import { type Cart, cartTotals, taxRows } from '@tapline/shared/cart';
import { DEFAULT_LANGUAGE, type MessageKey, type Translator, languageOf, translator } from '@tapline/shared/i18n';
import { codepageForLanguage } from './codepages.ts';
import type { MonochromeImage, PaperWidth, ReceiptDocument } from './document.ts';
import { formatAmount, formatDateTime, formatMoneyWithCode } from './format.ts';
import { ReceiptBuilder } from './receipt-builder.ts';

export interface MerchantHeader {
  name: string;
  handle?: string;
  addressLines?: string[];
  phone?: string;
  taxId?: string;
  logo?: MonochromeImage;
}

export interface ReceiptSettings {
  paperWidth: PaperWidth;
  /**
   * BCP 47 language the receipt is printed in ("fr", "fr-SN"): its words and money format (a
   * language without a catalogue prints English) and the printer's code page.
   */
  language: string;
  /** IANA time zone times are printed in, e.g. "Africa/Lagos". */
  timeZone: string;
  terminalName?: string;
  footer?: string;
}

export type PaymentMethod = 'cash' | 'wallet' | 'nfc_tap' | 'gift_card' | 'card' | 'mobile_money' | 'qr' | 'offline_qr' | 'offline_tap';

/** A payment method's name on the receipt, in its language. */
export function paymentMethodLabel(t: Translator<MessageKey>, method: PaymentMethod): string {
  return t.t(`receipt.methods.${method}`);
}

export interface PosPaymentReceipt {
  kind: 'pos-payment';
  sessionId: string;
  /** How the customer paid: a tap at the reader (the default) or the session's QR code page. */
  method?: 'nfc_tap' | 'qr';
  /** A copy printed again later (sales history): marked so it is not taken for a second payment. */
  reprint?: boolean;
  amountMinor: number;
  currency: string;
  description: string;
  payerHandle: string;
  walletRef: string;
  tagId?: string;
  completedAt: string;
  /** The sale's lines (a sale from the till's cart): printed itemised, with discounts and taxes by rate. */
  cart?: Cart;
}

export interface SaleLine {
  name: string;
  quantity: number;
  unitPriceMinor: number;
  /** What the line comes to when it is not quantity × unit price (a refunded line: its share of what was paid). */
  amountMinor?: number;
}

export interface PaymentLine {
  method: PaymentMethod;
  amountMinor: number;
  reference?: string;
}

export interface StoreSaleReceipt {
  kind: 'store-sale';
  receiptNumber: string;
  items: SaleLine[];
  currency: string;
  discountMinor?: number;
  taxMinor?: number;
  payments: PaymentLine[];
  changeMinor?: number;
  cashier?: string;
  soldAt: string;
}

export interface GiftCardSaleReceipt {
  kind: 'gift-card-sale';
  receiptNumber: string;
  /** The plaintext code, shown to the buyer once; the QR carries it for redemption. */
  code: string;
  amountMinor: number;
  currency: string;
  expiresAt: string;
  message?: string;
  pinProtected?: boolean;
  payment: PaymentLine;
  soldAt: string;
}

export interface OfflinePaymentReceipt {
  kind: 'offline-payment';
  /** The document id on the terminal; it is the idempotency key when it syncs. */
  paymentId: string;
  method: 'offline_qr' | 'offline_tap';
  amountMinor: number;
  currency: string;
  description?: string;
  payerHandle?: string;
  tagId?: string;
  takenAt: string;
  /** A copy printed again later (sales history). */
  reprint?: boolean;
  /** The sale's lines (a sale from the till's cart): printed itemised. */
  cart?: Cart;
}

/** One tender of a till sale as printed: cash also says what was handed over and the change given. */
export interface TillTenderLine {
  method: PaymentMethod;
  amountMinor: number;
  tenderedMinor?: number;
  changeMinor?: number;
}

/**
 * A sale the till completed with its tenders (a cash sale): its lines (or its amount), the total,
 * each tender and, for cash, what the customer handed over and the change. The document never
 * kicks the drawer: the kiosk opens it itself for the sale (openDrawer, once per sale id) before
 * it prints, so a receipt printed later (a printer that was off, a reprint) opens nothing.
 */
export interface TillSaleReceipt {
  kind: 'till-sale';
  /** The sale's id on the terminal (its idempotency key; the server finds the sale by it). */
  saleId: string;
  amountMinor: number;
  currency: string;
  description?: string;
  /** The sale's lines (a sale from the till's cart): printed itemised. */
  cart?: Cart;
  tenders: TillTenderLine[];
  /** A tip on top of the total (minor units), paid by the tenders too. */
  tipMinor?: number;
  cashier?: string;
  soldAt: string;
  /** A copy printed again later (sales history). */
  reprint?: boolean;
}

export interface RefundReceipt {
  kind: 'refund';
  refundNumber: string;
  originalReceiptNumber: string;
  items?: SaleLine[];
  amountMinor: number;
  currency: string;
  method: PaymentMethod;
  /**
   * Where each part went back (a split sale: the wallet, the phone, the drawer), printed one row
   * each. With tenders the document never kicks the drawer: the kiosk opens it itself for the
   * refund (openDrawer, once per refund id), so a receipt printed again opens nothing.
   */
  tenders?: { method: PaymentMethod; amountMinor: number }[];
  reason?: string;
  cashier?: string;
  refundedAt: string;
}

export interface MethodTotal {
  method: PaymentMethod;
  count: number;
  amountMinor: number;
}

export interface EndOfDayReport {
  kind: 'end-of-day';
  businessDate: string;
  currency: string;
  openedAt: string;
  closedAt: string;
  totals: MethodTotal[];
  refunds: { count: number; amountMinor: number };
  /** Refunds counted by an earlier report whose mobile money payout then failed: the money stayed with the merchant, so the net grows by it. */
  refundFailures?: { count: number; amountMinor: number };
  offline: { count: number; amountMinor: number; pendingSync: number };
  sync: { state: 'in_sync' | 'pending' | 'offline'; lastSyncedAt?: string; pendingDocuments: number };
  /** The server's X (running, the day stays open) or Z report (closes the day, numbered). */
  report?: { type: 'X' | 'Z'; number?: number };
  /** Online sales, declined offline payments, gift cards sold. */
  online?: { count: number; amountMinor: number };
  declinedOffline?: { count: number; amountMinor: number };
  giftCardsSold?: { count: number; amountMinor: number };
  /** Taxes of the day's itemised sales by rate (basis points). */
  taxes?: { rate: number; taxableMinor: number; taxMinor: number }[];
  /** Tracked products sold below zero (offline sales). */
  oversold?: { name: string; stock: number }[];
}

/**
 * A cashier's shift closed at the till (docs/till.md): the float, the cash that came in and went
 * out, what the till expected in the drawer, what was counted (blind) and the variance.
 */
export interface ShiftReport {
  kind: 'shift-report';
  shiftId: string;
  currency: string;
  /** The cashier whose shift it was. */
  cashier: string;
  /** Who counted, when not that cashier (another cashier's handover count). */
  countedBy?: string;
  openedAt: string;
  closedAt: string;
  floatMinor: number;
  cashSalesMinor: number;
  cashRefundsMinor: number;
  paidInMinor: number;
  paidOutMinor: number;
  /** Drawer openings without a sale (each approved by a manager). */
  noSales: number;
  expectedMinor: number;
  countedMinor: number;
}

export type ReceiptInput = PosPaymentReceipt | StoreSaleReceipt | GiftCardSaleReceipt | OfflinePaymentReceipt | TillSaleReceipt | RefundReceipt | EndOfDayReport | ShiftReport;

/** The receipt's words: its language's catalogue, English when there is none. */
function receiptTranslator(settings: ReceiptSettings): Translator<MessageKey> {
  return translator(languageOf(settings.language) ?? DEFAULT_LANGUAGE);
}

/** Under the title of a receipt printed again from the sales history, so it is not taken for a second payment. */
function reprintMark(builder: ReceiptBuilder, t: Translator<MessageKey>, reprint: boolean | undefined): void {
  if (reprint === true) builder.text(t.t('receipt.reprinted'), { align: 'center', bold: true, invert: true });
}

function header(builder: ReceiptBuilder, t: Translator<MessageKey>, merchant: MerchantHeader): void {
  if (merchant.logo !== undefined) builder.image(merchant.logo).feed();
  builder.big(merchant.name);
  if (merchant.handle !== undefined) builder.text(`@${merchant.handle.replace(/^@/, '')}`, { align: 'center' });
  for (const line of merchant.addressLines ?? []) builder.text(line, { align: 'center' });
  if (merchant.phone !== undefined) builder.text(t.t('receipt.phone', { phone: merchant.phone }), { align: 'center' });
  if (merchant.taxId !== undefined) builder.text(t.t('receipt.taxId', { id: merchant.taxId }), { align: 'center' });
  builder.rule('double');
}

/** Customer receipts thank and carry the merchant's footer; refunds and reports do not. */
function footer(builder: ReceiptBuilder, t: Translator<MessageKey>, settings: ReceiptSettings, audience: 'customer' | 'refund' | 'report' = 'customer'): void {
  builder.rule('double');
  if (audience === 'customer') builder.text(t.t('receipt.thanks'), { align: 'center', bold: true });
  if (audience !== 'report' && settings.footer !== undefined) builder.text(settings.footer, { align: 'center' });
  builder.text(t.t('receipt.poweredBy'), { align: 'center' });
}

function meta(builder: ReceiptBuilder, t: Translator<MessageKey>, settings: ReceiptSettings, label: string, value: string, at: string): void {
  builder.row(label, value);
  builder.row(t.t('receipt.date'), formatDateTime(at, settings.timeZone));
  if (settings.terminalName !== undefined) builder.row(t.t('receipt.terminal'), settings.terminalName);
}

function total(builder: ReceiptBuilder, t: Translator<MessageKey>, label: string, minor: number, currency: string): void {
  builder.rule();
  const money = formatMoneyWithCode(t, minor, currency);
  const text = `${label} ${money}`;
  if (Array.from(text).length <= builder.columns / 2) builder.big(text, { align: 'right' });
  else builder.row(label, money, { bold: true });
}

/** A tax rate in basis points as the receipt's language writes a percentage ("7.5 %", "7,5 %"). */
function taxRateLabel(t: Translator<MessageKey>, settings: ReceiptSettings, rateBps: number): string {
  return t.t('receipt.taxAt', { rate: new Intl.NumberFormat(settings.language, { maximumFractionDigits: 2 }).format(rateBps / 100) });
}

/**
 * A cart's lines (quantity × unit price, the line's own discount), the cart discount, the taxes
 * by rate (the included and the added tax of one rate on rows of their own), and the total: the numbers of shared/src/cart.ts, which the server
 * checked the sale with.
 */
function cartLines(builder: ReceiptBuilder, t: Translator<MessageKey>, settings: ReceiptSettings, cart: Cart, currency: string): number {
  const totals = cartTotals(cart);
  builder.rule();
  for (const line of cart.lines) {
    builder.text(line.name);
    builder.row(`  ${line.quantity} x ${formatAmount(t, line.unitPrice, currency)}`, formatAmount(t, line.quantity * line.unitPrice, currency));
    if (line.discount > 0) builder.row(`  ${t.t('receipt.discount')}`, formatAmount(t, -line.discount, currency));
  }
  builder.rule();
  builder.row(t.t('receipt.subtotal'), formatAmount(t, totals.subtotal, currency));
  if (cart.discount > 0) builder.row(t.t('receipt.cartDiscount'), formatAmount(t, -cart.discount, currency));
  for (const tax of taxRows(cart, totals)) {
    builder.row(`${taxRateLabel(t, settings, tax.rate)} ${t.t(tax.included ? 'receipt.included' : 'receipt.added')}`, formatAmount(t, tax.tax, currency));
  }
  return totals.total;
}

function itemLines(builder: ReceiptBuilder, t: Translator<MessageKey>, items: readonly SaleLine[], currency: string): number {
  let sum = 0;
  for (const item of items) {
    const lineTotal = item.amountMinor ?? item.quantity * item.unitPriceMinor;
    sum += lineTotal;
    builder.text(item.name);
    builder.row(`  ${item.quantity} x ${formatAmount(t, item.unitPriceMinor, currency)}`, formatAmount(t, lineTotal, currency));
  }
  return sum;
}

export function posPaymentReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: PosPaymentReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.text(t.t('receipt.paymentReceipt'), { align: 'center', bold: true });
  reprintMark(builder, t, receipt.reprint);
  builder.feed();
  meta(builder, t, settings, t.t('receipt.session'), receipt.sessionId.slice(0, 8), receipt.completedAt);
  if (receipt.description !== '') builder.text(receipt.description);
  if (receipt.cart !== undefined) cartLines(builder, t, settings, receipt.cart, receipt.currency);
  total(builder, t, t.t('receipt.paid'), receipt.amountMinor, receipt.currency);
  builder.rule();
  builder.row(t.t('receipt.method'), paymentMethodLabel(t, receipt.method ?? 'nfc_tap'));
  builder.row(t.t('receipt.payer'), `@${receipt.payerHandle.replace(/^@/, '')}`);
  if (receipt.tagId !== undefined) builder.row(t.t('receipt.tag'), receipt.tagId);
  builder.row(t.t('receipt.walletRef'), receipt.walletRef);
  builder.text(t.t('receipt.sessionId', { id: receipt.sessionId }));
  footer(builder, t, settings);
  return builder.build();
}

export function storeSaleReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: StoreSaleReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.text(t.t('receipt.sale'), { align: 'center', bold: true }).feed();
  meta(builder, t, settings, t.t('receipt.receipt'), receipt.receiptNumber, receipt.soldAt);
  if (receipt.cashier !== undefined) builder.row(t.t('receipt.cashier'), receipt.cashier);
  builder.rule();
  const subtotal = itemLines(builder, t, receipt.items, receipt.currency);
  builder.rule();
  builder.row(t.t('receipt.subtotal'), formatAmount(t, subtotal, receipt.currency));
  const discount = receipt.discountMinor ?? 0;
  if (discount > 0) builder.row(t.t('receipt.discount'), formatAmount(t, -discount, receipt.currency));
  if (receipt.taxMinor !== undefined) builder.row(t.t('receipt.taxIncluded'), formatAmount(t, receipt.taxMinor, receipt.currency));
  total(builder, t, t.t('receipt.total'), subtotal - discount, receipt.currency);
  builder.rule();
  for (const payment of receipt.payments) {
    builder.row(paymentMethodLabel(t, payment.method), formatAmount(t, payment.amountMinor, receipt.currency));
    if (payment.reference !== undefined) builder.text(t.t('receipt.reference', { reference: payment.reference }));
  }
  if (receipt.changeMinor !== undefined && receipt.changeMinor > 0) builder.row(t.t('receipt.change'), formatAmount(t, receipt.changeMinor, receipt.currency), { bold: true });
  builder.feed().barcode(receipt.receiptNumber);
  footer(builder, t, settings);
  return builder.build({ openCashDrawer: receipt.payments.some((payment) => payment.method === 'cash') });
}

export function giftCardSaleReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: GiftCardSaleReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.big(t.t('receipt.giftCard'));
  builder.big(formatMoneyWithCode(t, receipt.amountMinor, receipt.currency));
  builder.feed();
  builder.qr(receipt.code, settings.paperWidth === 58 ? 4 : 5);
  builder.text(receipt.code, { align: 'center' });
  builder.feed();
  builder.row(t.t('receipt.validUntil'), formatDateTime(receipt.expiresAt, settings.timeZone).slice(0, 10));
  if (receipt.pinProtected === true) builder.text(t.t('receipt.pinProtected'), { align: 'center' });
  if (receipt.message !== undefined) builder.feed().text(`"${receipt.message}"`, { align: 'center' });
  builder.feed().text(t.t('receipt.keepSafe'), { align: 'center', bold: true });
  builder.rule();
  meta(builder, t, settings, t.t('receipt.receipt'), receipt.receiptNumber, receipt.soldAt);
  builder.row(t.t('receipt.paidWith', { method: paymentMethodLabel(t, receipt.payment.method) }), formatAmount(t, receipt.payment.amountMinor, receipt.currency));
  footer(builder, t, settings);
  return builder.build({ openCashDrawer: receipt.payment.method === 'cash' });
}

export function offlinePaymentReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: OfflinePaymentReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.big(t.t('receipt.offlinePending'), { invert: true });
  builder.text(t.t('receipt.offlineNotice'), { align: 'center' });
  reprintMark(builder, t, receipt.reprint);
  builder.rule();
  meta(builder, t, settings, t.t('receipt.payment'), receipt.paymentId.slice(0, 12), receipt.takenAt);
  builder.row(t.t('receipt.method'), paymentMethodLabel(t, receipt.method));
  if (receipt.payerHandle !== undefined) builder.row(t.t('receipt.payer'), `@${receipt.payerHandle.replace(/^@/, '')}`);
  if (receipt.tagId !== undefined) builder.row(t.t('receipt.tag'), receipt.tagId);
  if (receipt.description !== undefined) builder.text(receipt.description);
  if (receipt.cart !== undefined) cartLines(builder, t, settings, receipt.cart, receipt.currency);
  total(builder, t, t.t('receipt.amount'), receipt.amountMinor, receipt.currency);
  builder.rule();
  builder.text(t.t('receipt.ref', { id: receipt.paymentId }));
  builder.big(t.t('receipt.offlinePending'), { invert: true });
  footer(builder, t, settings);
  return builder.build();
}

export function tillSaleReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: TillSaleReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.text(t.t('receipt.sale'), { align: 'center', bold: true });
  reprintMark(builder, t, receipt.reprint);
  builder.feed();
  meta(builder, t, settings, t.t('receipt.receipt'), receipt.saleId.slice(0, 12), receipt.soldAt);
  if (receipt.cashier !== undefined) builder.row(t.t('receipt.cashier'), receipt.cashier);
  if (receipt.description !== undefined) builder.text(receipt.description);
  if (receipt.cart !== undefined) cartLines(builder, t, settings, receipt.cart, receipt.currency);
  total(builder, t, t.t('receipt.total'), receipt.amountMinor, receipt.currency);
  if (receipt.tipMinor !== undefined && receipt.tipMinor > 0) {
    builder.row(t.t('receipt.tip'), formatAmount(t, receipt.tipMinor, receipt.currency));
    builder.row(t.t('receipt.totalPaid'), formatAmount(t, receipt.amountMinor + receipt.tipMinor, receipt.currency), { bold: true });
  }
  builder.rule();
  for (const tender of receipt.tenders) {
    builder.row(paymentMethodLabel(t, tender.method), formatAmount(t, tender.amountMinor, receipt.currency));
    if (tender.tenderedMinor !== undefined) builder.row(t.t('receipt.cashTendered'), formatAmount(t, tender.tenderedMinor, receipt.currency));
    if (tender.changeMinor !== undefined) builder.row(t.t('receipt.change'), formatAmount(t, tender.changeMinor, receipt.currency), { bold: true });
  }
  builder.text(t.t('receipt.ref', { id: receipt.saleId }));
  footer(builder, t, settings);
  return builder.build();
}

export function refundReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: RefundReceipt): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, t, merchant);
  builder.big(t.t('receipt.refund'));
  builder.feed();
  meta(builder, t, settings, t.t('receipt.refundNumber'), receipt.refundNumber, receipt.refundedAt);
  builder.row(t.t('receipt.originalReceipt'), receipt.originalReceiptNumber);
  if (receipt.cashier !== undefined) builder.row(t.t('receipt.cashier'), receipt.cashier);
  if (receipt.items !== undefined && receipt.items.length > 0) {
    builder.rule();
    itemLines(builder, t, receipt.items, receipt.currency);
  }
  if (receipt.reason !== undefined) builder.rule().text(t.t('receipt.reason', { reason: receipt.reason }));
  total(builder, t, t.t('receipt.refund'), -receipt.amountMinor, receipt.currency);
  if (receipt.tenders !== undefined && receipt.tenders.length > 1) {
    builder.text(t.t('receipt.refundedTo'));
    for (const tender of receipt.tenders) builder.row(paymentMethodLabel(t, tender.method), formatAmount(t, tender.amountMinor, receipt.currency));
  } else builder.row(t.t('receipt.refundedTo'), paymentMethodLabel(t, receipt.tenders?.[0]?.method ?? receipt.method));
  builder.feed().barcode(receipt.refundNumber);
  builder.feed().text(t.t('receipt.signature'), { align: 'left' }).feed(2).rule();
  footer(builder, t, settings, 'refund');
  return builder.build({ openCashDrawer: receipt.method === 'cash' && receipt.tenders === undefined });
}

export function endOfDayReport(merchant: MerchantHeader, settings: ReceiptSettings, report: EndOfDayReport): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  const { currency } = report;
  header(builder, t, merchant);
  builder.big(t.t('receipt.endOfDay'));
  if (report.report !== undefined) {
    const title = report.report.type === 'Z' ? t.t('receipt.zReport', { number: report.report.number ?? '' }) : t.t('receipt.xReport');
    builder.text(title, { align: 'center', bold: true, invert: report.report.type === 'X' });
  }
  builder.text(t.t('receipt.businessDate', { date: report.businessDate }), { align: 'center' }).feed();
  if (settings.terminalName !== undefined) builder.row(t.t('receipt.terminal'), settings.terminalName);
  builder.row(t.t('receipt.opened'), formatDateTime(report.openedAt, settings.timeZone));
  builder.row(t.t('receipt.closed'), formatDateTime(report.closedAt, settings.timeZone));
  builder.row(t.t('receipt.currency'), currency);
  builder.rule();
  builder.text(t.t('receipt.totalsByMethod'), { bold: true });
  let gross = 0;
  let transactions = 0;
  for (const line of report.totals) {
    gross += line.amountMinor;
    transactions += line.count;
    builder.row(t.t('receipt.counted', { label: paymentMethodLabel(t, line.method), count: line.count }), formatAmount(t, line.amountMinor, currency));
  }
  builder.rule();
  builder.row(t.t('receipt.gross', { count: transactions }), formatAmount(t, gross, currency), { bold: true });
  builder.row(t.t('receipt.refunds', { count: report.refunds.count }), formatAmount(t, -report.refunds.amountMinor, currency));
  const failed = report.refundFailures !== undefined && report.refundFailures.count > 0 ? report.refundFailures : null;
  if (failed !== null) builder.row(t.t('receipt.refundFailures', { count: failed.count }), formatAmount(t, failed.amountMinor, currency));
  total(builder, t, t.t('receipt.net'), gross - report.refunds.amountMinor + (failed?.amountMinor ?? 0), currency);
  builder.rule();
  if (report.online !== undefined) builder.row(t.t('receipt.online', { count: report.online.count }), formatAmount(t, report.online.amountMinor, currency));
  if (report.declinedOffline !== undefined) builder.row(t.t('receipt.declinedOffline', { count: report.declinedOffline.count }), formatAmount(t, report.declinedOffline.amountMinor, currency));
  if (report.giftCardsSold !== undefined) builder.row(t.t('receipt.giftCardsSold', { count: report.giftCardsSold.count }), formatAmount(t, report.giftCardsSold.amountMinor, currency));
  if (report.taxes !== undefined && report.taxes.length > 0) {
    builder.rule().text(t.t('receipt.taxes'), { bold: true });
    for (const tax of report.taxes) builder.row(taxRateLabel(t, settings, tax.rate), formatAmount(t, tax.taxMinor, currency));
  }
  if (report.oversold !== undefined && report.oversold.length > 0) {
    builder.rule().text(t.t('receipt.oversold'), { bold: true });
    for (const product of report.oversold) builder.row(product.name, String(product.stock));
  }
  if (report.online !== undefined || report.taxes !== undefined) builder.rule();
  builder.text(t.t('receipt.offlinePayments'), { bold: true });
  builder.row(t.t('receipt.takenOffline', { count: report.offline.count }), formatAmount(t, report.offline.amountMinor, currency));
  builder.row(t.t('receipt.pendingSync'), String(report.offline.pendingSync));
  builder.rule();
  builder.text(t.t('receipt.sync'), { bold: true });
  builder.row(t.t('receipt.state'), t.t(`receipt.syncStates.${report.sync.state}`), { bold: report.sync.state !== 'in_sync' });
  builder.row(t.t('receipt.documentsPending'), String(report.sync.pendingDocuments));
  if (report.sync.lastSyncedAt !== undefined) builder.row(t.t('receipt.lastSync'), formatDateTime(report.sync.lastSyncedAt, settings.timeZone));
  if (report.sync.state !== 'in_sync' || report.offline.pendingSync > 0) {
    builder.feed().text(t.t('receipt.unconfirmedTotals'), { align: 'center', bold: true });
  }
  footer(builder, t, settings, 'report');
  return builder.build();
}

export function shiftReport(merchant: MerchantHeader, settings: ReceiptSettings, report: ShiftReport): ReceiptDocument {
  const t = receiptTranslator(settings);
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  const { currency } = report;
  const amount = (minor: number) => formatAmount(t, minor, currency);
  header(builder, t, merchant);
  builder.big(t.t('receipt.shiftReport'));
  builder.feed();
  if (settings.terminalName !== undefined) builder.row(t.t('receipt.terminal'), settings.terminalName);
  builder.row(t.t('receipt.cashier'), report.cashier);
  if (report.countedBy !== undefined) builder.row(t.t('receipt.countedBy'), report.countedBy);
  builder.row(t.t('receipt.opened'), formatDateTime(report.openedAt, settings.timeZone));
  builder.row(t.t('receipt.closed'), formatDateTime(report.closedAt, settings.timeZone));
  builder.row(t.t('receipt.currency'), currency);
  builder.rule();
  builder.row(t.t('receipt.float'), amount(report.floatMinor));
  builder.row(t.t('receipt.cashSales'), amount(report.cashSalesMinor));
  builder.row(t.t('receipt.cashRefunds'), amount(-report.cashRefundsMinor));
  builder.row(t.t('receipt.paidIn'), amount(report.paidInMinor));
  builder.row(t.t('receipt.paidOut'), amount(-report.paidOutMinor));
  builder.row(t.t('receipt.noSales'), String(report.noSales));
  builder.rule();
  builder.row(t.t('receipt.expected'), amount(report.expectedMinor), { bold: true });
  builder.row(t.t('receipt.countedCash'), amount(report.countedMinor), { bold: true });
  const variance = report.countedMinor - report.expectedMinor;
  const word = t.t(variance < 0 ? 'receipt.short' : variance > 0 ? 'receipt.over' : 'receipt.balanced');
  total(builder, t, t.t('receipt.variance'), variance, currency);
  builder.text(word, { align: 'center', bold: true, invert: variance !== 0 });
  builder.text(t.t('receipt.shiftId', { id: report.shiftId }));
  builder.feed().text(t.t('receipt.cashierSignature'), { align: 'left' }).feed(2).rule();
  footer(builder, t, settings, 'report');
  return builder.build();
}

/** One entry point for the bridge: any receipt input to its document. */
export function layoutReceipt(merchant: MerchantHeader, settings: ReceiptSettings, input: ReceiptInput): ReceiptDocument {
  switch (input.kind) {
    case 'pos-payment':
      return posPaymentReceipt(merchant, settings, input);
    case 'store-sale':
      return storeSaleReceipt(merchant, settings, input);
    case 'gift-card-sale':
      return giftCardSaleReceipt(merchant, settings, input);
    case 'offline-payment':
      return offlinePaymentReceipt(merchant, settings, input);
    case 'till-sale':
      return tillSaleReceipt(merchant, settings, input);
    case 'refund':
      return refundReceipt(merchant, settings, input);
    case 'end-of-day':
      return endOfDayReport(merchant, settings, input);
    case 'shift-report':
      return shiftReport(merchant, settings, input);
  }
}
