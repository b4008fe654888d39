/**
 * The six Tapline receipts. Input amounts are integer minor units with an ISO 4217 currency;
 * output is a ReceiptDocument that fits 58 mm (32 columns) or 80 mm (48 columns) paper.
 * No Node APIs here, so the terminal UI can build receipts itself as well.
 */
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
  /** BCP 47 language of the merchant, for the printer code page. */
  language: string;
  /** IANA time zone times are printed in, e.g. "Africa/Lagos". */
  timeZone: string;
  terminalName?: string;
  footer?: string;
}

export type PaymentMethod = 'cash' | 'wallet' | 'nfc_tap' | 'gift_card' | 'card' | 'mobile_money' | 'qr' | 'offline_qr' | 'offline_tap';

export const PAYMENT_METHOD_LABELS: Readonly<Record<PaymentMethod, string>> = {
  cash: 'Cash',
  wallet: 'Wallet',
  nfc_tap: 'Tap (NFC)',
  gift_card: 'Gift card',
  card: 'Card',
  mobile_money: 'Mobile money',
  qr: 'QR',
  offline_qr: 'Offline QR',
  offline_tap: 'Offline tap',
};

export interface PosPaymentReceipt {
  kind: 'pos-payment';
  sessionId: string;
  amountMinor: number;
  currency: string;
  description: string;
  payerHandle: string;
  walletRef: string;
  tagId?: string;
  completedAt: string;
}

export interface SaleLine {
  name: string;
  quantity: number;
  unitPriceMinor: number;
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
}

export interface RefundReceipt {
  kind: 'refund';
  refundNumber: string;
  originalReceiptNumber: string;
  items?: SaleLine[];
  amountMinor: number;
  currency: string;
  method: PaymentMethod;
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
  offline: { count: number; amountMinor: number; pendingSync: number };
  sync: { state: 'in_sync' | 'pending' | 'offline'; lastSyncedAt?: string; pendingDocuments: number };
}

export type ReceiptInput = PosPaymentReceipt | StoreSaleReceipt | GiftCardSaleReceipt | OfflinePaymentReceipt | RefundReceipt | EndOfDayReport;

function header(builder: ReceiptBuilder, merchant: MerchantHeader): void {
  if (merchant.logo !== undefined) builder.image(merchant.logo).feed();
  builder.big(merchant.name);
  if (merchant.handle !== undefined) builder.text(`@${merchant.handle.replace(/^@/, '')}`, { align: 'center' });
  for (const line of merchant.addressLines ?? []) builder.text(line, { align: 'center' });
  if (merchant.phone !== undefined) builder.text(`Tel ${merchant.phone}`, { align: 'center' });
  if (merchant.taxId !== undefined) builder.text(`Tax ID ${merchant.taxId}`, { align: 'center' });
  builder.rule('double');
}

/** Customer receipts thank and carry the merchant's footer; refunds and reports do not. */
function footer(builder: ReceiptBuilder, settings: ReceiptSettings, audience: 'customer' | 'refund' | 'report' = 'customer'): void {
  builder.rule('double');
  if (audience === 'customer') builder.text('Thank you!', { align: 'center', bold: true });
  if (audience !== 'report' && settings.footer !== undefined) builder.text(settings.footer, { align: 'center' });
  builder.text('Powered by Tapline', { align: 'center' });
}

function meta(builder: ReceiptBuilder, settings: ReceiptSettings, label: string, value: string, at: string): void {
  builder.row(label, value);
  builder.row('Date', formatDateTime(at, settings.timeZone));
  if (settings.terminalName !== undefined) builder.row('Terminal', settings.terminalName);
}

function total(builder: ReceiptBuilder, label: string, minor: number, currency: string): void {
  builder.rule();
  const text = `${label} ${formatMoneyWithCode(minor, currency)}`;
  if (Array.from(text).length <= builder.columns / 2) builder.big(text, { align: 'right' });
  else builder.row(label, formatMoneyWithCode(minor, currency), { bold: true });
}

function itemLines(builder: ReceiptBuilder, items: readonly SaleLine[], currency: string): number {
  let sum = 0;
  for (const item of items) {
    const lineTotal = item.quantity * item.unitPriceMinor;
    sum += lineTotal;
    builder.text(item.name);
    builder.row(`  ${item.quantity} x ${formatAmount(item.unitPriceMinor, currency)}`, formatAmount(lineTotal, currency));
  }
  return sum;
}

export function posPaymentReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: PosPaymentReceipt): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, merchant);
  builder.text('PAYMENT RECEIPT', { align: 'center', bold: true }).feed();
  meta(builder, settings, 'Session', receipt.sessionId.slice(0, 8), receipt.completedAt);
  builder.text(receipt.description);
  total(builder, 'PAID', receipt.amountMinor, receipt.currency);
  builder.rule();
  builder.row('Method', PAYMENT_METHOD_LABELS.nfc_tap);
  builder.row('Payer', `@${receipt.payerHandle.replace(/^@/, '')}`);
  if (receipt.tagId !== undefined) builder.row('Tag', receipt.tagId);
  builder.row('Wallet ref', receipt.walletRef);
  builder.text(`Session ${receipt.sessionId}`);
  footer(builder, settings);
  return builder.build();
}

export function storeSaleReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: StoreSaleReceipt): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, merchant);
  builder.text('SALE', { align: 'center', bold: true }).feed();
  meta(builder, settings, 'Receipt', receipt.receiptNumber, receipt.soldAt);
  if (receipt.cashier !== undefined) builder.row('Cashier', receipt.cashier);
  builder.rule();
  const subtotal = itemLines(builder, receipt.items, receipt.currency);
  builder.rule();
  builder.row('Subtotal', formatAmount(subtotal, receipt.currency));
  const discount = receipt.discountMinor ?? 0;
  if (discount > 0) builder.row('Discount', formatAmount(-discount, receipt.currency));
  if (receipt.taxMinor !== undefined) builder.row('Tax (included)', formatAmount(receipt.taxMinor, receipt.currency));
  total(builder, 'TOTAL', subtotal - discount, receipt.currency);
  builder.rule();
  for (const payment of receipt.payments) {
    builder.row(PAYMENT_METHOD_LABELS[payment.method], formatAmount(payment.amountMinor, receipt.currency));
    if (payment.reference !== undefined) builder.text(`  ref ${payment.reference}`);
  }
  if (receipt.changeMinor !== undefined && receipt.changeMinor > 0) builder.row('Change', formatAmount(receipt.changeMinor, receipt.currency), { bold: true });
  builder.feed().barcode(receipt.receiptNumber);
  footer(builder, settings);
  return builder.build({ openCashDrawer: receipt.payments.some((payment) => payment.method === 'cash') });
}

export function giftCardSaleReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: GiftCardSaleReceipt): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, merchant);
  builder.big('GIFT CARD');
  builder.big(formatMoneyWithCode(receipt.amountMinor, receipt.currency));
  builder.feed();
  builder.qr(receipt.code, settings.paperWidth === 58 ? 4 : 5);
  builder.text(receipt.code, { align: 'center' });
  builder.feed();
  builder.row('Valid until', formatDateTime(receipt.expiresAt, settings.timeZone).slice(0, 10));
  if (receipt.pinProtected === true) builder.text('Protected by a PIN: keep it separate from this card.', { align: 'center' });
  if (receipt.message !== undefined) builder.feed().text(`"${receipt.message}"`, { align: 'center' });
  builder.feed().text('Keep this receipt safe: the code is the card. Anyone holding it can spend it.', { align: 'center', bold: true });
  builder.rule();
  meta(builder, settings, 'Receipt', receipt.receiptNumber, receipt.soldAt);
  builder.row(`Paid (${PAYMENT_METHOD_LABELS[receipt.payment.method]})`, formatAmount(receipt.payment.amountMinor, receipt.currency));
  footer(builder, settings);
  return builder.build({ openCashDrawer: receipt.payment.method === 'cash' });
}

export function offlinePaymentReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: OfflinePaymentReceipt): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, merchant);
  builder.big('OFFLINE - PENDING SYNC', { invert: true });
  builder.text('Not yet confirmed by the server. Final once the terminal is back online.', { align: 'center' });
  builder.rule();
  meta(builder, settings, 'Payment', receipt.paymentId.slice(0, 12), receipt.takenAt);
  builder.row('Method', PAYMENT_METHOD_LABELS[receipt.method]);
  if (receipt.payerHandle !== undefined) builder.row('Payer', `@${receipt.payerHandle.replace(/^@/, '')}`);
  if (receipt.tagId !== undefined) builder.row('Tag', receipt.tagId);
  if (receipt.description !== undefined) builder.text(receipt.description);
  total(builder, 'AMOUNT', receipt.amountMinor, receipt.currency);
  builder.rule();
  builder.text(`Ref ${receipt.paymentId}`);
  builder.big('OFFLINE - PENDING SYNC', { invert: true });
  footer(builder, settings);
  return builder.build();
}

export function refundReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: RefundReceipt): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  header(builder, merchant);
  builder.big('REFUND');
  builder.feed();
  meta(builder, settings, 'Refund', receipt.refundNumber, receipt.refundedAt);
  builder.row('Original receipt', receipt.originalReceiptNumber);
  if (receipt.cashier !== undefined) builder.row('Cashier', receipt.cashier);
  if (receipt.items !== undefined && receipt.items.length > 0) {
    builder.rule();
    itemLines(builder, receipt.items, receipt.currency);
  }
  if (receipt.reason !== undefined) builder.rule().text(`Reason: ${receipt.reason}`);
  total(builder, 'REFUND', -receipt.amountMinor, receipt.currency);
  builder.row('Refunded to', PAYMENT_METHOD_LABELS[receipt.method]);
  builder.feed().barcode(receipt.refundNumber);
  builder.feed().text('Customer signature', { align: 'left' }).feed(2).rule();
  footer(builder, settings, 'refund');
  return builder.build({ openCashDrawer: receipt.method === 'cash' });
}

const SYNC_LABELS: Readonly<Record<EndOfDayReport['sync']['state'], string>> = {
  in_sync: 'All synced',
  pending: 'Sync pending',
  offline: 'OFFLINE',
};

export function endOfDayReport(merchant: MerchantHeader, settings: ReceiptSettings, report: EndOfDayReport): ReceiptDocument {
  const builder = new ReceiptBuilder(settings.paperWidth, codepageForLanguage(settings.language));
  const { currency } = report;
  header(builder, merchant);
  builder.big('END OF DAY');
  builder.text(`Business date ${report.businessDate}`, { align: 'center' }).feed();
  if (settings.terminalName !== undefined) builder.row('Terminal', settings.terminalName);
  builder.row('Opened', formatDateTime(report.openedAt, settings.timeZone));
  builder.row('Closed', formatDateTime(report.closedAt, settings.timeZone));
  builder.row('Currency', currency);
  builder.rule();
  builder.text('TOTALS BY PAYMENT METHOD', { bold: true });
  let gross = 0;
  let transactions = 0;
  for (const line of report.totals) {
    gross += line.amountMinor;
    transactions += line.count;
    builder.row(`${PAYMENT_METHOD_LABELS[line.method]} (${line.count})`, formatAmount(line.amountMinor, currency));
  }
  builder.rule();
  builder.row(`Gross (${transactions})`, formatAmount(gross, currency), { bold: true });
  builder.row(`Refunds (${report.refunds.count})`, formatAmount(-report.refunds.amountMinor, currency));
  total(builder, 'NET', gross - report.refunds.amountMinor, currency);
  builder.rule();
  builder.text('OFFLINE PAYMENTS', { bold: true });
  builder.row(`Taken offline (${report.offline.count})`, formatAmount(report.offline.amountMinor, currency));
  builder.row('Still pending sync', String(report.offline.pendingSync));
  builder.rule();
  builder.text('SYNC', { bold: true });
  builder.row('State', SYNC_LABELS[report.sync.state], { bold: report.sync.state !== 'in_sync' });
  builder.row('Documents pending', String(report.sync.pendingDocuments));
  if (report.sync.lastSyncedAt !== undefined) builder.row('Last sync', formatDateTime(report.sync.lastSyncedAt, settings.timeZone));
  if (report.sync.state !== 'in_sync' || report.offline.pendingSync > 0) {
    builder.feed().text('Totals include payments the server has not confirmed yet.', { align: 'center', bold: true });
  }
  footer(builder, settings, 'report');
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
    case 'refund':
      return refundReceipt(merchant, settings, input);
    case 'end-of-day':
      return endOfDayReport(merchant, settings, input);
  }
}
